#include "idem_cli/journal/resume_command.hpp"

#include <boost/asio/io_context.hpp>

#include "idem_cli/client_settings.hpp"
#include "idem_cli/crash_points.hpp"
#include "idem_cli/journal/journal_file.hpp"
#include "idem_cli/load/load_command.hpp"
#include "idem_cli/lookup_choice.hpp"

namespace idem::cli {

run_plan resume_plan(intent_store& store, const std::string& principal, std::size_t& foreign) {
  run_plan plan;
  const auto open = store.open_intents();
  foreign = 0;
  for (const auto& r : open)
    foreign += r.principal != principal ? 1 : 0;
  if (foreign != 0) return plan;  // not ours to touch: nothing is written or sent
  auto abandon = [&](const intent_record& r, const char* why) {
    store.write(events::abandoned{
        .key = r.what.key(), .at = std::chrono::system_clock::now(), .reason = why});
    ++plan.never_sent;
  };
  for (const auto& r : open) {
    if (r.path_bound) {
      plan.ready.push_back(r.what);
      continue;
    }
    auto planned = planned_intent::from_record(r);
    if (!planned) {
      abandon(r, "plan without a prerequisite");
      continue;
    }
    const auto parent_key = idempotency_key::from_string(planned->depends_on());
    const auto parent = parent_key ? store.find(*parent_key) : std::nullopt;
    if (!parent || parent->state == intent_state::rejected ||
        parent->state == intent_state::abandoned) {
      abandon(r, "prerequisite did not succeed");
    } else if (parent->state == intent_state::succeeded) {
      if (auto id = created_resource_id(parent->final_body)) {
        plan.ready.push_back(planned->bind(*id));
      } else {
        abandon(r, "prerequisite's result names no resource");
      }
    } else {
      plan.after.push_back(std::move(*planned));  // its prerequisite is resumed too
    }
  }
  return plan;
}

load_summary run_resume(const resume_args& args, std::ostream& progress_out, bool show_progress,
                        bool& foreign_token) {
  boost::asio::io_context io{1};
  auto options = client_settings(args.common);
  options.observer = crash_observer_from_env(io.get_executor());
  options.store = open_journal_file(args.journal);
  client c{io.get_executor(), options};
  std::size_t foreign = 0;
  run_plan plan = resume_plan(*options.store, c.principal(), foreign);
  foreign_token = foreign != 0;
  if (foreign_token) return {};
  plan.url = args.common.url;
  if (args.common.lookup.overrides()) {
    // Every intent resumed gets the command line's lookup (its own business ID kept).
    plan.before_submit = [choice = args.common.lookup](const intent& i) {
      return with_lookup(choice, i);
    };
  }
  return run_plan_to_end(io, c, std::move(plan), args.concurrency, progress_out, show_progress);
}

}  // namespace idem::cli
