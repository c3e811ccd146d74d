#include "idem_cli/submit_command.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <optional>

#include "idem/client.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/crash_points.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/interrupt_signals.hpp"
#include "idem_cli/journal_file.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

business_lookup lookup_for(const std::string& path, const std::string& business_id) {
  using kind = business_lookup::kind;
  const std::string orders = "/v1/orders";
  auto ends_with = [&](const std::string& suffix) {
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (path == orders) return {kind::order_created, business_id};
  if (path.rfind(orders + "/", 0) == 0) {
    if (ends_with("/payments")) return {kind::payment_captured, business_id};
    if (ends_with("/cancel")) return {kind::order_cancelled, business_id};
  }
  return {kind::none, business_id};
}

int run_submit(const submit_args& args, std::ostream& out) {
  boost::asio::io_context io{1};
  std::optional<outcome> result;
  auto options = client_settings(args.url, args.token, args.deadline);
  options.observer = crash_observer_from_env(io.get_executor());
  if (!args.journal.empty()) {
    try {
      options.store = open_journal_file(args.journal);
    } catch (const std::exception& e) {
      // Without its journal the intent must not be sent: nothing happened, and it says so.
      std::cerr << "idem-cli: " << e.what() << '\n';
      result =
          outcome(outcome_fields{.kind = outcome_kind::not_sent, .error = "journal-unavailable"});
    }
  }
  if (!result) {
    client c{io.get_executor(), options};
    const intent what = intent::create({args.method, args.path}, nlohmann::json::parse(args.data),
                                       lookup_for(args.path, args.business_id));
    boost::asio::cancellation_signal cancel;
    // Ctrl-C stops retrying: the outcome is then unresolved (or not_sent) and still printed.
    interrupt_signals ctrl_c(io, [&](int) {
      std::cerr << "idem-cli: interrupted; cancelling the intent\n";
      cancel.emit(boost::asio::cancellation_type::terminal);
    });
    c.async_submit(what, boost::asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) {
                     result = std::move(o);
                     io.stop();  // the Ctrl-C signal_set would keep run() waiting
                   }));
    io.run();
  }
  const outcome o = result.value_or(outcome{});
  out << to_json(o).dump() << '\n';
  outcome_counts counts;
  add(counts, o.kind());
  return exit_status_for(counts);
}

}  // namespace idem::cli
