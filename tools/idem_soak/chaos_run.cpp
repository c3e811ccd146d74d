#include "idem_soak/chaos_run.hpp"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include "common/child_process.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem_soak/admin_client.hpp"
#include "idem_soak/mock_server_process.hpp"
#include "idem_soak/soak_random.hpp"

namespace idem::soak {
namespace {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* tenant_token = "soak-shop";
constexpr const char* admin_token = "soak-admin";
// The chaos loop looks at the processes this often, and at the journal's progress every few
// looks (a count over the whole journal): a tool's polling, not a test's wait.
constexpr milliseconds tick{20};
constexpr unsigned ticks_per_progress_read = 5;
// A client that keeps ending with open intents under faults is resumed this often at most
// before the faults stop.
constexpr unsigned max_chaos_resumes = 50;
constexpr unsigned max_calm_resumes = 5;

// Seeded points of the progress (intents final in the journal) at which to kill, ascending.
std::vector<std::uint64_t> kill_points(std::uint64_t seed, soak_stream stream, unsigned count,
                                       std::uint64_t planned) {
  soak_random rng(seed, static_cast<std::uint64_t>(stream));
  std::vector<std::uint64_t> points;
  for (unsigned n = 0; n < count; ++n) {
    const double at = 0.05 + 0.85 * rng.uniform();
    points.push_back(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(at * planned)));
  }
  std::sort(points.begin(), points.end());
  return points;
}

std::string ms_text(milliseconds d) {
  return std::to_string(d.count()) + "ms";
}

bool exited_with(const common::child_exit& end, std::initializer_list<int> codes) {
  return end.exit_code() >= 0 &&
         std::find(codes.begin(), codes.end(), end.exit_code()) != codes.end();
}

class chaos {
 public:
  chaos(const soak_options& o, const work_dir& dir, std::uint64_t orders, std::uint64_t planned,
        std::ostream& log)
      : o_(o),
        dir_(dir),
        planned_(planned),
        log_(log),
        server_({.binary = o.mock_server,
                 .db_path = dir.server_db(),
                 .admin_token = admin_token,
                 .log_path = dir.server_log()}),
        client_kill_at_(kill_points(o.seed, soak_stream::client_kills, o.client_kills, planned)),
        server_kill_at_(kill_points(o.seed, soak_stream::server_kills, o.server_kills, planned)),
        down_time_(o.seed, static_cast<std::uint64_t>(soak_stream::down_time)) {
    record_.orders = orders;
  }

  chaos_record run() {
    const auto began = clock::now();
    start_server();
    start_client(/*load=*/true);
    chaos_phase(began);
    record_.chaos_time = since(began);
    const auto calm_began = clock::now();
    calm_phase();
    record_.calm_time = since(calm_began);
    return std::move(record_);
  }

 private:
  static milliseconds since(clock::time_point t) {
    return std::chrono::duration_cast<milliseconds>(clock::now() - t);
  }

  // --- the server ---------------------------------------------------------------------------

  // The next rule set of the schedule, kept in the work directory (faults-EPOCH.json).
  std::string next_rules() {
    installed_ = fault_rules_for(o_.seed, epoch_, o_.fault_share, o_.attempt_timeout.count());
    const std::string file = dir_.file("faults-" + std::to_string(epoch_++) + ".json");
    std::ofstream(file) << installed_.dump(2) << '\n';
    return file;
  }

  void start_server() {
    server_.start(next_rules());
    admin_ = std::make_unique<admin_client>(server_.url(), admin_token);
    next_fault_change_ = clock::now() + o_.fault_period;
  }

  // What fired under the rules in place, before they go (a kill, a change, the calm), and the
  // server's count of orders charged more than once at this moment.
  void tally_faults() {
    try {
      record_.faults.add(installed_, admin_->faults());
      record_.peak_multiple_charges =
          std::max(record_.peak_multiple_charges,
                   admin_->stats().value("orders_with_multiple_charges", std::int64_t{0}));
    } catch (const std::exception& e) {
      // Counted by the server all the same (faults_injected), just not by kind.
      log_ << "idem-soak: cannot read the fault counts: " << e.what() << '\n';
    }
  }

  void change_faults() {
    tally_faults();
    next_rules();
    admin_->put_faults(installed_);
    next_fault_change_ = clock::now() + o_.fault_period;
  }

