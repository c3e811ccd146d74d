#include "idem_cli/load/load_run.hpp"

#include <algorithm>
#include <optional>

#include "idem_cli/failure_words.hpp"
#include "idem_cli/load/latency.hpp"

namespace idem::cli {
namespace {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

}  // namespace

load_run::load_run(run_plan plan, std::size_t concurrency, client& c, progress_bar& bar,
                   std::function<void()> on_finished, std::chrono::milliseconds deadline)
    : concurrency_(concurrency),
      client_(c),
      bar_(bar),
      on_finished_(std::move(on_finished)),
      start_(clock::now()),
      deadline_(deadline),
      more_(std::move(plan.more)),
      unplanned_(more_ ? plan.more_intents : 0),
      before_submit_(std::move(plan.before_submit)),
      url_(std::move(plan.url)) {
  total_ = plan.ready.size() + plan.after.size() + plan.never_sent + unplanned_;
  latencies_.reserve(total_);
  waiting_.assign(plan.ready.begin(), plan.ready.end());
  for (auto& p : plan.after)
    after_.emplace(p.depends_on(), std::move(p));
  never_sent(plan.never_sent, "not submitted: its prerequisite can never succeed");
}

void load_run::start() {
  check_finished();  // nothing to do at all
  fill();
}

void load_run::interrupt() {
  if (interrupted_ || finished_) return;
  interrupted_ = true;
  // Nothing waiting has left the client: nothing happened.
  never_sent(waiting_.size(), "not started: interrupted");
  never_sent(after_.size(), "not started: interrupted before its prerequisite succeeded");
  never_sent(unplanned_, "not started: interrupted");
  waiting_.clear();
  after_.clear();
  more_ = nullptr;
  unplanned_ = 0;
  // The client stops every submission at once: each in flight completes later, through
  // on_outcome, like any other (unresolved, or not_sent if nothing of it left). One call for
  // all of them, where a cancellation signal per intent cost an allocation or three each. Its
  // report comes once the store has made every event durable, or with why it could not.
  if (in_flight_ > 0) {
    shutting_down_ = true;
    client_.async_shutdown([this](const flush_report& r) {
      shutting_down_ = false;
      journal_error_ = r.store_error;
      check_finished();
    });
  }
  check_finished();
}

load_summary load_run::summary() const {
  load_summary s;
  s.intents = total_;
  s.counts = counts_;
  s.recovered_by_lookup = recovered_;
  s.duplicates_found = duplicates_;
  const client_counters c = client_.counters();
  s.attempts = c.attempts;
  s.retries = c.retries;
  auto samples = latencies_;  // percentile() sorts its input
  s.p50 = percentile(samples, 50);
  s.p99 = percentile(samples, 99);
  s.elapsed = std::chrono::duration_cast<milliseconds>(clock::now() - start_);
  s.interrupted = interrupted_;
  s.failures = failures_;
  s.unresolved_keys = unresolved_keys_;
  s.journal_error = journal_error_;
  if (!overshoots_.empty()) {
    auto late = overshoots_;
    s.overshoot = {.intents = late.size(),
                   .p50 = percentile(late, 50),
                   .p99 = percentile(late, 99),
                   .max = late.back()};  // percentile() sorted it
  }
  return s;
}

progress load_run::current(clock::time_point now) const {
  return {.done = done_,
          .total = total_,
          .succeeded = counts_.succeeded,
          .open = counts_.unresolved + counts_.not_sent,
          .rejected = counts_.rejected,
          .elapsed = std::chrono::duration_cast<milliseconds>(now - start_)};
}

bool load_run::plan_more() {
  if (!more_) return false;
  // Kept from call to call: an order's plan is a vector or two that would be allocated anew.
  auto& ready = plan_ready_;
  auto& after = plan_after_;
  ready.clear();
  after.clear();
  if (!more_(ready, after)) {
    // No more after all: what was counted for them is not coming.
    more_ = nullptr;
    total_ -= unplanned_;
    unplanned_ = 0;
    check_finished();
    return false;
  }
  // Counted already, as far as `more_intents` foresaw them.
  const std::uint64_t planned = ready.size() + after.size();
  const std::uint64_t foreseen = std::min(unplanned_, planned);
  unplanned_ -= foreseen;
  total_ += planned - foreseen;
  for (auto& i : ready)
    waiting_.push_back(std::move(i));
  for (auto& p : after)
    after_.emplace(p.depends_on(), std::move(p));
  return !waiting_.empty();
}

void load_run::fill() {
  while (!interrupted_ && in_flight_ < concurrency_ && (!waiting_.empty() || plan_more())) {
    intent what = std::move(waiting_.front());
    waiting_.pop_front();
    if (before_submit_) what = before_submit_(what);
    const auto started = clock::now();
    ++in_flight_;
    // The handler keeps a copy of the intent, which shares its data (the key's own copy was an
    // allocation per submission).
    client_.async_submit(
        what, [this, what, started](outcome o) { on_outcome(what, started, std::move(o)); });
  }
}

void load_run::on_outcome(const intent& what, clock::time_point started, outcome o) {
  --in_flight_;
  count(o, what);
  const idempotency_key& key = what.key();
  // Measured here in microseconds: on loopback most intents take well under a millisecond.
  const auto now = clock::now();
  latencies_.push_back(std::chrono::duration_cast<std::chrono::microseconds>(now - started));
  const bool undecided = o.kind() == outcome_kind::unresolved || o.kind() == outcome_kind::not_sent;
  if (deadline_.count() > 0 && undecided && !interrupted_) {
    overshoots_.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(now - (started + deadline_)));
  }
  auto [first, last] = after_.equal_range(key.str());
  // The body is parsed only for an intent that others wait for.
  std::optional<std::string> resource;
  if (first != last && o.kind() == outcome_kind::succeeded && !interrupted_) {
    resource = created_resource_id(o.body());
  }
  for (auto it = first; it != last; ++it) {
    if (resource) {
      // Dependants go first: a created order should not wait behind every other order.
      waiting_.push_front(it->second.bind(*resource));
      continue;
    }
    // It never leaves: nothing happened.
    never_sent(1, interrupted_ ? "not started: interrupted before its prerequisite succeeded"
                               : "not submitted: its prerequisite did not succeed");
    if (o.kind() == outcome_kind::rejected) {
      // Its prerequisite can never succeed: it can never be sent.
      client_.store()->write(events::abandoned{.key = it->second.key(),
                                               .at = std::chrono::system_clock::now(),
                                               .reason = "prerequisite rejected"});
    }
  }
  after_.erase(first, last);
  bar_.update(current(now));  // the outcome's own reading: one clock read fewer per intent
  check_finished();
  fill();
}

void load_run::count(const outcome& o, const intent& what) {
  ++done_;
  add(counts_, o.kind());
  if (o.recovered_by_lookup()) ++recovered_;
  if (o.matching_records() > 1) ++duplicates_;
  if (o.kind() == outcome_kind::succeeded) return;
  // Without the body, and with the lookup's URL template: bodies and lookup URLs differ per
  // intent, and the counts are what matters here.
  failures_.add(o.kind(),
                failure_words(o, url_, /*with_body=*/false, lookup_url_words(url_, what.lookup())));
  if (o.kind() == outcome_kind::unresolved) unresolved_keys_.push_back(o.key());
}

void load_run::never_sent(std::uint64_t n, const char* reason) {
  counts_.not_sent += n;
  done_ += n;
  failures_.add(outcome_kind::not_sent, reason, n);
}

void load_run::check_finished() {
  if (finished_ || done_ != total_ || shutting_down_) return;
  finished_ = true;
  on_finished_();
}

}  // namespace idem::cli
