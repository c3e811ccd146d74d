#pragma once
// Open files for a load's connections: every request in flight holds a socket, and a process
// starts with a soft limit (often 1,024) far below what `--concurrency 5000` needs.

#include <cstddef>
#include <string>

namespace idem::cli {

/// Files kept for what is not a connection: the standard streams, a journal and its WAL, curl's
/// own descriptors, the resolver.
inline constexpr std::size_t spare_files = 64;

/// Makes room for `connections` sockets plus `spare_files`: raises the soft RLIMIT_NOFILE up
/// to the hard limit when it is lower (never lowers it). Returns "" when there is room, else
/// why not, with the figures (the hard limit is for an administrator to raise: `ulimit -Hn`).
[[nodiscard]] std::string make_room_for_connections(std::size_t connections);

}  // namespace idem::cli
