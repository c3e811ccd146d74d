#include "idem/client.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include "client/policy_check.hpp"
#include "client/resume_run.hpp"
#include "client/submit_on.hpp"
#include "flight/client_core.hpp"
#include "flight/credentials_principal.hpp"
#include "flight/submit_operation.hpp"
#include "idem/curl_transport.hpp"
#include "util/posting_strand.hpp"

namespace idem {
namespace {

std::uint64_t seed_of(const std::optional<std::uint64_t>& seed) {
  if (seed) return *seed;
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

credentials credentials::in_header(std::string name, std::string value) {
  credentials c;
  c.header = std::move(name);
  c.value = std::move(value);
  return c;
}

credentials credentials::from_provider(std::function<std::string()> provider,
                                       std::string principal_id, std::string header) {
  credentials c;
  c.header = std::move(header);
  c.provider = std::move(provider);
  c.principal_id = std::move(principal_id);
  return c;
}

client::core::core(boost::asio::any_io_executor executor, client_options options,
                   std::shared_ptr<transport> t, std::shared_ptr<scheduler> s)
    : ex(executor),
      strand(boost::asio::make_strand(executor)),
      posting_strand(detail::posting_strand(strand)),
      opts(std::move(options)),
      // libcurl's multi handle is not thread-safe: the transport runs on the client's strand,
      // so the app may run its io_context on several threads.
      net(t ? std::move(t) : std::make_shared<curl_transport>(strand, opts.transport_options)),
      sched(s ? std::move(s) : std::make_shared<asio_scheduler>(executor)),
      store(opts.store ? opts.store : std::make_shared<memory_intent_store>()),
      budget(opts.retry_budget, sched->now()),
      rng(seed_of(opts.rng_seed)),
      credentials_fingerprint(detail::principal_of(opts.credentials, opts.key_header)),
      base_url(opts.base_url) {
  while (!base_url.empty() && base_url.back() == '/')
    base_url.pop_back();
}

client::client(boost::asio::any_io_executor ex, client_options options,
               std::shared_ptr<transport> transport, std::shared_ptr<scheduler> sched)
    : core_((detail::check_policy(options),
             std::make_shared<core>(std::move(ex), std::move(options), std::move(transport),
                                    std::move(sched)))) {}

client::~client() {
  // Operations in flight keep the core alive; stop them so each completes (unresolved or
  // not_sent) rather than retrying for a client nobody holds any more.
  auto c = core_;
  c->shutting_down.store(true, std::memory_order_release);
  boost::asio::post(c->strand, [c] {
    for (auto& op : c->flights.all())
      op->cancel(boost::asio::cancellation_type::terminal);
  });
}

void client::submit_impl(const intent& i, submit_options options,
                         boost::asio::any_completion_handler<signature> handler) {
  // Before anything is posted: the caller learns at once, on its own thread.
  if (options.deadline) detail::check_deadline(*options.deadline, "submit_options.deadline");
  detail::submit_on(core_, i, std::move(options), std::move(handler));
}

void client::resume_impl(resume_options options,
                         boost::asio::any_completion_handler<void(resume_summary)> handler) {
  if (options.submit.deadline) {
    detail::check_deadline(*options.submit.deadline, "resume_options.submit.deadline");
  }
  if (options.concurrency == 0) {
    throw std::invalid_argument("resume_options.concurrency must be at least 1");
  }
  detail::start_resume(core_, std::move(options), std::move(handler));
}

void detail::submit_on(const std::shared_ptr<client::core>& core, const intent& i,
                       submit_options options, outcome_handler handler) {
  auto c = core;
  auto cancellation = detail::watch_cancellation(handler, c);
  detail::post_on(c->posting_strand,
                  [c, i, cancellation, o = std::move(options), h = std::move(handler)]() mutable {
                    detail::pending_callers callers;
                    callers.push_back({std::move(h), cancellation, std::move(o)});
                    detail::admit(c, i, std::move(callers));
                  });
}

namespace {

events::created planned(const intent& i, std::optional<std::string> depends_on,
                        const std::string& principal, wall_time at) {
  const bool bound = !depends_on.has_value();
  return events::created{.what = i,
                         .principal = principal,
                         .at = at,
                         .depends_on = std::move(depends_on),
                         .path_bound = bound};
}

}  // namespace

void client::plan_impl(const intent& i, std::optional<std::string> depends_on,
                       boost::asio::any_completion_handler<void(std::error_code)> handler) {
  // Straight to the store (it is thread-safe); the completion is posted to the handler's
  // associated executor, by default the client's.
  core_->store->async_write(
      planned(i, std::move(depends_on), core_->credentials_fingerprint, core_->sched->wall_now()),
      core_->ex, std::move(handler));
}

void client::plan_all_impl(std::span<const intent> intents, std::span<const planned_intent> plans,
                           boost::asio::any_completion_handler<void(std::error_code)> handler) {
  const auto at = core_->sched->wall_now();
  const std::string& principal = core_->credentials_fingerprint;
  std::vector<intent_event> events;
  events.reserve(intents.size() + plans.size());
  for (const auto& i : intents)
    events.emplace_back(planned(i, std::nullopt, principal, at));
  for (const auto& p : plans)
    events.emplace_back(planned(p.draft(), p.depends_on(), principal, at));
  core_->store->async_write_all(std::move(events), core_->ex, std::move(handler));
}

client_counters client::counters() const {
  const auto& a = core_->counters;
  constexpr auto r = std::memory_order_relaxed;
  return client_counters{
      a.attempts.load(r), a.retries.load(r),  a.lookups.load(r),    a.succeeded.load(r),
      a.rejected.load(r), a.not_sent.load(r), a.unresolved.load(r), a.recovered_by_lookup.load(r)};
}

boost::asio::any_io_executor client::get_executor() const {
  return core_->ex;
}

const std::shared_ptr<intent_store>& client::store() const {
  return core_->store;
}

const std::string& client::principal() const {
  return core_->credentials_fingerprint;
}

}  // namespace idem
