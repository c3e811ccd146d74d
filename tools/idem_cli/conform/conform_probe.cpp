#include "idem_cli/conform/conform_probe.hpp"

#include <utility>

namespace idem::cli {

conform_probe::conform_probe(curl_transport_options options)
    : transport_(io_.get_executor(), std::move(options)) {}

transport_result conform_probe::send(http_request req) {
  std::vector<http_request> one;
  one.push_back(std::move(req));
  return std::move(send_all(std::move(one)).front());
}

std::vector<transport_result> conform_probe::send_all(std::vector<http_request> reqs) {
  std::vector<transport_result> results(reqs.size());
  std::size_t done = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    transport_.async_send(std::move(reqs[i]), [&results, &done, i](transport_result r) {
      results[i] = std::move(r);
      ++done;
    });
  }
  io_.restart();
  // Every transfer ends within its own timeout, so this ends; the check only guards against a
  // transport that lost a completion (its slot then says so instead of hanging the run).
  while (done < results.size()) {
    if (io_.run_one() == 0) break;
  }
  for (auto& r : results) {
    if (!r.ec && r.response.status == 0) {
      r.ec = std::make_error_code(std::errc::operation_canceled);
      r.failure = transport_failure::unknown;
    }
  }
  return results;
}

}  // namespace idem::cli
