#pragma once
/// @file
/// What the app tells the client about the device: whether the network is reachable, and when
/// the app goes to the background or comes back (client::set_network, client::on_foreground,
/// client::async_flush). idem has no way to learn these itself; the app forwards what its
/// platform reports (a reachability callback, the activity or scene lifecycle).

#include <chrono>
#include <cstddef>
#include <string_view>
#include <system_error>

namespace idem {

/// Whether the device can reach the network, as the platform reports it.
enum class network_status {
  online,
  offline,  ///< no attempt, poll or lookup starts (it could only fail as not sent)
};

[[nodiscard]] std::string_view to_string(network_status s) noexcept;

/// How the client behaves around offline periods and returns to the foreground.
struct lifecycle_policy {
  /// While offline, the deadline of every submission in flight stands still, so an order
  /// placed in a lift goes out when the lift opens, however long that takes; its caller waits
  /// that long for the outcome. Default (false): the deadline runs on; a submission whose
  /// deadline passes while offline ends `not_sent` (nothing left) or `unresolved`, and stays
  /// open in the store for a later resume.
  bool pause_deadline_while_offline = false;
  /// When the network comes back (and after on_foreground), submissions that were waiting for
  /// it start again at a uniformly random moment within this window, so that a thousand of
  /// them do not reach the server in the same millisecond. 0: all at once.
  std::chrono::milliseconds resume_spread{500};
};

/// What client::async_flush (and async_shutdown) did.
struct flush_report {
  /// Submissions that reached their outcome while the flush waited.
  std::size_t finished = 0;
  /// Submissions the flush stopped when its time ran out (or at once when offline): each
  /// completed `not_sent` or `unresolved`, and stays open in the store with its key, to be
  /// resumed (e.g. on the next start, from the journal). A shutdown's count includes the
  /// submissions made before the call that the client had not started yet (`not_sent`).
  std::size_t stopped = 0;
  /// Empty if the store made every event durable; else why not (full disk, read-only file):
  /// what the journal holds then is as of its last successful commit.
  std::error_code store_error{};
};

}  // namespace idem
