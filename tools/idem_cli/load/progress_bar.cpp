#include "idem_cli/load/progress_bar.hpp"

#include <cstdio>

namespace idem::cli {

std::string render_progress(const progress& p, int width) {
  const std::uint64_t total = p.total == 0 ? 1 : p.total;
  const auto filled = static_cast<int>(std::min<std::uint64_t>(p.done, total) * width / total);
  std::string line = "[";
  line.append(static_cast<std::size_t>(filled), '#');
  line.append(static_cast<std::size_t>(width - filled), '-');
  line += "]";
  const double seconds = static_cast<double>(p.elapsed.count()) / 1000.0;
  const double rate = seconds > 0 ? static_cast<double>(p.done) / seconds : 0.0;
  char text[160];
  std::snprintf(text, sizeof text, " %llu/%llu  ok %llu  rejected %llu  open %llu  %.1f/s",
                static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total),
                static_cast<unsigned long long>(p.succeeded),
                static_cast<unsigned long long>(p.rejected),
                static_cast<unsigned long long>(p.open), rate);
  return line + text;
}

void progress_bar::update(const progress& p) {
  if (!enabled_) return;
  if (drawn_ && p.elapsed - last_draw_ < std::chrono::milliseconds{100}) return;
  out_ << '\r' << render_progress(p) << "\x1b[K" << std::flush;
  drawn_ = true;
  last_draw_ = p.elapsed;
}

void progress_bar::finish(const progress& p) {
  if (!enabled_) return;
  out_ << '\r' << render_progress(p) << "\x1b[K\n" << std::flush;
}

}  // namespace idem::cli
