#pragma once
// Internal: a SQLite VFS that writes a WAL's frames with one system call per commit instead
// of two per page. Private to the idem library.
//
// SQLite writes each WAL frame as two writes, its 24-byte header and then its page: a commit
// of 11 pages is 22 pwrite calls, which cost the journal about as much CPU as its fsync
// (issue 47). This VFS wraps the system's default one. A WAL file's writes that continue one
// another are gathered in memory (up to 96 KiB) and written as one when any other call reaches
// the file: the sync, a read, a size, a truncation, a lock, a call on the shared-memory index.
// Only for synchronous FULL, where SQLite syncs the WAL at every commit before it publishes
// the commit's frames to readers: a frame is then in the file before any reader, in this
// process or another, can be told it exists, and before SQLite is told it is durable, and a
// write that fails is reported by the sync that wrote it out. (With NORMAL the last call
// before publishing is a memory barrier, which cannot report a failed write.) Every other file
// (the database, its shared-memory index) is the default VFS's own.

namespace idem::detail {

/// The name to open a journal's writer connection with (sqlite3_open_v2's zVfs) when its
/// durability is full (synchronous FULL, never changed on that connection); registered
/// on first use, once per process, never as the default. nullptr if it cannot be registered
/// (out of memory): the default VFS is then used, as before.
[[nodiscard]] const char* wal_write_batching_vfs() noexcept;

}  // namespace idem::detail
