#include "idem/curl_transport.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "idem/transport_error.hpp"
#include "transport/curl_handle_pool.hpp"
#include "transport/curl_proxy_settings.hpp"
#include "transport/curl_request.hpp"
#include "transport/curl_socket_watcher.hpp"
#include "transport/curl_timer.hpp"
#include "transport/transfer_deadlines.hpp"
#include "transport/transfer_slots.hpp"
#include "util/posting_strand.hpp"
#include "util/saturating_time.hpp"
#include "util/strand_ref.hpp"

namespace idem {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// curl_global_init must run once before any other curl call, and before 7.84 it was not
// thread-safe. A function-local static makes it exactly-once and thread-safe without asking the
// application to remember it (an application that calls it itself first is fine: curl counts).
// There is deliberately no curl_global_cleanup: at exit it would race other users of OpenSSL.
void init_curl_once() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    throw std::runtime_error(std::string("curl_global_init failed: ") + curl_easy_strerror(rc));
  }
}

// `ex` converted as post() converts it, when it is a strand (posting_strand.hpp); nothing
// otherwise.
std::optional<detail::io_strand> posting_strand_of(const asio::any_io_executor& ex) {
  const auto* strand = ex.target<detail::io_strand>();
  if (strand == nullptr) return std::nullopt;
  return detail::posting_strand(*strand);
}

transport_result not_sent(std::error_code ec) {
  transport_result result;
  result.ec = ec;
  result.failure = transport_failure::not_sent;
  return result;
}

}  // namespace

/// The multi handle and everything that must outlive the public object until the last Asio wait
/// on its behalf has completed (the waits hold a shared_ptr to it).
///
/// Rules that keep curl sound:
/// - curl_multi_* is never called from inside a curl callback. The callbacks only record what
///   curl wants and arm Asio waits; socket_action runs from those waits' completions.
/// - The socket watcher (curl_socket_watcher.hpp) reports a descriptor ready only while curl
///   still wants it, and never one that was closed meanwhile.
/// - User handlers are always posted, never called from here.
struct curl_transport::impl : std::enable_shared_from_this<impl> {
  impl(asio::any_io_executor executor, curl_transport_options opts);
  ~impl();
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  struct transfer {
    std::uint64_t id;  // in transfers_, set as it goes in
    detail::curl_request request;
    asio::any_completion_handler<signature> handler;
    asio::cancellation_slot slot;
    detail::transfer_due due{};  // tracked by deadlines_ until it ends or runs out
  };

  // Per-operation cancellation. Lives in the caller's slot; may be emitted from any context, so
  // it only posts the real work to the transport's executor.
  struct cancel_request {
    std::weak_ptr<impl> owner;
    std::uint64_t id;
    void operator()(asio::cancellation_type type) const {
      if (auto self = owner.lock()) {
        asio::post(self->ex_, [owner = owner, id = id, type] {
          if (auto self = owner.lock()) self->cancel(id, type);
        });
      }
    }
  };

  void start(http_request req, asio::any_completion_handler<signature> handler);
  void cancel(std::uint64_t id, asio::cancellation_type type);
  void reset_connections();
  void shutdown();

  // A multi handle whose callbacks lead here, or nullptr if curl cannot make one.
  CURLM* new_multi();

  // Ends `t`, taken out of transfers_ by the caller.
  void complete(std::unique_ptr<transfer> t, transport_result result);
  // Ends every transfer in flight, each with the result `why` gives for it.
  void complete_all(transport_result (detail::curl_request::*why)() const);
  void post_result(asio::any_completion_handler<signature> handler, transport_result result);
  void act(curl_socket_t fd, int events);
  void collect_finished();
  void size_connection_cache();
  void arm_deadline(std::chrono::steady_clock::time_point at);
  void on_deadline(std::uint64_t generation);

  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* self, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* self);
  static curl_socket_t on_open_socket(void* self, curlsocktype purpose, curl_sockaddr* address);
  static int on_close_socket(void* self, curl_socket_t fd);

  using strand_type = asio::strand<asio::any_io_executor>;
  asio::any_io_executor ex_;
  // When ex_ is a strand: that strand as post() uses it (never blocking, a fork), made once, so
  // that a result posted to it does not convert the strand on every post (post_result).
  std::optional<strand_type> posting_strand_;
  curl_transport_options options_;
  // Read from options_.proxy and the environment once (curl_proxy_settings.hpp); the pooled
  // handles keep what does not change from request to request.
  detail::curl_proxy_settings proxy_;
  detail::curl_timer timer_;
  // The one timer that ends transfers past their own due time (deadlines_). It is armed
  // only when a transfer is due earlier than the wait in charge, which with equal timeouts is
  // once per timeout, not once per transfer, and cancelled when nothing is in flight.
  asio::steady_timer deadline_timer_;
  std::optional<std::chrono::steady_clock::time_point> deadline_armed_;
  std::uint64_t deadline_generation_ = 0;  // completions of replaced waits carry an older one
  detail::socket_watcher sockets_;
  // Before transfers_: the requests give their handles back to it when they go.
  detail::curl_handle_pool handles_;
  CURLM* multi_ = nullptr;
  bool stopping_ = false;
  detail::transfer_slots<transfer> transfers_;
  // The transfers' own due times, kept in the transfers (after transfers_: it goes first).
  detail::transfer_deadlines deadlines_;
  std::size_t peak_in_flight_ = 0;  // since transfers_ was last empty
  long connection_bound_ = 0;       // CURLMOPT_MAXCONNECTS as last set (0: not yet)
};

