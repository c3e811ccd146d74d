// The floor of any intent layer on idem's transport: the POSTs of idem_transport_load, with the
// work that idem's guarantees and threading model need on every intent whatever the design, and
// nothing else. Per request:
// - the submission hops onto the client's strand (the app may submit from any thread);
// - a key minted from OpenSSL's CSPRNG (idempotency_key::mint);
// - the answer classified by the server profile (its class; whether it is a replay);
// - an immutable outcome built (one allocation) and posted to the app's executor (never
//   inline).
// No store, no single-flight registry, no retry budget, deadline or attempt accounting, no
// planning beyond the body, and no retry: an answer other than success ends unresolved (the
// minimal server answers every request 201). Measured beside `idem-cli load`, it splits the intent
// layer's cost into what a redesign could not remove and what it could.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <string>
#include <utility>

#include "idem/curl_transport.hpp"
#include "idem/idempotency_key.hpp"
#include "idem/outcome.hpp"
#include "idem/server_profile.hpp"
#include "load_request.hpp"
#include "transport_request.hpp"

namespace {

namespace asio = boost::asio;

class load {
 public:
  load(asio::any_io_executor app, asio::strand<asio::any_io_executor> strand, idem::transport& t,
       const perf::load::options& o)
      : app_(std::move(app)),
        strand_(std::move(strand)),
        transport_(t),
        options_(o),
        request_(o, idem::idempotency_key::mint().str().substr(0, 8)) {}

  /// The app's side: submits the next intent, if any is left.
  void next() {
    if (started_ >= options_.requests) return;
    const long n = started_++;
    asio::post(strand_, [this, n] { send(n); });
  }

  [[nodiscard]] long ok() const noexcept { return ok_; }

 private:
  // On the strand.
  void send(long n) {
    auto key = idem::idempotency_key::mint();
    transport_.async_send(
        request_(key.str(), n),
        asio::bind_executor(strand_, [this, key = std::move(key)](idem::transport_result r) {
          done(key, std::move(r));
        }));
  }

  // On the strand: the answer's meaning, delivered to the app by a queue hop.
  void done(const idem::idempotency_key& key, idem::transport_result r) {
    idem::outcome_fields f;
    f.attempts = 1;
    f.key = key.str();
    if (!r.ec) {
      const auto m = profile_.classify(
          idem::answer_view{r.response.status, r.response.headers, r.response.body});
      if (m.cls == idem::attempt_class::succeeded) f.kind = idem::outcome_kind::succeeded;
      f.replayed = profile_.replayed(r.response.headers);
      f.status = r.response.status;
      f.body = std::move(r.response.body);
      f.headers = std::move(r.response.headers);
    }
    asio::post(app_, [this, o = idem::outcome(std::move(f))] {
      if (o.kind() == idem::outcome_kind::succeeded) ++ok_;
      next();
    });
  }

  asio::any_io_executor app_;
  asio::strand<asio::any_io_executor> strand_;
  idem::transport& transport_;
  const perf::load::options& options_;
  idem::server_profile profile_ = idem::server_profile::ietf();
  perf::load::transport_request request_;
  long started_ = 0;
  long ok_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  perf::load::options o;
  if (!perf::load::parse("idem_floor_load", argc, argv, o)) return 2;
  asio::io_context io{1};
  // On a strand of its own, as idem::client runs its transport; the transport's defaults.
  const auto strand = asio::make_strand(io.get_executor());
  // Named: g++ 12 warns (wrongly) of an uninitialised string in the default argument here.
  const idem::curl_transport_options defaults;
  idem::curl_transport transport{strand, defaults};
  load run{io.get_executor(), strand, transport, o};
  return perf::load::drive(io, o, run);
}
