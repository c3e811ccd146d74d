#include "idem/testing/mock_errc.hpp"

#include <string>

namespace idem::kit {
namespace {

class category final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "idem.testing"; }
  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<mock_errc>(value)) {
      case mock_errc::server_not_found:
        return "idem-mock-server not found";
      case mock_errc::invalid_options:
        return "invalid mock server options";
      case mock_errc::temp_dir_failed:
        return "cannot create a temporary directory";
      case mock_errc::start_failed:
        return "idem-mock-server did not start";
      case mock_errc::start_timed_out:
        return "idem-mock-server did not print its address in time";
      case mock_errc::not_running:
        return "idem-mock-server is not running";
      case mock_errc::stop_failed:
        return "idem-mock-server did not stop cleanly";
      case mock_errc::request_failed:
        return "admin request failed";
      case mock_errc::refused:
        return "admin request refused";
      case mock_errc::bad_answer:
        return "unexpected admin answer";
    }
    return "unknown idem.testing error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& mock_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace idem::kit
