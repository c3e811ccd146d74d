// ThreadSanitizer's suppressions for the test programs of a TSan build on libc++ (CI's third
// configuration, docs/CI.md), compiled into each of them (tests/CMakeLists.txt), so that CTest
// and a run by hand see the same. Each entry is a report that is not a race of the program's.
// (The runtime reads function names through llvm-symbolizer: scripts/test.sh points
// TSAN_OPTIONS at one; without it the frames are unnamed and nothing here matches.)

// Debian's libc++.so is not compiled with -fsanitize=thread. std::promise<void> and
// std::future<void> are not templates there but classes compiled into libc++.so, destructors
// included, and the shared state they own is freed by whichever of the two drops the last
// reference, through an atomic reference count decremented inside libc++.so, which TSan cannot
// see. So when the promise goes last (set on the server's thread, say, after the test thread
// has waited on the future and let it go), TSan sees the test thread's last use of the state
// (locking its mutex in future::wait) and then its deletion by the other thread with nothing
// ordering them, and reports a race that the reference count rules out. (libstdc++'s futures
// are compiled into the program, where TSan sees the count.)
extern "C" const char* __tsan_default_suppressions() {
  return "race:std::__1::promise<void>::~promise\n"
         "race:std::__1::future<void>::~future\n";
}
