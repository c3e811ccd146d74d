// submit_operation after a 202 Accepted: poll the status URL within the deadline, re-sending the
// POST with the same key every resend_interval so that an expired lease is taken over.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "flight/submit_operation.hpp"
#include "util/answer_json.hpp"
#include "util/http_facts.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

void submit_operation::begin_polling(const std::string& location) {
  polling_ = true;
  // The status URL gets our credentials: only one on the API's own origin is followed; for any
  // other, the POST itself is re-sent instead of polling.
  if (!location.empty()) {
    std::string url = absolute(location);
    if (same_origin(url)) rare().poll_url = std::move(url);
  }
  rare().next_resend = sched_now() + core_->opts.resend_interval;
  schedule_poll();
}

void submit_operation::schedule_poll() {
  if (stopping()) return finish_stopped();
  const auto now = deadline_now();
  if (!deadline_->can_start_attempt(now)) return settle();
  // Polls back to back (no room left to space them) would only hammer the server.
  const milliseconds room = deadline_->sleep_room(now);
  if (room <= milliseconds{0}) return settle();
  const milliseconds delay = std::clamp(core_->opts.poll_interval, milliseconds{1}, room);
  wait(trace::wait_reason::poll_interval, delay, [this] { poll_once(); });
}

void submit_operation::poll_once() {
  if (park_if_offline(&submit_operation::poll_once)) return;
  if (!deadline_->can_start_attempt(deadline_now())) return settle();
  const auto now = sched_now();
  // Re-sending the POST with the same key lets the server take over a crashed executor's
  // expired lease; a busy original just answers 202 or 409 again. A re-send is a retry like any
  // other: it needs a token from the retry budget, else this round polls (or waits) instead.
  auto& r = rare();
  const bool resend_due = r.poll_url.empty() || now >= r.next_resend;
  if (resend_due && core_->budget.try_spend(now)) {
    r.next_resend = now + core_->opts.resend_interval;
    return next_attempt();
  }
  if (r.poll_url.empty()) return schedule_poll();
  auto req = make_request("GET", r.poll_url, deadline_->attempt_timeout(deadline_now()));
  r.read_started = now;
  if (auto* o = obs()) o->on_poll_started(trace::poll_started{.ids = ids()});
  send(std::move(req), &submit_operation::on_poll_done);
}

void submit_operation::on_poll_done(transport_result r) {
  if (auto* o = obs()) {
    o->on_poll_finished(trace::poll_finished{
        .ids = ids(),
        .status = r.failure == transport_failure::none ? r.response.status : 0,
        .transport_error = r.failure == transport_failure::none ? std::error_code{} : r.ec,
        .duration = took_since(rare().read_started)});
  }
  if (stopping()) return finish_stopped();
  if (r.failure != transport_failure::none) {
    last_transport_error_ = r.ec;
    return schedule_poll();
  }
  if (r.response.status == 404) {
    // The status record is gone (purged, or another server): ask with the POST itself.
    rare().next_resend = sched_now();
    return schedule_poll();
  }
  auto body = parse_answer(r.response.body);  // too deep to read: no answer, poll again
  if (r.response.status != 200 || !body.is_object()) return schedule_poll();
  auto state = body.find("state");
  auto response = body.find("response");
  if (state == body.end() || *state != "COMPLETED" || response == body.end() ||
      !response->is_object()) {
    return schedule_poll();
  }
  answer a;
  // A status of the wrong type is no status (value() would throw on the strand).
  auto status = response->find("status");
  if (status != response->end() && status->is_number_integer()) a.status = status->get<int>();
  auto inner = response->find("body");
  if (inner != response->end() && inner->is_string()) {
    a.body = inner->get<std::string>();
    if (a.status >= 400) a.problem = problem_type_of(a.body);
  } else if (inner != response->end()) {
    a.body = inner->dump();
    auto type = inner->is_object() ? inner->find("type") : inner->end();
    if (a.status >= 400 && type != inner->end() && type->is_string()) a.problem = *type;
  }
  const header_list no_headers;  // the status resource keeps the first answer's body only
  a.cls = core_->opts.profile.classify(answer_view{a.status, no_headers, a.body}).cls;
  if (a.cls == attempt_class::succeeded && a.status == 202) a.cls = attempt_class::unknown;
  // The status resource is the server's record of this key's execution: proof, as a replay is.
  a.proven = true;
  last_answer_ = std::make_unique<answer>(a);
  // The status resource answers for a write of ours that was accepted: it executed.
  handle_answer(std::move(a), /*may_have_executed_before=*/true);
}

}  // namespace idem::detail
