#include "idem_cli/load_command.hpp"

#include <boost/asio/io_context.hpp>

#include "idem/client.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/interrupt_signals.hpp"
#include "idem_cli/load_run.hpp"

namespace idem::cli {

load_summary run_load(const load_args& args, std::ostream& progress_out, bool show_progress) {
  boost::asio::io_context io{1};
  progress_bar bar(progress_out, show_progress);
  client c{io.get_executor(), client_settings(args.url, args.token, args.deadline)};
  // The Ctrl-C signal_set (interrupt_signals) waits until it is destroyed, so run() would not
  // return on its own: stop the loop when the last intent is counted.
  load_run run(args, c, bar, [&io] { io.stop(); });
  interrupt_signals ctrl_c(io, [&](int) {
    bar.finish(run.current());
    progress_out << "idem-cli: interrupted; cancelling the intents in flight\n";
    run.interrupt();
  });
  run.start();
  io.run();
  bar.finish(run.current());
  return run.summary();
}

}  // namespace idem::cli
