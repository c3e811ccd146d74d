#include "idem_cli/unresolved_notice.hpp"

namespace idem::cli {

void print_unresolved_notice(std::ostream& err, const std::vector<std::string>& keys,
                             const std::string& url, const std::string& journal,
                             std::error_code journal_error) {
  if (keys.empty()) {
    err << "idem-cli: interrupted; no intent was left unresolved\n";
  } else {
    err << "idem-cli: interrupted; " << keys.size()
        << (keys.size() == 1 ? " intent is" : " intents are")
        << " unresolved (may have happened), by key:\n";
    for (const auto& key : keys)
      err << key << '\n';
  }
  if (journal_error) {
    err << "idem-cli: the journal could not be flushed (" << journal_error.message()
        << "): it holds what it held at its last commit; an intent whose end it lost is still "
           "open in it, under its key\n";
  }
  if (!journal.empty()) {
    // Never the token itself on stderr: it is a secret.
    err << "idem-cli: finish them with their own keys: idem-cli resume --url " << url
        << " --token TOKEN --journal " << journal << '\n';
  } else if (!keys.empty()) {
    err << "idem-cli: without --journal idem-cli cannot resume them; check them on the server "
           "by key before placing them again\n";
  }
}

}  // namespace idem::cli
