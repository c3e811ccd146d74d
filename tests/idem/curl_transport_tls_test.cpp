// idem::curl_transport over HTTPS: certificate verification is always on. A CA and a server
// certificate are made at test time (OpenSSL 3), served by a small Asio TLS peer on 127.0.0.1.

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using asio::ip::tcp;
using namespace std::chrono_literals;

template <class Done>
bool run_until(asio::io_context& io, Done done, std::chrono::steady_clock::duration limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    io.run_one_for(20ms);
    if (io.stopped()) io.restart();
  }
  return true;
}

// --- test PKI ---------------------------------------------------------------------------------

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL: ") + what);
}

key_ptr make_key() {
  key_ptr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), &EVP_PKEY_free);
  check(key != nullptr, "EVP_PKEY_Q_keygen");
  return key;
}

void add_extension(X509* cert, X509V3_CTX& ctx, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "X509V3_EXT_conf_nid");
  check(X509_add_ext(cert, ext, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(ext);
}

// A certificate for `key` named `common_name`, signed by `issuer` (self-signed when null).
cert_ptr make_cert(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
                   const char* subject_alt_name) {
  static long serial = 1;
  cert_ptr cert(X509_new(), &X509_free);
  check(cert != nullptr, "X509_new");
  X509* x = cert.get();
  check(X509_set_version(x, X509_VERSION_3) == 1, "X509_set_version");
  check(ASN1_INTEGER_set(X509_get_serialNumber(x), serial++) == 1, "serial");
  check(X509_gmtime_adj(X509_getm_notBefore(x), -3600) != nullptr, "notBefore");
  check(X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600) != nullptr, "notAfter");
  check(X509_set_pubkey(x, key) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(x);
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                                   0) == 1,
        "CN");
  check(X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name) == 1,
        "issuer");
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
  if (issuer == nullptr) {
    add_extension(x, ctx, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(x, ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(x, ctx, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(x, ctx, NID_key_usage, "critical,digitalSignature");
    add_extension(x, ctx, NID_ext_key_usage, "serverAuth");
    add_extension(x, ctx, NID_subject_alt_name, subject_alt_name);
  }
  add_extension(x, ctx, NID_subject_key_identifier, "hash");
  check(X509_sign(x, issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0, "X509_sign");
  return cert;
}

template <class Write>
std::string to_pem(Write write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  check(bio != nullptr && write(bio.get()) == 1, "PEM_write");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// A CA and a server certificate signed by it, the CA written to a temporary directory both as a
// PEM bundle (for tls.ca_file) and as a hashed directory entry (for tls.ca_path).
struct test_pki {
  explicit test_pki(const char* server_alt_name) {
    std::string pattern = (std::filesystem::temp_directory_path() / "idem-tls-XXXXXX").string();
    check(::mkdtemp(pattern.data()) != nullptr, "mkdtemp");
    dir = pattern;
    auto ca_key = make_key();
    auto ca = make_cert(ca_key.get(), "idem test CA", nullptr, nullptr, nullptr);
    auto server_key = make_key();
    auto server =
        make_cert(server_key.get(), "idem test server", ca.get(), ca_key.get(), server_alt_name);
    const std::string ca_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, ca.get()); });
    cert_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, server.get()); });
    key_pem = to_pem([&](BIO* b) {
      return PEM_write_bio_PrivateKey(b, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    ca_file = (dir / "ca.pem").string();
    std::ofstream(ca_file) << ca_pem;
    // OpenSSL looks CAs up in a directory by subject hash: <hash>.0
    std::filesystem::create_directory(dir / "certs");
    char hashed[32];
    std::snprintf(hashed, sizeof hashed, "%08lx.0", X509_subject_name_hash(ca.get()));
    ca_path = (dir / "certs").string();
    std::ofstream(dir / "certs" / hashed) << ca_pem;
  }
  ~test_pki() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  test_pki(const test_pki&) = delete;
  test_pki& operator=(const test_pki&) = delete;

  std::filesystem::path dir;
  std::string ca_file;
  std::string ca_path;
  std::string cert_pem;
  std::string key_pem;
};

// --- a TLS peer ---------------------------------------------------------------------------------

struct tls_peer_state {
  int handshakes = 0;
  int requests = 0;
  std::vector<std::weak_ptr<ssl::stream<tcp::socket>>> streams;
};

// Answers every request on a connection with 200 "hello" and keeps it alive.
class tls_peer {
 public:
  tls_peer(asio::io_context& io, const test_pki& pki)
      : context_(std::make_shared<ssl::context>(ssl::context::tls_server)),
        acceptor_(std::make_shared<tcp::acceptor>(
            io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0})),
        state_(std::make_shared<tls_peer_state>()) {
    context_->use_certificate_chain(asio::buffer(pki.cert_pem));
    context_->use_private_key(asio::buffer(pki.key_pem), ssl::context::pem);
    asio::co_spawn(io, accept_loop(acceptor_, context_, state_), asio::detached);
  }
  ~tls_peer() {
    boost::system::error_code ec;
    acceptor_->close(ec);
    for (auto& weak : state_->streams) {
      if (auto s = weak.lock()) s->lowest_layer().close(ec);
    }
  }
  tls_peer(const tls_peer&) = delete;
  tls_peer& operator=(const tls_peer&) = delete;

  [[nodiscard]] std::string url() const {
    return "https://127.0.0.1:" + std::to_string(acceptor_->local_endpoint().port()) + "/";
  }
  [[nodiscard]] const tls_peer_state& state() const { return *state_; }

 private:
  static asio::awaitable<void> accept_loop(std::shared_ptr<tcp::acceptor> acceptor,
                                           std::shared_ptr<ssl::context> context,
                                           std::shared_ptr<tls_peer_state> state) {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket(co_await asio::this_coro::executor);
      co_await acceptor->async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      auto stream = std::make_shared<ssl::stream<tcp::socket>>(std::move(socket), *context);
      state->streams.push_back(stream);
      asio::co_spawn(co_await asio::this_coro::executor, serve(stream, context, state),
                     asio::detached);
    }
  }

  static asio::awaitable<void> serve(std::shared_ptr<ssl::stream<tcp::socket>> stream,
                                     std::shared_ptr<ssl::context>,
                                     std::shared_ptr<tls_peer_state> state) {
    try {
      co_await stream->async_handshake(ssl::stream_base::server, asio::use_awaitable);
      ++state->handshakes;
      std::string buffer;
      for (;;) {
        const auto end = co_await asio::async_read_until(*stream, asio::dynamic_buffer(buffer),
                                                         "\r\n\r\n", asio::use_awaitable);
        buffer.erase(0, end);
        ++state->requests;
        co_await asio::async_write(
            *stream,
            asio::buffer(std::string_view("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
            asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      // a refused handshake, or the client closed the connection
    }
  }

  std::shared_ptr<ssl::context> context_;
  std::shared_ptr<tcp::acceptor> acceptor_;
  std::shared_ptr<tls_peer_state> state_;
};

class curl_transport_tls_test : public ::testing::Test {
 protected:
  transport_result send(transport& t, std::string url) {
    http_request req;
    req.method = "GET";
    req.url = std::move(url);
    std::optional<transport_result> out;
    t.async_send(std::move(req), [&](transport_result r) { out = std::move(r); });
    EXPECT_TRUE(run_until(io_, [&] { return out.has_value(); })) << "no completion";
    return out.value_or(transport_result{});
  }

  static curl_transport_options trusting(std::string ca_file, std::string ca_path = {}) {
    curl_transport_options o;
    o.tls.ca_file = std::move(ca_file);
    o.tls.ca_path = std::move(ca_path);
    return o;
  }

  asio::io_context io_;
};

TEST_F(curl_transport_tls_test, AcceptedWhenTheCaFileTrustsTheServer) {
  test_pki pki("IP:127.0.0.1,DNS:localhost");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto r = send(t, peer.url());
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.failure, transport_failure::none);
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "hello");
}

TEST_F(curl_transport_tls_test, AcceptedWhenTheCaPathTrustsTheServer) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting({}, pki.ca_path));
  auto r = send(t, peer.url());
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "hello");
}

