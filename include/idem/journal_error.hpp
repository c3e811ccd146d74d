#pragma once
/// @file
/// Errors of the durable journal (sqlite_journal), as std::error_code values.

#include <system_error>

namespace idem {

enum class journal_errc {
  locked = 1,     ///< another process has the journal open (one writer process per journal)
  corrupt,        ///< the file is damaged or truncated: nothing was read from it, nothing dropped
  not_a_journal,  ///< the file is not an idem journal, or one of a newer, unknown format
  read_only,      ///< the file or its directory cannot be written
  full,           ///< the disk (or the file's size limit) is full
  io,             ///< another I/O or SQLite failure
  closed,         ///< the journal was closed before the write could be made durable
};

[[nodiscard]] const std::error_category& journal_category() noexcept;
[[nodiscard]] std::error_code make_error_code(journal_errc e) noexcept;

}  // namespace idem

template <>
struct std::is_error_code_enum<idem::journal_errc> : std::true_type {};
