#include "idem_cli/submit_command.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>

#include "idem/client.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/crash_points.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/failure_words.hpp"
#include "idem_cli/interrupt_signals.hpp"
#include "idem_cli/journal/journal_file.hpp"
#include "idem_cli/lookup_choice.hpp"
#include "idem_cli/summary.hpp"
#include "idem_cli/unresolved_notice.hpp"

namespace idem::cli {
namespace {

// The request's URL as the client builds it: `base` and `path` with one slash between them.
std::string join_url(const std::string& base, const std::string& path) {
  if (!base.empty() && base.back() == '/') return base.substr(0, base.size() - 1) + path;
  return base + path;
}

}  // namespace

int run_submit(const submit_args& args, std::ostream& out, std::ostream& err) {
  boost::asio::io_context io{1};
  std::optional<outcome> result;
  bool interrupted = false;
  std::string lookup_url;  // the lookup's, to name it in the words
  auto options = client_settings(args.common);
  options.observer = crash_observer_from_env(io.get_executor());
  if (!args.journal.empty()) {
    try {
      options.store = open_journal_file(args.journal);
    } catch (const std::exception& e) {
      // Without its journal the intent must not be sent: nothing happened, and it says so.
      err << "idem-cli: " << e.what() << '\n';
      result =
          outcome(outcome_fields{.kind = outcome_kind::not_sent, .error = "journal-unavailable"});
    }
  }
  if (!result) {
    client c{io.get_executor(), options};
    const auto payload = nlohmann::json::parse(args.data);
    const business_lookup lookup = choose_lookup(
        args.common.lookup, lookup_for(args.path, args.business_id, payload), payload);
    // Before sending: a lookup that can never settle it is said, not found out afterwards.
    if (auto notice = lookup_notice(args.common.lookup, args.path, lookup); !notice.empty())
      err << "idem-cli: " << notice << '\n';
    const intent what = intent::create({args.method, args.path}, payload, lookup);
    lookup_url = lookup_url_words(args.common.url, what.lookup(), what.payload());
    boost::asio::cancellation_signal cancel;
    // Ctrl-C stops retrying: the outcome is then unresolved (or not_sent) and still printed.
    interrupt_signals ctrl_c(io, [&](int) {
      err << "idem-cli: interrupted; cancelling the intent\n";
      interrupted = true;
      cancel.emit(boost::asio::cancellation_type::terminal);
    });
    c.async_submit(what, boost::asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) {
                     result = std::move(o);
                     io.stop();  // the Ctrl-C signal_set would keep run() waiting
                   }));
    io.run();
  }
  const outcome o = result.value_or(outcome{});
  const std::string where = join_url(args.common.url, args.path);
  out << to_json(o, where, lookup_url).dump() << '\n';
  if (o.kind() != outcome_kind::succeeded) {
    err << "idem-cli: " << to_string(o.kind()) << ": "
        << failure_words(o, where, /*with_body=*/true, lookup_url) << '\n';
  } else if (o.matching_records() > 1) {
    err << "idem-cli: succeeded, but " << duplicates_words(o.matching_records()) << '\n';
  }
  if (interrupted) {
    std::vector<std::string> open;
    if (o.kind() == outcome_kind::unresolved) open.push_back(o.key());
    print_unresolved_notice(err, open, args.common.url, args.journal);
  }
  outcome_counts counts;
  add(counts, o.kind());
  return exit_status_for(counts);
}

}  // namespace idem::cli
