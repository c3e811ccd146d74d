// idem's transport alone: the POSTs of idem_raw_curl_load (load_request.hpp: the same requests,
// command line and output) sent through idem::curl_transport on one io_context thread, with no
// client above it: no intent, journal, retry, classification or outcome. Measured beside raw
// libcurl and `idem-cli load`, it splits idem's cost into the transport's (Asio driving curl's
// socket interface) and the intent layer's (everything the client adds per intent).
#include <boost/asio/io_context.hpp>
#include <random>
#include <string>

#include "idem/curl_transport.hpp"
#include "load_request.hpp"
#include "transport_request.hpp"

namespace {

class load {
 public:
  load(idem::transport& t, const perf::load::options& o)
      : transport_(t), options_(o), request_(o, perf::load::fresh_key(rng_).substr(0, 8)) {}

  /// The next request, if any is left; each completion starts the next (C chains).
  void next() {
    if (started_ >= options_.requests) return;
    const long n = started_++;
    transport_.async_send(request_(perf::load::fresh_key(rng_), n),
                          [this](idem::transport_result r) {
                            if (!r.ec && r.response.status >= 200 && r.response.status < 300) ++ok_;
                            next();
                          });
  }

  [[nodiscard]] long ok() const noexcept { return ok_; }

 private:
  idem::transport& transport_;
  const perf::load::options& options_;
  // Before request_: the constructor draws the run's name from it.
  std::mt19937_64 rng_{std::random_device{}()};
  perf::load::transport_request request_;
  long started_ = 0;
  long ok_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  perf::load::options o;
  if (!perf::load::parse("idem_transport_load", argc, argv, o)) return 2;
  boost::asio::io_context io{1};
  // The transport's defaults, as idem-cli load uses them.
  idem::curl_transport transport{io.get_executor()};
  load run{transport, o};
  return perf::load::drive(io, o, run);
}