curl_transport::impl::impl(asio::any_io_executor executor, curl_transport_options opts)
    : ex_(std::move(executor)),
      posting_strand_(posting_strand_of(ex_)),
      options_(std::move(opts)),
      proxy_(detail::curl_proxy_settings::decide(options_.proxy)),
      timer_(ex_, [this] { act(CURL_SOCKET_TIMEOUT, 0); }),
      deadline_timer_(ex_),
      sockets_(ex_,
               [this](curl_socket_t fd, int events) {
                 if (!stopping_) act(fd, events);
               }),
      // As many handles kept ready as connections kept idle, and, while a load lasts, as many
      // as the connections it keeps (size_connection_cache): both say how much concurrency to
      // stay prepared for.
      handles_(static_cast<std::size_t>(std::max(options_.max_idle_connections, 1L))) {
  init_curl_once();
  multi_ = new_multi();
  if (multi_ == nullptr) throw std::runtime_error("curl_multi_init failed");
  size_connection_cache();
}

CURLM* curl_transport::impl::new_multi() {
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return nullptr;
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &impl::on_socket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, static_cast<void*>(this));
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &impl::on_timer);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, static_cast<void*>(this));
  // HTTP/1.1 only: one request per connection at a time, so a failure belongs to one request.
  curl_multi_setopt(multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  return multi;
}

curl_transport::impl::~impl() {
  // ~curl_transport has shut down already; shutdown() is idempotent, so curl's handles are
  // freed even if that ever changes.
  shutdown();
}

void curl_transport::impl::start(http_request req,
                                 asio::any_completion_handler<signature> handler) {
  if (req.timeout.count() <= 0) {
    // curl reads a zero timeout as "none"; an attempt with no time left never starts.
    post_result(std::move(handler), not_sent(transport_errc::timed_out));
    return;
  }
  // A timeout of milliseconds::max() means "no timeout": due never.
  const auto due = detail::saturating_add(std::chrono::steady_clock::now(), req.timeout);
  // Built in place: the request's callbacks point at it from the start.
  std::unique_ptr<transfer> t(new transfer{
      0, detail::curl_request(std::move(req), options_, proxy_, handles_), std::move(handler), {}});
  if (auto ec = t->request.setup_error()) {
    post_result(std::move(t->handler), not_sent(ec));
    return;
  }
  CURL* easy = t->request.easy();
  curl_easy_setopt(easy, CURLOPT_PRIVATE, static_cast<void*>(t.get()));
  if (t->request.fresh_handle()) {
    // Sockets belong to the transport, not to the request: curl keeps connections (and calls
    // the close callback for them) long after the request that opened them is gone. Set once
    // per handle: the pool keeps handles only for this transport.
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &impl::on_open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, static_cast<void*>(this));
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &impl::on_close_socket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, static_cast<void*>(this));
  }

  transfer& added = *t;
  const std::uint64_t id = transfers_.insert(std::move(t));
  added.id = id;
  size_connection_cache();
  // Adding only arms the timer (curl asks for a 0 ms timeout); the transfer starts from there.
  if (CURLMcode mc = curl_multi_add_handle(multi_, easy); mc != CURLM_OK) {
    auto handler_out = std::move(transfers_.take(id)->handler);
    size_connection_cache();
    post_result(std::move(handler_out),
                not_sent({static_cast<int>(transport_errc::curl_error_base) + CURLE_FAILED_INIT,
                          transport_category()}));
    return;
  }
  deadlines_.add(added.due, id, due);
  arm_deadline(due);
  added.slot = asio::get_associated_cancellation_slot(added.handler);
  if (added.slot.is_connected()) added.slot.emplace<cancel_request>(weak_from_this(), id);
}

