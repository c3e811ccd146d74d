#pragma once
// What idem-cli tells after a Ctrl-C: the keys of the intents left unresolved (they may have
// happened), one per line, and how to finish them.

#include <ostream>
#include <string>
#include <system_error>
#include <vector>

namespace idem::cli {

/// Writes to `err`: how many intents were left unresolved, their keys one per line (nothing
/// else on those lines, so a script can pick them out), and a hint: with a journal, the
/// `idem-cli resume --journal PATH` command that finishes them (and sends what was not sent);
/// without one, that they must be checked on the server by key before being placed again.
/// `journal_error` (load_summary::journal_error), if any, is said before that hint.
void print_unresolved_notice(std::ostream& err, const std::vector<std::string>& keys,
                             const std::string& url, const std::string& journal,
                             std::error_code journal_error = {});

}  // namespace idem::cli
