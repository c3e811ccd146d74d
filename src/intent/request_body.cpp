#include "idem/request_body.hpp"

#include <ostream>

namespace idem {

std::ostream& operator<<(std::ostream& os, const request_body& body) {
  return os << body.view();
}

}  // namespace idem
