#pragma once
// Internal: what a client shares with its operations in flight. They hold it by shared_ptr, so
// a client destroyed mid-flight leaves them a valid core to finish against.

#include <atomic>
#include <boost/asio/strand.hpp>
#include <random>
#include <string>

#include "idem/client.hpp"
#include "single_flight.hpp"

namespace idem {

struct client::core {
  core(boost::asio::any_io_executor executor, client_options options, std::shared_ptr<transport> t,
       std::shared_ptr<scheduler> s);

  boost::asio::any_io_executor ex;
  // Every operation's state is touched only here.
  boost::asio::strand<boost::asio::any_io_executor> strand;
  client_options opts;
  std::shared_ptr<transport> net;
  std::shared_ptr<scheduler> sched;
  std::shared_ptr<intent_store> store;
  retry_budget budget;
  std::mt19937_64 rng;
  std::string credentials_fingerprint;  // SHA-256 of the credentials, never the token itself
  std::string base_url;                 // without a trailing '/'
  detail::single_flight flights;
  bool shutting_down = false;  // the client was destroyed: new flights stop at once (strand)

  struct atomic_counters {
    std::atomic<std::uint64_t> attempts{0}, retries{0}, lookups{0}, succeeded{0}, rejected{0},
        not_sent{0}, unresolved{0}, recovered_by_lookup{0};
  } counters;
};

}  // namespace idem