  void kill_server() {
    tally_faults();
    server_.kill();
    ++record_.server_kills;
    const milliseconds down{down_time_.between(0, 1'000)};
    log_ << "idem-soak: server SIGKILLed at " << progress_ << " final intents; back in "
         << down.count() << " ms\n";
    std::this_thread::sleep_for(down);  // the outage the client has to ride out
    start_server();
  }

  void check_server_alive() {
    std::string how;
    if (server_.running(how)) return;
    record_.server_crashes.push_back(how + " at " + std::to_string(progress_) + " final intents");
    log_ << "idem-soak: the server ended on its own (" << how << "); restarting it\n";
    start_server();
  }

  // --- the client ---------------------------------------------------------------------------

  std::vector<std::string> client_args(bool load) const {
    std::vector<std::string> args{load ? "load" : "resume",
                                  "--url",
                                  server_.url(),
                                  "--token",
                                  tenant_token,
                                  "--journal",
                                  dir_.journal(),
                                  "--concurrency",
                                  std::to_string(o_.concurrency),
                                  "--deadline",
                                  ms_text(o_.deadline),
                                  "--attempt-timeout",
                                  ms_text(o_.attempt_timeout)};
    if (load) {
      for (std::string a :
           {std::string("--orders"), std::to_string(record_.orders), std::string("--mix"),
            cli::to_string(o_.mix), std::string("--seed"), std::to_string(o_.seed)}) {
        args.push_back(std::move(a));
      }
    }
    return args;
  }

  void start_client(bool load) {
    const auto now = std::chrono::system_clock::now();
    for (const auto& f : {dir_.client_out(), dir_.client_err()}) {
      std::ofstream(f, std::ios::app) << "== idem-cli " << (load ? "load" : "resume") << " #"
                                      << record_.client_starts.size() + 1 << '\n';
    }
    record_.client_starts.push_back(std::chrono::floor<milliseconds>(now));
    client_ = std::make_unique<common::child_process>(
        common::child_spec{.program = o_.cli,
                           .args = client_args(load),
                           .stdout_to = common::child_output::append_to(dir_.client_out()),
                           .stderr_to = common::child_output::append_to(dir_.client_err()),
                           .die_with_parent = true});
  }

  // A client that ended by itself: true when nothing is left open; throws when it ended in a
  // way no run should (a usage error, a journal it could not open, a crash).
  bool client_ended(const common::child_exit& end) {
    if (exited_with(end, {0, 1})) return true;
    if (exited_with(end, {3})) return false;
    throw harness_error("idem-cli " + end.describe() + "; see " + dir_.client_err());
  }

  void read_progress() {
    if (!progress_reader_) {
      // Read-only: no lock, so it stays open while clients come and go.
      std::error_code ec;
      progress_reader_ = sqlite_journal::open({.path = dir_.journal(), .read_only = true}, ec);
      if (!progress_reader_) return;  // not created yet
    }
    const auto c = progress_reader_->counts();
    // Opened before the plan was written, it may have found no schema yet: open it again.
    if (c.intents == 0) progress_reader_.reset();
    progress_ = c.succeeded + c.rejected;
  }

  // --- the phases ---------------------------------------------------------------------------

  void chaos_phase(clock::time_point began) {
    // Generous: a run slower than this is hung, not slow.
    const auto bound = std::chrono::seconds(120) + planned_ * milliseconds(200);
    for (unsigned n = 0;; ++n) {
      std::this_thread::sleep_for(tick);
      if (since(began) > bound) throw harness_error("the run did not end within its time bound");
      check_server_alive();
      if (auto end = client_->poll()) {
        if (client_ended(*end)) return;
        if (++record_.chaos_resumes > max_chaos_resumes) return;  // the calm will finish it
        start_client(/*load=*/false);
      }
      if (n % ticks_per_progress_read == 0) read_progress();
      // One kill per look at most, so that kills due at once still come apart.
      if (!client_kill_at_.empty() && progress_ >= client_kill_at_.front()) {
        client_kill_at_.erase(client_kill_at_.begin());
        client_->kill();
        ++record_.client_kills;
        log_ << "idem-soak: client SIGKILLed at " << progress_ << " final intents; resuming\n";
        start_client(/*load=*/false);
      } else if (!server_kill_at_.empty() && progress_ >= server_kill_at_.front()) {
        server_kill_at_.erase(server_kill_at_.begin());
        kill_server();
      }
      if (clock::now() >= next_fault_change_) change_faults();
    }
  }

  void calm_phase() {
    tally_faults();
    admin_->clear_faults();
    log_ << "idem-soak: faults cleared; resuming until every intent is final\n";
    const auto bound = std::chrono::seconds(60) + planned_ * milliseconds(50);
    const auto began = clock::now();
    while (record_.calm_resumes < max_calm_resumes) {
      ++record_.calm_resumes;
      start_client(/*load=*/false);
      while (!client_->poll()) {
        std::this_thread::sleep_for(tick);
        if (since(began) > bound) throw harness_error("the calm resume did not end in time");
      }
      if (client_ended(*client_->poll())) break;
    }
    record_.stats = admin_->stats();
    record_.faults_injected = record_.stats.value("faults_injected", std::uint64_t{0});
    server_.stop();
  }

  const soak_options& o_;
  const work_dir& dir_;
  std::uint64_t planned_;
  std::ostream& log_;
  mock_server_process server_;
  std::unique_ptr<admin_client> admin_;
  std::unique_ptr<common::child_process> client_;
  std::shared_ptr<sqlite_journal> progress_reader_;
  std::vector<std::uint64_t> client_kill_at_;
  std::vector<std::uint64_t> server_kill_at_;
  soak_random down_time_;
  std::uint64_t epoch_ = 0;
  nlohmann::json installed_;
  clock::time_point next_fault_change_{};
  std::uint64_t progress_ = 0;
  chaos_record record_;
};

}  // namespace

chaos_record run_chaos(const soak_options& o, const work_dir& dir, std::uint64_t orders,
                       std::uint64_t planned, std::ostream& log) {
  return chaos(o, dir, orders, planned, log).run();
}

}  // namespace idem::soak
