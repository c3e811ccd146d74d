#pragma once
// A one-line progress bar for `idem-cli load`, redrawn in place with '\r'. Drawn only when its
// stream is a terminal, so pipes and log files get the JSON summary alone.

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace idem::cli {

/// Progress so far.
struct progress {
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  std::uint64_t succeeded = 0;
  std::uint64_t open = 0;  ///< unresolved or not sent
  std::uint64_t rejected = 0;
  std::chrono::milliseconds elapsed{0};
};

/// One line, without '\r' or newline, e.g. `[#####-----]  300/600  ok 298  rejected 0  open 2
/// 120.5/s`. `width` is the number of cells in the bar.
[[nodiscard]] std::string render_progress(const progress& p, int width = 30);

/// Not thread-safe; one per run.
class progress_bar {
 public:
  /// `enabled` false makes every call a no-op (stderr is not a terminal).
  progress_bar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}
  /// Redraws at most every 100 ms of `p.elapsed` (the last update is always drawn by finish()).
  void update(const progress& p);
  /// Draws `p` and ends the line.
  void finish(const progress& p);

 private:
  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::milliseconds last_draw_{0};
};

}  // namespace idem::cli