void curl_transport::impl::arm_deadline(std::chrono::steady_clock::time_point at) {
  if (stopping_ || (deadline_armed_ && *deadline_armed_ <= at)) return;  // fires first anyway
  const std::uint64_t generation = ++deadline_generation_;
  deadline_armed_ = at;
  deadline_timer_.expires_at(at);  // aborts the wait it replaces (an older generation)
  deadline_timer_.async_wait([self = shared_from_this(), generation](const error_code&) {
    self->on_deadline(generation);
  });
}

void curl_transport::impl::on_deadline(std::uint64_t generation) {
  if (stopping_ || generation != deadline_generation_) return;  // replaced, cancelled, stopped
  deadline_armed_.reset();
  for (std::uint64_t id : deadlines_.take_due(std::chrono::steady_clock::now())) {
    auto t = transfers_.take(id);
    if (!t) continue;
    auto result = t->request.time_out();
    complete(std::move(t), std::move(result));
  }
  if (auto next = deadlines_.earliest()) arm_deadline(*next);
}

void curl_transport::impl::cancel(std::uint64_t id, asio::cancellation_type type) {
  transfer* t = transfers_.find(id);
  if (t == nullptr) return;  // finished meanwhile: its result is already posted
  // Terminal cancellation may leave anything behind, so it always ends the transfer. Partial
  // and total cancellation promise no side effects, which holds only while nothing was sent.
  const bool terminal = (type & asio::cancellation_type::terminal) != asio::cancellation_type::none;
  const bool clean = (type & (asio::cancellation_type::partial | asio::cancellation_type::total)) !=
                         asio::cancellation_type::none &&
                     !t->request.started();
  if (!terminal && !clean) return;
  auto result = t->request.abandon();
  complete(transfers_.take(id), std::move(result));
}

void curl_transport::impl::complete(std::unique_ptr<transfer> t, transport_result result) {
  size_connection_cache();
  deadlines_.remove(t->due);  // unless taken already
  if (deadlines_.empty() && deadline_armed_) {
    // Nothing in flight: no wait may keep the io_context busy (or wake the app) for nothing.
    deadline_armed_.reset();
    ++deadline_generation_;
    deadline_timer_.cancel();
  }
  // The slot belongs to the caller and may be reused for its next operation.
  if (t->slot.is_connected()) t->slot.clear();
  curl_multi_remove_handle(multi_, t->request.easy());
  auto handler = std::move(t->handler);
  t.reset();  // the easy handle goes only after it left the multi handle
  post_result(std::move(handler), std::move(result));
}

void curl_transport::impl::complete_all(transport_result (detail::curl_request::*why)() const) {
  for (std::uint64_t id : transfers_.ids()) {
    if (auto t = transfers_.take(id)) {
      auto result = ((t->request).*why)();
      complete(std::move(t), std::move(result));
    }
  }
}

void curl_transport::impl::post_result(asio::any_completion_handler<signature> handler,
                                       transport_result result) {
  // The common case: our executor is a strand (the client's) and the handler is bound to that
  // same strand. Queued on it directly, it runs there as post() would run it, without
  // post()'s hop from our executor to the handler's through type-erased executors (each of
  // which copies the strand to the heap): about 3,000 instructions and 7 allocations a result.
  if (posting_strand_) {
    // The client's handlers name its strand by reference (strand_ref.hpp), others the strand.
    const auto handler_ex = asio::get_associated_executor(handler);
    const auto* ref = handler_ex.target<detail::strand_ref>();
    const auto* theirs = ref ? &ref->strand() : handler_ex.target<strand_type>();
    if (theirs && *theirs == *posting_strand_) {
      // Queued, though the transport may be on that strand already: curl reports a round's
      // transfers one after another, and their handlers then run one after another. Run from
      // here, each handler's code would push curl's out of the instruction cache and back
      // (cachegrind, 16 in flight: about 950 fewer instructions a request, 235 more misses).
      detail::post_on(*posting_strand_, [h = std::move(handler), r = std::move(result)]() mutable {
        std::move(h)(std::move(r));
      });
      return;
    }
  }
  // post() runs the handler on its associated executor (ours if it has none) and keeps that
  // executor's work count up until then; never inline.
  asio::post(ex_, asio::append(std::move(handler), std::move(result)));
}

void curl_transport::impl::act(curl_socket_t fd, int events) {
  int running = 0;
  curl_multi_socket_action(multi_, fd, events, &running);
  collect_finished();
}

void curl_transport::impl::collect_finished() {
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    // The message belongs to curl and dies with curl_multi_remove_handle: copy it first.
    CURL* easy = msg->easy_handle;
    const CURLcode code = msg->data.result;
    char* priv = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
    auto t = transfers_.take(reinterpret_cast<transfer*>(priv)->id);
    auto result = t->request.finish(code);
    complete(std::move(t), std::move(result));
  }
}

