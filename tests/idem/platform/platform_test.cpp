// The platform layer's POSIX side (src/platform), as the SDK relies on it: the locked file's
// lock belongs to the open file (a second one of the same path is refused, and can read the
// holder's text), a symbolic link is refused, file facts and first bytes, the meaning of a
// storage error, a TCP socket made and closed. The Windows side is compiled by CI's phase
// `windows` (scripts/windows.sh) but not run anywhere (docs/PLATFORMS.md).

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/temp_directory.hpp"
#include "platform/file_facts.hpp"
#include "platform/locked_file.hpp"
#include "platform/process.hpp"
#include "platform/storage_error.hpp"
#include "platform/tcp_socket.hpp"
#include "platform/utf8_path.hpp"

namespace idem::detail {
namespace {

class platform_layer_test : public ::testing::Test {
 protected:
  std::string file(const std::string& name) const { return (folder.path() / name).string(); }
  common::temp_directory folder{"idem-platform-"};
};

TEST_F(platform_layer_test, ASecondLockOfTheSamePathIsRefusedAndReadsTheHoldersText) {
  locked_file first;
  ASSERT_FALSE(first.open(file("x.lock")));
  ASSERT_FALSE(first.try_lock());
  first.replace_text(process_id_text() + "\n");

  locked_file second;
  ASSERT_FALSE(second.open(file("x.lock")));
  EXPECT_EQ(second.try_lock(), std::errc::operation_would_block);
  EXPECT_EQ(second.read_text(31), process_id_text() + "\n");

  first.close();  // the lock goes with the open file
  EXPECT_FALSE(second.try_lock());
}

TEST_F(platform_layer_test, ReplacedTextLeavesNothingOfTheLongerOldText) {
  locked_file f;
  ASSERT_FALSE(f.open(file("y.lock")));
  f.replace_text("123456789\n");
  f.replace_text("42\n");
  EXPECT_EQ(f.read_text(31), "42\n");
}

TEST_F(platform_layer_test, ALockFileThatIsASymbolicLinkIsRefused) {
  std::ofstream(file("victim")) << "keep";
  std::filesystem::create_symlink(file("victim"), file("z.lock"));
  locked_file f;
  EXPECT_EQ(f.open(file("z.lock")), std::errc::too_many_symbolic_link_levels);
  EXPECT_FALSE(f.is_open());
}

TEST_F(platform_layer_test, FileFactsTellMissingFolderAndSize) {
  std::error_code ec;
  EXPECT_EQ(facts_of_file(file("none"), ec).size, 0u);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);

  EXPECT_FALSE(facts_of_file(folder.path().string(), ec).regular);
  EXPECT_FALSE(ec);

  std::ofstream(file("five")) << "abcde";
  const file_facts five = facts_of_file(file("five"), ec);
  EXPECT_FALSE(ec);
  EXPECT_TRUE(five.regular);
  EXPECT_EQ(five.size, 5u);
}

TEST_F(platform_layer_test, ReadFileStartReadsAtMostTheBufferAndNoMoreThanTheFile) {
  std::ofstream(file("five")) << "abcde";
  char buf[3];
  std::error_code ec;
  EXPECT_EQ(read_file_start(file("five"), buf, ec), 3u);
  EXPECT_EQ(std::string(buf, 3), "abc");
  char big[16];
  EXPECT_EQ(read_file_start(file("five"), big, ec), 5u);
  EXPECT_FALSE(ec);
  EXPECT_EQ(read_file_start(file("none"), big, ec), 0u);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
}

TEST(PlatformStorageError, FullAndDeniedAreToldApartFromOtherErrors) {
  EXPECT_EQ(storage_failure_of(ENOSPC), storage_failure::full);
  EXPECT_EQ(storage_failure_of(EDQUOT), storage_failure::full);
  EXPECT_EQ(storage_failure_of(EACCES), storage_failure::denied);
  EXPECT_EQ(storage_failure_of(EROFS), storage_failure::denied);
  EXPECT_EQ(storage_failure_of(EIO), storage_failure::none_known);
  EXPECT_EQ(storage_failure_of(0), storage_failure::none_known);
}

TEST(PlatformUtf8Path, ANameOutsideAsciiGoesThroughAPathUnchanged) {
  const std::string name =
      "/tmp/journ\xC3\xA9"
      "e-\xE2\x82\xAC.db";  // "journée-€"
  EXPECT_EQ(utf8_of(path_from_utf8(name)), name);
  EXPECT_TRUE(path_from_utf8(name).filename().u8string() == u8"journ\u00e9e-\u20ac.db");
}

TEST(PlatformTcpSocket, OnlyIpFamiliesMakeASocketThatCloses) {
  EXPECT_FALSE(is_ip_family(AF_UNIX));
  ASSERT_TRUE(is_ip_family(AF_INET6));
  EXPECT_TRUE(is_ipv6_family(AF_INET6));
  const native_socket s = open_tcp_socket(AF_INET);
  ASSERT_NE(s, invalid_socket);
  EXPECT_EQ(close_socket(s), 0);
}

}  // namespace
}  // namespace idem::detail
