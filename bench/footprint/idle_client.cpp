// The memory and the wake-ups of an idle idem client (scripts/footprint.sh runs it).
//
//   idem_footprint_idle BASE_URL [--journal PATH]
//
// Builds an idem::client (default curl_transport; the memory store, or a fresh sqlite_journal
// at PATH) on an io_context that a thread of its own runs, as an app's event loop would, sends
// one order to BASE_URL, and then does nothing: idle windows, each ended by a line on stdin
// (`end`, or end of file, ends the last one). Prints tab-separated lines on stdout:
//
//   stage    NAME  VmRSS_KiB  RssAnon_KiB  RssFile_KiB  VmHWM_KiB  heap_bytes  (one per step)
//   outcome  KIND  HTTP_STATUS
//   idle     PID  W                   (window W starts now)
//   thread   W  TID  ROLE  NAME  VOLUNTARY  INVOLUNTARY   (context switches during window W)
//   handlers W  N                     (Asio handlers the event loop ran during window W)
//   timerfd  W  start|end  FD  SECONDS|disarmed   (a kernel timer: when it fires, if armed)
//   seconds  W  S
//
// A thread that sleeps through a window adds no context switch; each wake-up adds one (the
// thread blocks again afterwards). The main thread blocks on stdin and wakes once, at the end
// of each window: it is the measurement, not the client. Exit status 0 if the order succeeded.
#include <curl/curl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"
#include "process_memory.hpp"
#include "thread_switches.hpp"
#include "timerfd_state.hpp"

namespace {

namespace asio = boost::asio;
using idem::footprint::read_memory;
using idem::footprint::read_thread_switches;
using idem::footprint::stage_line;

// Which step of the program each thread first appeared in: its role.
class thread_roles {
 public:
  void note(const std::string& role) {
    for (const auto& t : read_thread_switches())
      roles_.try_emplace(t.tid, role);
  }
  void name(long tid, const std::string& role) { roles_[tid] = role; }
  [[nodiscard]] std::string of(long tid) const {
    const auto it = roles_.find(tid);
    return it == roles_.end() ? "appeared while idle" : it->second;
  }

 private:
  std::map<long, std::string> roles_;
};

void stage(const std::string& name) {
  std::cout << stage_line(name, read_memory()) << '\n' << std::flush;
}

idem::intent order() {
  return idem::orders::create(
      {.merchant_order_id = "footprint-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
}

void print_timerfds(int window, const char* when) {
  for (const auto& t : idem::footprint::read_timerfds()) {
    std::cout << "timerfd\t" << window << '\t' << when << '\t' << t.fd << '\t';
    if (t.fires_in_seconds)
      std::cout << *t.fires_in_seconds;
    else
      std::cout << "disarmed";
    std::cout << '\n';
  }
}

// One idle window: context switches per thread and Asio handlers run, from now until a line
// arrives on stdin. False once the last window is over.
bool idle_window(int window, const thread_roles& roles,
                 const std::atomic<std::uint64_t>& handlers) {
  const auto before = read_thread_switches();
  const std::uint64_t handlers_before = handlers.load();
  print_timerfds(window, "start");
  const auto t0 = std::chrono::steady_clock::now();
  std::cout << "idle\t" << ::getpid() << '\t' << window << '\n' << std::flush;
  std::string line;
  const bool more = std::getline(std::cin, line) && line != "end";
  const auto t1 = std::chrono::steady_clock::now();
  const std::uint64_t handlers_after = handlers.load();
  const auto after = read_thread_switches();
  print_timerfds(window, "end");

  std::map<long, idem::footprint::thread_switches> start;
  for (const auto& t : before)
    start[t.tid] = t;
  for (const auto& t : after) {
    const auto it = start.find(t.tid);
    const auto base = it == start.end() ? idem::footprint::thread_switches{} : it->second;
    std::cout << "thread\t" << window << '\t' << t.tid << '\t' << roles.of(t.tid) << '\t' << t.name
              << '\t' << t.voluntary - base.voluntary << '\t' << t.involuntary - base.involuntary
              << '\n';
    if (it != start.end()) start.erase(it);
  }
  for (const auto& [tid, t] : start)
    std::cout << "thread\t" << window << '\t' << tid << "\tended during the window\t" << t.name
              << "\t-\t-\n";
  std::cout << "handlers\t" << window << '\t' << handlers_after - handlers_before << '\n';
  std::cout << "seconds\t" << window << '\t' << std::chrono::duration<double>(t1 - t0).count()
            << '\n'
            << std::flush;
  return more;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--journal")) {
    std::cerr << "usage: idem_footprint_idle BASE_URL [--journal PATH]\n";
    return 2;
  }
  const std::string base_url = argv[1];
  const std::string journal_path = argc == 4 ? argv[3] : "";
  thread_roles roles;
  roles.name(::getpid(), "main (the measurement: blocked on stdin)");

  stage("start");
  // What any libcurl app pays (curl's and OpenSSL's initialisation), apart from idem's own.
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    std::cerr << "curl_global_init failed\n";
    return 1;
  }
  stage("curl_global_init");

  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::atomic<std::uint64_t> handlers{0};
  std::atomic<long> loop_tid{0};
  std::thread loop([&] {
    pthread_setname_np(pthread_self(), "event-loop");
    loop_tid = ::gettid();
    // run_one rather than run: the same loop, with a count of the handlers it ran.
    while (io.run_one() != 0)
      handlers.fetch_add(1, std::memory_order_relaxed);
  });
  asio::post(io, asio::use_future).get();  // the loop is running
  roles.name(loop_tid, "event loop (io_context::run_one)");
  stage("io_context running");

  idem::client_options options;
  options.base_url = base_url;
  options.credentials = idem::bearer_token{"footprint"};
  if (!journal_path.empty()) {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", ".lock"})
      std::filesystem::remove(journal_path + suffix, ignored);
    std::error_code ec;
    std::string why;
    auto journal = idem::sqlite_journal::open({.path = journal_path}, ec, &why);
    if (!journal) {
      std::cerr << "cannot open the journal: " << why << '\n';
      return 1;
    }
    options.store = std::move(journal);
    roles.note("appeared at sqlite_journal::open (the journal's writer)");
    stage("sqlite_journal opened");
  }

  int status = 1;
  {
    idem::client client{io.get_executor(), options};
    stage("client constructed");

    const idem::outcome o = client.async_submit(order(), asio::use_future).get();
    roles.note("appeared during the request");
    std::cout << "outcome\t" << idem::to_string(o.kind()) << '\t' << o.status() << '\n';
    status = o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
    stage("after one request");

    // Idle: nothing in flight, the connection pooled. Whatever runs now runs for nothing.
    for (int window = 1;; ++window) {
      const bool more = idle_window(window, roles, handlers);
      if (!more) break;
    }
    stage("after the idle period");
  }
  work.reset();
  loop.join();
  return status;
}
