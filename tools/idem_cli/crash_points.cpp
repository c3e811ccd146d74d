#include "idem_cli/crash_points.hpp"

#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <cstdlib>

namespace idem::cli {
namespace {

struct crash_at {
  std::string point;
  std::uint32_t n = 1;
};

std::optional<crash_at> from_env() {
  const char* value = std::getenv("IDEM_CLI_CRASH_AT");
  if (!value || !*value) return std::nullopt;
  std::string text = value;
  crash_at c;
  if (auto colon = text.find(':'); colon != std::string::npos) {
    c.n = static_cast<std::uint32_t>(std::strtoul(text.c_str() + colon + 1, nullptr, 10));
    text.resize(colon);
  }
  c.point = text;
  return c;
}

[[noreturn]] void die() {
  std::raise(SIGKILL);
  std::abort();  // not reached
}

class crash_observer final : public observer {
 public:
  crash_observer(crash_at at, boost::asio::any_io_executor ex) : at_(std::move(at)), ex_(ex) {}
  void on_attempt_started(const trace::attempt_started&) override {
    ++started_;
    if (started_ != at_.n) return;
    if (at_.point == "before-send") die();
    if (at_.point == "in-flight") {
      auto timer = std::make_shared<boost::asio::steady_timer>(ex_, std::chrono::milliseconds(200));
      timer->async_wait([timer](boost::system::error_code) { die(); });
    }
  }
  void on_attempt_finished(const trace::attempt_finished&) override {
    if (at_.point == "after-response" && ++finished_ == at_.n) die();
  }
  // The journal commits the lines of waits, lookups and outcomes with the next attempt's start
  // (or within a second): these points kill the process with them written, not committed.
  void on_wait(const trace::wait&) override {
    if (at_.point == "waiting" && ++waits_ == at_.n) die();
  }
  void on_lookup_finished(const trace::lookup_finished&) override {
    if (at_.point == "after-lookup" && ++lookups_ == at_.n) die();
  }
  void on_intent_finished(const trace::intent_finished&) override {
    if (at_.point == "after-outcome" && ++outcomes_ == at_.n) die();
  }

 private:
  crash_at at_;
  boost::asio::any_io_executor ex_;
  std::uint32_t started_ = 0;
  std::uint32_t finished_ = 0;
  std::uint32_t waits_ = 0;
  std::uint32_t lookups_ = 0;
  std::uint32_t outcomes_ = 0;
};

}  // namespace

std::shared_ptr<observer> crash_observer_from_env(boost::asio::any_io_executor ex) {
  auto at = from_env();
  if (!at || at->n == 0) return nullptr;
  return std::make_shared<crash_observer>(std::move(*at), std::move(ex));
}

void crash_if_asked(const std::string& point) {
  if (auto at = from_env(); at && at->point == point) die();
}

}  // namespace idem::cli
