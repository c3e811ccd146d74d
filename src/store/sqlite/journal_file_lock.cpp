#include "store/sqlite/journal_file_lock.hpp"

#include "idem/journal_error.hpp"
#include "platform/process.hpp"

#include <utility>

namespace idem::detail {
namespace {

// The pid the current holder wrote into the lock file, or "" if it cannot be read.
std::string holder_pid(const locked_file& file) {
  std::string pid = file.read_text(31);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' '))
    pid.pop_back();
  for (char c : pid)
    if (c < '0' || c > '9') return {};
  return pid;
}

}  // namespace

journal_file_lock::journal_file_lock(const std::string& lock_path, std::error_code& ec,
                                     std::string& detail) {
  locked_file file;
  // Never through a symlink: the lock file is written to (the holder's pid), and a link planted
  // there would have that write land in whatever file it names.
  if (const std::error_code err = file.open(lock_path)) {
    const bool denied = err == std::errc::permission_denied ||
                        err == std::errc::operation_not_permitted ||
                        err == std::errc::read_only_file_system;
    ec = denied ? journal_errc::read_only : journal_errc::io;
    detail = "cannot create or open the lock file " + lock_path + ": " +
             (err == std::errc::too_many_symbolic_link_levels ? std::string("it is a symbolic link")
                                                              : err.message());
    return;
  }
  if (const std::error_code err = file.try_lock()) {
    if (err == std::errc::operation_would_block) {
      ec = journal_errc::locked;
      const std::string pid = holder_pid(file);
      detail = lock_path + " is held by another process" +
               (pid.empty() ? std::string() : " (pid " + pid + ")");
    } else {
      ec = journal_errc::io;
      detail = "cannot lock " + lock_path + ": " + err.message();
    }
    return;
  }
  // Best effort: the pid only serves the message a second process shows.
  file.replace_text(process_id_text() + "\n");
  file_ = std::move(file);
  ec = {};
}

}  // namespace idem::detail
