#include "store/sqlite/wal_write_batching.hpp"

#include <sqlite3.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <string>

namespace idem::detail {
namespace {

// The default VFS writes at most 128 KiB at a time (its pwrite masks the count with 0x1ffff: a
// write of exactly 128 KiB writes nothing and is reported as a full disk): 23 frames of 4 KiB
// pages, about two of the journal's commits, fit below that.
constexpr std::size_t max_gathered = 96 * 1024;

// A WAL file: the default VFS's file (`real`, placed after this object in the memory SQLite
// gives xOpen) and the writes gathered for it.
struct wal_file {
  sqlite3_file base;  // first: SQLite sees a sqlite3_file
  sqlite3_file* real;
  std::string gathered{};
  sqlite3_int64 gathered_at = 0;
  int deferred_error = SQLITE_OK;  // a failed write-out no call could report yet
};

sqlite3_vfs* default_vfs(sqlite3_vfs* ours) {
  return static_cast<sqlite3_vfs*>(ours->pAppData);
}

wal_file& of(sqlite3_file* f) {
  return *reinterpret_cast<wal_file*>(f);
}

sqlite3_file* real_of(sqlite3_file* f) {
  return of(f).real;
}

// Writes out what is gathered; the error of that write, or one kept from an earlier one.
int write_out(sqlite3_file* f) {
  wal_file& w = of(f);
  if (w.deferred_error != SQLITE_OK) {
    const int rc = w.deferred_error;
    w.deferred_error = SQLITE_OK;
    w.gathered.clear();
    return rc;
  }
  if (w.gathered.empty()) return SQLITE_OK;
  const int rc = w.real->pMethods->xWrite(w.real, w.gathered.data(),
                                          static_cast<int>(w.gathered.size()), w.gathered_at);
  w.gathered.clear();
  return rc;
}

int wal_close(sqlite3_file* f) {
  const int out = write_out(f);
  sqlite3_file* real = real_of(f);
  const int rc = real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
  of(f).~wal_file();
  return out != SQLITE_OK ? out : rc;
}

int wal_read(sqlite3_file* f, void* p, int n, sqlite3_int64 at) {
  if (const int rc = write_out(f); rc != SQLITE_OK) return rc;
  return real_of(f)->pMethods->xRead(real_of(f), p, n, at);
}

int wal_write(sqlite3_file* f, const void* p, int n, sqlite3_int64 at) {
  wal_file& w = of(f);
  const auto size = static_cast<std::size_t>(n);
  const bool continues =
      !w.gathered.empty() && at == w.gathered_at + static_cast<sqlite3_int64>(w.gathered.size());
  if (continues && w.gathered.size() + size <= max_gathered) {
    w.gathered.append(static_cast<const char*>(p), size);
    return SQLITE_OK;
  }
  if (const int rc = write_out(f); rc != SQLITE_OK) return rc;
  if (size > max_gathered) return w.real->pMethods->xWrite(w.real, p, n, at);
  try {
    w.gathered.assign(static_cast<const char*>(p), size);
  } catch (const std::bad_alloc&) {
    return w.real->pMethods->xWrite(w.real, p, n, at);
  }
  w.gathered_at = at;
  return SQLITE_OK;
}

// Every other method: what is gathered goes out first, then the default VFS's own.
template <auto Method, class... Args>
int after_write_out(sqlite3_file* f, Args... args) {
  if (const int rc = write_out(f); rc != SQLITE_OK) return rc;
  sqlite3_file* real = real_of(f);
  return (real->pMethods->*Method)(real, args...);
}

int wal_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return after_write_out<&sqlite3_io_methods::xTruncate>(f, size);
}
int wal_sync(sqlite3_file* f, int flags) {
  return after_write_out<&sqlite3_io_methods::xSync>(f, flags);
}
int wal_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return after_write_out<&sqlite3_io_methods::xFileSize>(f, size);
}
int wal_lock(sqlite3_file* f, int level) {
  return after_write_out<&sqlite3_io_methods::xLock>(f, level);
}
int wal_unlock(sqlite3_file* f, int level) {
  return after_write_out<&sqlite3_io_methods::xUnlock>(f, level);
}
int wal_check_reserved(sqlite3_file* f, int* out) {
  return after_write_out<&sqlite3_io_methods::xCheckReservedLock>(f, out);
}
int wal_file_control(sqlite3_file* f, int op, void* arg) {
  return after_write_out<&sqlite3_io_methods::xFileControl>(f, op, arg);
}
int wal_sector_size(sqlite3_file* f) {
  return real_of(f)->pMethods->xSectorSize(real_of(f));
}
int wal_device(sqlite3_file* f) {
  return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}
int wal_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return after_write_out<&sqlite3_io_methods::xShmMap>(f, page, size, extend, out);
}
int wal_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return after_write_out<&sqlite3_io_methods::xShmLock>(f, offset, n, flags);
}
void wal_shm_barrier(sqlite3_file* f) {
  // Nothing can be reported here: a failure waits for the next call that can report it.
  wal_file& w = of(f);
  if (!w.gathered.empty() && w.deferred_error == SQLITE_OK) w.deferred_error = write_out(f);
  real_of(f)->pMethods->xShmBarrier(real_of(f));
}
int wal_shm_unmap(sqlite3_file* f, int remove) {
  return after_write_out<&sqlite3_io_methods::xShmUnmap>(f, remove);
}
int wal_fetch(sqlite3_file* f, sqlite3_int64 at, int n, void** out) {
  return after_write_out<&sqlite3_io_methods::xFetch>(f, at, n, out);
}
int wal_unfetch(sqlite3_file* f, sqlite3_int64 at, void* p) {
  return after_write_out<&sqlite3_io_methods::xUnfetch>(f, at, p);
}

