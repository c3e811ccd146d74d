#include "idem_cli/journal/journal_file.hpp"

#include <stdexcept>

namespace idem::cli {

std::shared_ptr<sqlite_journal> open_journal_file(const std::string& path, bool read_only) {
  std::error_code ec;
  std::string detail;
  auto journal = sqlite_journal::open({.path = path, .read_only = read_only}, ec, &detail);
  if (!journal) {
    std::string what = "cannot open journal " + path + ": " + ec.message();
    if (!detail.empty()) what += " (" + detail + ")";
    throw std::runtime_error(what);
  }
  return journal;
}

}  // namespace idem::cli