TEST_F(curl_transport_tls_test, SecondRequestReusesTheTlsConnection) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto first = send(t, peer.url());
  auto second = send(t, peer.url());
  ASSERT_FALSE(first.ec) << first.ec.message();
  ASSERT_FALSE(second.ec) << second.ec.message();
  EXPECT_FALSE(first.reused_connection);
  EXPECT_TRUE(second.reused_connection);
  EXPECT_EQ(peer.state().handshakes, 1);
}

TEST_F(curl_transport_tls_test, UnknownCaIsRefusedAsNotSent) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor());  // the system's CAs do not know the test CA
  auto r = send(t, peer.url());
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::tls_failed) << r.ec.message();
  EXPECT_EQ(peer.state().requests, 0);
}

TEST_F(curl_transport_tls_test, WrongHostNameIsRefusedAsNotSent) {
  test_pki pki("DNS:api.example.org");  // valid chain, but not for 127.0.0.1
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto r = send(t, peer.url());
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::tls_failed) << r.ec.message();
  EXPECT_EQ(peer.state().requests, 0);
}

TEST_F(curl_transport_tls_test, PlainHttpServerBehindHttpsUrlIsNotSent) {
  // A TLS client hello sent to a peer that answers garbage: the handshake fails before any
  // request could be written.
  tcp::acceptor acceptor(io_, {asio::ip::make_address("127.0.0.1"), 0});
  auto serve = [&]() -> asio::awaitable<void> {
    auto socket = co_await acceptor.async_accept(asio::use_awaitable);
    co_await asio::async_write(socket,
                               asio::buffer(std::string_view("HTTP/1.1 400 Bad Request\r\n\r\n")),
                               asio::use_awaitable);
    socket.close();
  };
  asio::co_spawn(io_, serve(), asio::detached);
  curl_transport t(io_.get_executor());
  auto r = send(t, "https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/");
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::tls_failed) << r.ec.message();
}

}  // namespace
}  // namespace idem
