// client::async_resume (resume_run.hpp): the plan from the store's open intents (which to send
// now, which plans wait for their prerequisite, which can never be sent), then a run of them with
// bounded concurrency, counted as they end. Its state lives on the client's strand.
#include "client/resume_run.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <deque>
#include <list>
#include <map>

#include "client/submit_on.hpp"
#include "idem/planned_intent.hpp"

namespace idem::detail {
namespace {

namespace asio = boost::asio;
using summary_handler = asio::any_completion_handler<void(resume_summary)>;

class resume_run : public std::enable_shared_from_this<resume_run> {
 public:
  resume_run(std::shared_ptr<client::core> core, resume_options options, summary_handler handler)
      : core_(std::move(core)), options_(std::move(options)), handler_(std::move(handler)) {}

  // On the strand.
  void start() {
    if (!plan()) return complete();
    watch_cancellation();
    fill();
    check_done();
  }

 private:
  struct in_flight {
    std::string key;
    asio::cancellation_signal signal;
  };

  // False when nothing may be resumed (another principal's intents, not skipped).
  bool plan() {
    auto& store = *core_->store;
    const auto open = store.open_intents();
    summary_.open = open.size();
    const std::string& me = core_->credentials_fingerprint;
    for (const auto& r : open)
      summary_.foreign += r.principal != me ? 1 : 0;
    if (summary_.foreign != 0 && !options_.skip_foreign) {
      // Not ours to touch: nothing is written or sent.
      summary_.error = make_error_code(errc::foreign_credentials);
      return false;
    }
    for (const auto& r : open) {
      if (r.principal != me) continue;
      if (r.path_bound) {
        waiting_.push_back(r.what);
        continue;
      }
      auto planned = planned_intent::from_record(r);
      if (!planned) {
        abandon(r.what.key(), "plan without a prerequisite");
        continue;
      }
      const auto parent_key = idempotency_key::from_string(planned->depends_on());
      const auto parent = parent_key ? store.find(*parent_key) : std::nullopt;
      if (!parent || parent->state == intent_state::rejected ||
          parent->state == intent_state::abandoned) {
        abandon(planned->key(), "prerequisite did not succeed");
      } else if (parent->state == intent_state::succeeded) {
        if (auto id = created_resource_id(parent->final_body)) {
          waiting_.push_back(planned->bind(*id));
        } else {
          abandon(planned->key(), "prerequisite's result names no resource");
        }
      } else {
        after_.emplace(planned->depends_on(), std::move(*planned));  // resumed with it
      }
    }
    return true;
  }

  void abandon(const idempotency_key& key, const char* why) {
    core_->store->write(
        events::abandoned{.key = key, .at = core_->sched->wall_now(), .reason = why});
    ++summary_.abandoned;
  }

  void watch_cancellation() {
    auto slot = asio::get_associated_cancellation_slot(handler_);
    if (!slot.is_connected()) return;
    slot.assign([weak = weak_from_this(), strand = core_->strand](asio::cancellation_type t) {
      // The slot's handler runs where cancellation was emitted: the state is on the strand.
      asio::post(strand, [weak, t] {
        if (auto self = weak.lock()) self->cancel(t);
      });
    });
  }

  void cancel(asio::cancellation_type t) {
    if (done_) return;
    cancelled_ = true;
    for (auto& f : flights_)
      f.signal.emit(t);
    check_done();
  }

  void fill() {
    while (!cancelled_ && flights_.size() < options_.concurrency && !waiting_.empty()) {
      intent what = std::move(waiting_.front());
      waiting_.pop_front();
      if (options_.adjust) what = options_.adjust(what);
      flights_.emplace_back();
      auto flight = std::prev(flights_.end());
      flight->key = what.key().str();
      submit_on(
          core_, what, options_.submit,
          asio::bind_cancellation_slot(
              flight->signal.slot(),
              asio::bind_executor(core_->strand, [self = shared_from_this(), flight](outcome o) {
                self->on_outcome(flight, std::move(o));
              })));
    }
  }

  void on_outcome(std::list<in_flight>::iterator flight, outcome o) {
    const std::string key = std::move(flight->key);
    flights_.erase(flight);
    count(o);
    auto [first, last] = after_.equal_range(key);
    std::optional<std::string> resource;
    if (first != last && o.kind() == outcome_kind::succeeded) {
      resource = created_resource_id(o.body());
    }
    for (auto it = first; it != last; ++it) {
      if (resource && !cancelled_) {
        waiting_.push_front(it->second.bind(*resource));  // a created order's payment first
      } else if (o.kind() == outcome_kind::rejected) {
        abandon(it->second.key(), "prerequisite rejected");
      } else if (o.kind() == outcome_kind::succeeded && !resource) {
        abandon(it->second.key(), "prerequisite's result names no resource");
      } else {
        not_started(it->second.key());  // its prerequisite is still open: so is it
      }
    }
    after_.erase(first, last);
    if (options_.on_outcome) options_.on_outcome(o);
    summary_.outcomes.push_back(std::move(o));
    fill();
    check_done();
  }

  void count(const outcome& o) {
    switch (o.kind()) {
      case outcome_kind::succeeded:
        ++summary_.succeeded;
        return;
      case outcome_kind::rejected:
        ++summary_.rejected;
        return;
      case outcome_kind::not_sent:
        ++summary_.not_sent;
        break;
      case outcome_kind::unresolved:
        ++summary_.unresolved;
        break;
    }
    summary_.still_open.push_back(o.key());
  }

  void not_started(const idempotency_key& key) {
    ++summary_.not_started;
    summary_.still_open.push_back(key.str());
  }

  void check_done() {
    if (done_ || !flights_.empty()) return;
    if (!waiting_.empty() && !cancelled_) return;
    for (const auto& i : waiting_)
      not_started(i.key());
    waiting_.clear();
    for (const auto& [parent, plan] : after_)
      not_started(plan.key());  // a prerequisite that was not in this resume (another's)
    after_.clear();
    if (cancelled_) summary_.error = make_error_code(errc::cancelled);
    complete();
  }

  void complete() {
    done_ = true;
    auto slot = asio::get_associated_cancellation_slot(handler_);
    if (slot.is_connected()) slot.clear();
    // Never inline: the caller of async_resume may hold a lock it also takes in the handler.
    // Runs on the handler's associated executor (default: the client's).
    asio::post(core_->ex, asio::append(std::move(handler_), std::move(summary_)));
  }

  std::shared_ptr<client::core> core_;
  resume_options options_;
  summary_handler handler_;
  resume_summary summary_;
  std::deque<intent> waiting_;
  std::multimap<std::string, planned_intent> after_;  // by prerequisite key
  std::list<in_flight> flights_;                      // stable: each holds its signal
  bool cancelled_ = false;
  bool done_ = false;
};

}  // namespace

void start_resume(const std::shared_ptr<client::core>& core, resume_options options,
                  summary_handler handler) {
  auto run = std::make_shared<resume_run>(core, std::move(options), std::move(handler));
  asio::post(core->strand, [run] { run->start(); });
}

}  // namespace idem::detail
