#include "mock_server/admin/admin_token.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

namespace idem::mock {

namespace {

using digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

digest sha256(std::string_view data) {
  digest out{};
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
  return out;
}

}  // namespace

bool is_admin_token(std::string_view presented, std::string_view admin_token) {
  // Digests have one length whatever the tokens' lengths, so the comparison leaks neither.
  const auto a = sha256(presented);
  const auto b = sha256(admin_token);
  return !admin_token.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<std::string> read_admin_token_file(const std::string& path, std::string& token) {
  const std::string name = "--admin-token-file: '" + path + "'";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "--admin-token-file: cannot read '" + path + "': " + std::strerror(errno);
  // One byte more than allowed tells a file that is too large from one that just fits.
  std::string text(max_admin_token_file_size + 1, '\0');
  std::size_t size = 0;
  int err = 0;
  while (size < text.size()) {
    const auto n = ::read(fd, text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (err != 0) return "--admin-token-file: cannot read '" + path + "': " + std::strerror(err);
  if (size > max_admin_token_file_size) {
    return name + " is larger than " + std::to_string(max_admin_token_file_size) +
           " bytes; it should hold the token alone";
  }
  text.resize(size);
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  if (text.empty()) return name + " is empty";
  for (char c : text) {
    // Visible ASCII only: what a client can send in `Authorization: Bearer <token>`.
    if (c < '!' || c > '~') {
      return name + " must hold the token on one line, without spaces or control characters";
    }
  }
  token = std::move(text);
  return std::nullopt;
}

}  // namespace idem::mock