void curl_transport::impl::size_connection_cache() {
  // CURLMOPT_MAXCONNECTS bounds curl's whole connection cache, the connections in use included,
  // and curl enforces it when a finished transfer hands its connection back. A fixed 16 closed
  // a connection on nearly every completion at 64 in flight (20,000 requests opened 10,513
  // connections). Transfers in flight alone are not enough either: one reactor round often
  // finishes most of them before any completion handler starts the next, so the count dips
  // while their connections come back. Hence the bound: the most transfers in flight since the
  // transport was last idle, plus max_idle_connections. Never 0, which curl reads as "no limit".
  if (multi_ == nullptr) return;
  peak_in_flight_ = transfers_.empty() ? 0 : std::max(peak_in_flight_, transfers_.size());
  const long bound = std::max(
      static_cast<long>(peak_in_flight_) + std::max(options_.max_idle_connections, 0L), 1L);
  // The handle pool follows the same bound: a load's next wave reuses the handles of the one
  // before (a pool of 16 made 8,736 handles for 10,000 requests at 5,000 in flight, each a
  // 5 KB calloc plus its buffers, and the freed ones left holes that raised peak RSS); once
  // the transport is idle it keeps max_idle_connections again.
  // Called on every start and completion: the option is set only when the bound moves.
  if (bound == connection_bound_) return;
  connection_bound_ = bound;
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, bound);
  handles_.set_max_kept(static_cast<std::size_t>(bound));
}

int curl_transport::impl::on_socket(CURL*, curl_socket_t fd, int what, void* self, void*) {
  auto& t = *static_cast<impl*>(self);
  // Stopping, curl only says what it no longer wants; nothing is watched any more.
  if (t.stopping_ && what != CURL_POLL_REMOVE) return 0;
  // Waits hold the transport; letting go needs no hold (and may happen in its destructor).
  t.sockets_.want(fd, what, what == CURL_POLL_REMOVE ? nullptr : t.shared_from_this());
  return 0;
}

int curl_transport::impl::on_timer(CURLM*, long timeout_ms, void* self) {
  auto& t = *static_cast<impl*>(self);
  if (t.stopping_) return 0;
  try {
    t.timer_.set(timeout_ms, t.shared_from_this());
    return 0;
  } catch (...) {  // no exception may cross curl's C frames
    return -1;
  }
}

curl_socket_t curl_transport::impl::on_open_socket(void* self, curlsocktype purpose,
                                                   curl_sockaddr* address) {
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  return static_cast<impl*>(self)->sockets_.open(*address);
}

int curl_transport::impl::on_close_socket(void* self, curl_socket_t fd) {
  return static_cast<impl*>(self)->sockets_.close(fd);
}

void curl_transport::impl::reset_connections() {
  // Every connection curl holds was opened through the socket table: none there, none to drop.
  if (stopping_ || (transfers_.empty() && sockets_.size() == 0)) return;
  complete_all(&detail::curl_request::dropped);
  // libcurl has no call that closes the idle connections of a multi handle's cache: only its
  // cleanup does (through on_close_socket). So the multi handle is replaced by a new one.
  curl_multi_cleanup(multi_);
  // Nothing of the old one may be watched or acted on for the new one: descriptors curl did not
  // close or hand back are let go, and its timeout, if any, is forgotten (as curl's "none").
  sockets_.clear();
  timer_.set(-1, nullptr);
  // Out of memory: nullptr, on which every later request fails as not sent (as adding to it
  // fails) rather than go out on an old connection.
  multi_ = new_multi();
  connection_bound_ = 0;
  size_connection_cache();
}

void curl_transport::impl::shutdown() {
  if (stopping_) return;
  stopping_ = true;
  complete_all(&detail::curl_request::abandon);
  timer_.stop();
  deadline_timer_.cancel();
  // Closes the pooled connections through on_close_socket, which still works: the socket
  // table outlives this call.
  curl_multi_cleanup(multi_);
  multi_ = nullptr;
  sockets_.clear();
}

curl_transport::curl_transport(asio::any_io_executor ex, curl_transport_options options)
    : impl_(std::make_shared<impl>(std::move(ex), std::move(options))) {}

curl_transport::~curl_transport() {
  impl_->shutdown();
}

void curl_transport::reset_connections() {
  impl_->reset_connections();
}

std::size_t curl_transport::in_flight() const noexcept {
  return impl_->transfers_.size();
}

void curl_transport::send_impl(http_request req, asio::any_completion_handler<signature> handler) {
  impl_->start(std::move(req), std::move(handler));
}

}  // namespace idem
