// The state machine every intent store shares: how one event changes an intent's record, and
// the audit-timeline line it leaves.
#include <algorithm>
#include <type_traits>
#include <variant>

#include "idem/intent_store.hpp"
#include "store/attempt_counting.hpp"
#include "store/intent_closing.hpp"

namespace idem {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace

bool detail::closes(const intent_record& r, const intent_event& e) noexcept {
  return closes(r.is_open(), r.maybe_sent(), e);
}

bool detail::closes(bool open, bool maybe_sent, const intent_event& e) noexcept {
  if (!open) return false;  // final stays final
  if (const auto* o = std::get_if<events::outcome_reported>(&e)) return is_final(o->result.kind());
  // Never abandon what may have left.
  return std::holds_alternative<events::abandoned>(e) && !maybe_sent;
}

std::string_view to_string(intent_state s) noexcept {
  switch (s) {
    case intent_state::open:
      return "open";
    case intent_state::succeeded:
      return "succeeded";
    case intent_state::rejected:
      return "rejected";
    case intent_state::abandoned:
      return "abandoned";
  }
  return "open";
}

std::string_view to_string(timeline_entry::kind k) noexcept {
  using kind = timeline_entry::kind;
  switch (k) {
    case kind::created:
      return "created";
    case kind::path_bound:
      return "path_bound";
    case kind::attempt_started:
      return "attempt_started";
    case kind::attempt_finished:
      return "attempt_finished";
    case kind::waited:
      return "waited";
    case kind::lookup:
      return "lookup";
    case kind::outcome:
      return "outcome";
    case kind::abandoned:
      return "abandoned";
  }
  return "created";
}

const idempotency_key& key_of(const intent_event& e) noexcept {
  return std::visit(
      overloaded{[](const events::created& c) -> const idempotency_key& { return c.what.key(); },
                 [](const auto& other) -> const idempotency_key& { return other.key; }},
      e);
}

intent_record make_record(const events::created& c) {
  intent_record r{.what = c.what};
  r.principal = c.principal;
  r.created_at = c.at;
  r.depends_on = c.depends_on;
  r.path_bound = c.path_bound;
  return r;
}

void apply(intent_record& r, const intent_event& e) {
  const bool closing = detail::closes(r, e);  // the one rule for what ends an intent
  std::visit(overloaded{
                 [](const events::created&) {},
                 [&](const events::path_bound& b) {
                   if (r.path_bound) return;  // a path, once bound, is never changed
                   r.what = *intent::restore_exact(r.what.key(), b.op, r.what.body(), b.lookup);
                   r.path_bound = true;
                 },
                 [&](const events::attempt_started& a) {
                   detail::count_start(r.attempts, a);
                   if (!r.first_attempt_at) r.first_attempt_at = a.at;
                 },
                 [&](const events::attempt_finished& a) {
                   detail::count_end(r.attempts, r.attempts_finished, r.last_class,
                                     r.reached_server, a);
                 },
                 [](const events::waited&) {},
                 [](const events::lookup_finished&) {},
                 [&](const events::outcome_reported& o) {
                   if (!r.is_open()) return;  // final stays final
                   const outcome& out = o.result;
                   r.last_outcome = out.kind();
                   r.error = out.error();
                   if (closing) {
                     r.state = out.kind() == outcome_kind::succeeded ? intent_state::succeeded
                                                                     : intent_state::rejected;
                     r.finished_at = o.at;
                     r.final_status = out.status();
                     r.final_body = out.body();
                   }
                 },
                 [&](const events::abandoned& a) {
                   if (!closing) return;  // never abandon what may have left
                   r.state = intent_state::abandoned;
                   r.finished_at = a.at;
                   r.error = a.reason;
                 },
             },
             e);
}

timeline_entry timeline_of(const intent_event& e) {
  using kind = timeline_entry::kind;
  return std::visit(
      overloaded{
          [](const events::created& c) {
            return timeline_entry{.what = kind::created,
                                  .at = c.at,
                                  .detail = c.what.op().method + " " + c.what.op().path};
          },
          [](const events::path_bound& b) {
            return timeline_entry{
                .what = kind::path_bound, .at = b.at, .detail = b.op.method + " " + b.op.path};
          },
          [](const events::attempt_started& a) {
            return timeline_entry{.what = kind::attempt_started, .at = a.at, .attempt = a.number};
          },
          [](const events::attempt_finished& a) {
            std::string detail = a.problem_type;
            if (detail.empty()) detail = a.transport_error;
            return timeline_entry{.what = kind::attempt_finished,
                                  .at = a.at,
                                  .attempt = a.number,
                                  .cls = a.cls,
                                  .status = a.status,
                                  .request_id = a.request_id,
                                  .duration = a.took,
                                  .detail = std::move(detail)};
          },
          [](const events::waited& w) {
            return timeline_entry{.what = kind::waited, .at = w.at, .duration = w.delay};
          },
          [](const events::lookup_finished& l) {
            return timeline_entry{
                .what = kind::lookup, .at = l.at, .status = l.status, .detail = l.verdict};
          },
          [](const events::outcome_reported& o) {
            std::string detail(to_string(o.result.kind()));
            if (!o.result.error().empty()) detail += ": " + o.result.error();
            return timeline_entry{.what = kind::outcome,
                                  .at = o.at,
                                  .status = o.result.status(),
                                  .detail = std::move(detail)};
          },
          [](const events::abandoned& a) {
            return timeline_entry{.what = kind::abandoned, .at = a.at, .detail = a.reason};
          },
      },
      e);
}

}  // namespace idem
