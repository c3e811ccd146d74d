#include "idem/journal_error.hpp"

#include <string>

namespace idem {
namespace {

class journal_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idem.journal"; }
  std::string message(int ev) const override {
    switch (static_cast<journal_errc>(ev)) {
      case journal_errc::locked:
        return "the journal is in use by another process";
      case journal_errc::corrupt:
        return "the journal file is damaged or truncated";
      case journal_errc::not_a_journal:
        return "the file is not an idem journal (or one of a newer format)";
      case journal_errc::read_only:
        return "the journal cannot be written (read-only file or directory)";
      case journal_errc::full:
        return "the disk is full: the journal cannot grow";
      case journal_errc::io:
        return "journal I/O error";
      case journal_errc::closed:
        return "the journal was closed before the write was durable";
    }
    return "unknown journal error";
  }
};

}  // namespace

const std::error_category& journal_category() noexcept {
  static const journal_category_impl category;
  return category;
}

std::error_code make_error_code(journal_errc e) noexcept {
  return {static_cast<int>(e), journal_category()};
}

}  // namespace idem