// The methods of a WAL file, for the version of the default VFS's (copied at open).
sqlite3_io_methods wal_methods_for(int version) {
  sqlite3_io_methods m{};
  m.iVersion = version;
  m.xClose = wal_close;
  m.xRead = wal_read;
  m.xWrite = wal_write;
  m.xTruncate = wal_truncate;
  m.xSync = wal_sync;
  m.xFileSize = wal_file_size;
  m.xLock = wal_lock;
  m.xUnlock = wal_unlock;
  m.xCheckReservedLock = wal_check_reserved;
  m.xFileControl = wal_file_control;
  m.xSectorSize = wal_sector_size;
  m.xDeviceCharacteristics = wal_device;
  if (version >= 2) {
    m.xShmMap = wal_shm_map;
    m.xShmLock = wal_shm_lock;
    m.xShmBarrier = wal_shm_barrier;
    m.xShmUnmap = wal_shm_unmap;
  }
  if (version >= 3) {
    m.xFetch = wal_fetch;
    m.xUnfetch = wal_unfetch;
  }
  return m;
}

constexpr std::size_t aligned(std::size_t n) {
  return (n + 15) / 16 * 16;
}

int open_file(sqlite3_vfs* ours, sqlite3_filename name, sqlite3_file* f, int flags,
              int* out_flags) {
  sqlite3_vfs* vfs = default_vfs(ours);
  if ((flags & SQLITE_OPEN_WAL) == 0) {
    // Not a WAL: the default VFS's file itself, in the memory SQLite gave us (at least as big).
    return vfs->xOpen(vfs, name, f, flags, out_flags);
  }
  auto* real =
      reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + aligned(sizeof(wal_file)));
  std::memset(real, 0, static_cast<std::size_t>(vfs->szOsFile));
  const int rc = vfs->xOpen(vfs, name, real, flags, out_flags);
  if (rc != SQLITE_OK || real->pMethods == nullptr) {
    // Closed by SQLite through our methods only if they are set: leave none, close it here.
    if (real->pMethods) real->pMethods->xClose(real);
    f->pMethods = nullptr;
    return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
  }
  // One table per version of the default VFS's methods (it never changes in a process).
  static const sqlite3_io_methods methods = wal_methods_for(real->pMethods->iVersion);
  new (f) wal_file{.base = {&methods}, .real = real};
  return SQLITE_OK;
}

// The rest of the VFS: the default one's, called with itself.
int del(sqlite3_vfs* v, const char* name, int sync_dir) {
  return default_vfs(v)->xDelete(default_vfs(v), name, sync_dir);
}
int access(sqlite3_vfs* v, const char* name, int flags, int* out) {
  return default_vfs(v)->xAccess(default_vfs(v), name, flags, out);
}
int full_pathname(sqlite3_vfs* v, const char* name, int n, char* out) {
  return default_vfs(v)->xFullPathname(default_vfs(v), name, n, out);
}
void* dl_open(sqlite3_vfs* v, const char* name) {
  return default_vfs(v)->xDlOpen(default_vfs(v), name);
}
void dl_error(sqlite3_vfs* v, int n, char* out) {
  default_vfs(v)->xDlError(default_vfs(v), n, out);
}
void (*dl_sym(sqlite3_vfs* v, void* h, const char* name))(void) {
  return default_vfs(v)->xDlSym(default_vfs(v), h, name);
}
void dl_close(sqlite3_vfs* v, void* h) {
  default_vfs(v)->xDlClose(default_vfs(v), h);
}
int randomness(sqlite3_vfs* v, int n, char* out) {
  return default_vfs(v)->xRandomness(default_vfs(v), n, out);
}
int sleep_for(sqlite3_vfs* v, int us) {
  return default_vfs(v)->xSleep(default_vfs(v), us);
}
int current_time(sqlite3_vfs* v, double* out) {
  return default_vfs(v)->xCurrentTime(default_vfs(v), out);
}
int last_error(sqlite3_vfs* v, int n, char* out) {
  return default_vfs(v)->xGetLastError(default_vfs(v), n, out);
}
int current_time_64(sqlite3_vfs* v, sqlite3_int64* out) {
  return default_vfs(v)->xCurrentTimeInt64(default_vfs(v), out);
}

const char* registered() noexcept {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (vfs == nullptr || vfs->iVersion < 2) return nullptr;
  static sqlite3_vfs ours{};
  ours.iVersion = 2;
  ours.szOsFile =
      static_cast<int>(aligned(sizeof(wal_file)) + static_cast<std::size_t>(vfs->szOsFile));
  ours.mxPathname = vfs->mxPathname;
  ours.zName = "idem-wal-batching";
  ours.pAppData = vfs;
  ours.xOpen = open_file;
  ours.xDelete = del;
  ours.xAccess = access;
  ours.xFullPathname = full_pathname;
  ours.xDlOpen = dl_open;
  ours.xDlError = dl_error;
  ours.xDlSym = dl_sym;
  ours.xDlClose = dl_close;
  ours.xRandomness = randomness;
  ours.xSleep = sleep_for;
  ours.xCurrentTime = current_time;
  ours.xGetLastError = last_error;
  ours.xCurrentTimeInt64 = current_time_64;
  if (sqlite3_vfs_register(&ours, 0) != SQLITE_OK) return nullptr;
  return ours.zName;
}

}  // namespace

const char* wal_write_batching_vfs() noexcept {
  static const char* const name = registered();
  return name;
}

}  // namespace idem::detail
