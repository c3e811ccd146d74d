#pragma once
// Shared by the HTTPS tests (curl_transport_tls_test, curl_transport_client_cert_test,
// curl_transport_proxy_test, cli_backend_test, tls_verification_test): a test PKI made at test time
// with OpenSSL 3 (a CA, a server certificate, a client certificate, all signed by the CA and
// written to a temporary directory) and a small Asio TLS peer on 127.0.0.1 that answers every
// request with 200 "hello".

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/temp_directory.hpp"
#include "tests/support/background_io.hpp"
#include "tests/support/http/read_http_request.hpp"

namespace idem::test::tls {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using asio::ip::tcp;

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

inline void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL: ") + what);
}

inline key_ptr make_key() {
  key_ptr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), &EVP_PKEY_free);
  check(key != nullptr, "EVP_PKEY_Q_keygen");
  return key;
}

inline void add_extension(X509* cert, X509V3_CTX& ctx, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "X509V3_EXT_conf_nid");
  check(X509_add_ext(cert, ext, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(ext);
}

/// When a certificate is valid, in seconds from now (negative: in the past).
struct validity {
  long not_before_s = -3600;
  long not_after_s = 24 * 3600;
};

/// A certificate for `key` named `common_name`, signed by `issuer` (self-signed CA when null).
/// `usage` is the extended key usage of an issued certificate ("serverAuth" or "clientAuth");
/// `subject_alt_name` (may be null) its names.
inline cert_ptr make_cert(EVP_PKEY* key, const char* common_name, X509* issuer,
                          EVP_PKEY* issuer_key, const char* subject_alt_name,
                          const char* usage = "serverAuth", validity valid = {}) {
  static long serial = 1;
  cert_ptr cert(X509_new(), &X509_free);
  check(cert != nullptr, "X509_new");
  X509* x = cert.get();
  check(X509_set_version(x, X509_VERSION_3) == 1, "X509_set_version");
  check(ASN1_INTEGER_set(X509_get_serialNumber(x), serial++) == 1, "serial");
  check(X509_gmtime_adj(X509_getm_notBefore(x), valid.not_before_s) != nullptr, "notBefore");
  check(X509_gmtime_adj(X509_getm_notAfter(x), valid.not_after_s) != nullptr, "notAfter");
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
    add_extension(x, ctx, NID_ext_key_usage, usage);
    if (subject_alt_name != nullptr) {
      add_extension(x, ctx, NID_subject_alt_name, subject_alt_name);
    }
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

/// The passphrase of `test_pki::client_key_encrypted_file`.
inline constexpr const char* client_key_password = "correct horse";

/// A CA, a server certificate and a client certificate signed by it, in a temporary directory:
/// the CA as a PEM bundle (for a CA file) and as a hashed directory entry (for a CA path); the
/// client certificate and its key as separate PEM files, as one combined file, and with the key
/// encrypted under `client_key_password`.
struct test_pki {
  explicit test_pki(const char* server_alt_name) {
    ca_key = make_key();
    ca_cert = make_cert(ca_key.get(), "idem test CA", nullptr, nullptr, nullptr);
    X509* ca = ca_cert.get();
    auto server_key = make_key();
    auto server =
        make_cert(server_key.get(), "idem test server", ca, ca_key.get(), server_alt_name);
    auto client_key = make_key();
    auto client =
        make_cert(client_key.get(), "idem test client", ca, ca_key.get(), nullptr, "clientAuth");
    ca_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, ca); });
    cert_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, server.get()); });
    key_pem = to_pem([&](BIO* b) {
      return PEM_write_bio_PrivateKey(b, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    const std::string client_pem =
        to_pem([&](BIO* b) { return PEM_write_bio_X509(b, client.get()); });
    const std::string client_key_pem = to_pem([&](BIO* b) {
      return PEM_write_bio_PrivateKey(b, client_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    const std::string encrypted_key_pem = to_pem([&](BIO* b) {
      return PEM_write_bio_PrivateKey(
          b, client_key.get(), EVP_aes_256_cbc(),
          reinterpret_cast<const unsigned char*>(client_key_password),
          static_cast<int>(std::char_traits<char>::length(client_key_password)), nullptr, nullptr);
    });

    ca_file = write("ca.pem", ca_pem);
    client_cert_file = write("client.pem", client_pem);
    client_key_file = write("client.key", client_key_pem);
    client_combined_file = write("client-with-key.pem", client_pem + client_key_pem);
    client_key_encrypted_file = write("client-encrypted.key", encrypted_key_pem);
    // OpenSSL looks CAs up in a directory by subject hash: <hash>.0
    std::filesystem::create_directory(dir / "certs");
    char hashed[32];
    std::snprintf(hashed, sizeof hashed, "%08lx.0", X509_subject_name_hash(ca));
    ca_path = (dir / "certs").string();
    std::ofstream(dir / "certs" / hashed) << ca_pem;
  }
  test_pki(const test_pki&) = delete;
  test_pki& operator=(const test_pki&) = delete;

  common::temp_directory owner{"idem-tls-"};  ///< removes `dir` with the object
  std::filesystem::path dir = owner.path();
  key_ptr ca_key{nullptr, &EVP_PKEY_free};  ///< for tests that issue certificates of their own
  cert_ptr ca_cert{nullptr, &X509_free};
  std::string ca_file;
  std::string ca_path;
  std::string ca_pem;
  std::string cert_pem;  ///< the server's certificate
  std::string key_pem;   ///< the server's key
  std::string client_cert_file;
  std::string client_key_file;
  std::string client_combined_file;  ///< certificate and key in one file
  std::string client_key_encrypted_file;

 private:
  std::string write(const char* name, const std::string& text) const {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

// --- a TLS peer ---------------------------------------------------------------------------------

/// What the peer saw. Read it only on the peer's io_context thread, or after that thread ended.
struct tls_peer_state {
  int handshakes = 0;
  int requests = 0;
  std::vector<std::string> client_subjects;  ///< CN of each client certificate presented
  std::vector<std::string> heads;            ///< each request's head, as read
  std::vector<std::weak_ptr<ssl::stream<tcp::socket>>> streams;
};

struct tls_peer_options {
  /// Ask for a client certificate signed by the test CA and refuse the handshake without one.
  bool require_client_cert = false;
};

/// Answers every request on a connection with 200 "hello" and keeps it alive. Runs on `io`.
class tls_peer {
 public:
  tls_peer(asio::io_context& io, const test_pki& pki, tls_peer_options options = {})
      : context_(std::make_shared<ssl::context>(ssl::context::tls_server)),
        acceptor_(std::make_shared<tcp::acceptor>(
            io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0})),
        state_(std::make_shared<tls_peer_state>()) {
    context_->use_certificate_chain(asio::buffer(pki.cert_pem));
    context_->use_private_key(asio::buffer(pki.key_pem), ssl::context::pem);
    if (options.require_client_cert) {
      context_->add_certificate_authority(asio::buffer(pki.ca_pem));
      context_->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
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

  [[nodiscard]] std::uint16_t port() const { return acceptor_->local_endpoint().port(); }
  [[nodiscard]] std::string url() const {
    return "https://127.0.0.1:" + std::to_string(port()) + "/";
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

  static std::string client_subject(ssl::stream<tcp::socket>& stream) {
    X509* cert = SSL_get1_peer_certificate(stream.native_handle());
    if (cert == nullptr) return {};
    char name[256] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name);
    X509_free(cert);
    return name;
  }

  static asio::awaitable<void> serve(std::shared_ptr<ssl::stream<tcp::socket>> stream,
                                     std::shared_ptr<ssl::context>,
                                     std::shared_ptr<tls_peer_state> state) {
    try {
      co_await stream->async_handshake(ssl::stream_base::server, asio::use_awaitable);
      ++state->handshakes;
      if (auto subject = client_subject(*stream); !subject.empty()) {
        state->client_subjects.push_back(subject);
      }
      std::string buffer;
      for (;;) {
        const auto request = co_await idem::kit::read_http_request(*stream, buffer);
        state->heads.push_back(request.head);  // a POST's body is read and dropped
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

/// A tls_peer served by a thread of its own, for tests whose own thread blocks (in idem-cli, in
/// a blocking call). The thread stops before the peer goes: the peer's destructor closes its
/// acceptor and sockets, which must not race the loop that is still accepting on them.
class background_tls_peer {
 public:
  explicit background_tls_peer(const test_pki& pki, tls_peer_options options = {}) {
    peer_.emplace(bg_.io(), pki, options);
  }
  ~background_tls_peer() {
    bg_.stop();
    peer_.reset();
  }
  background_tls_peer(const background_tls_peer&) = delete;
  background_tls_peer& operator=(const background_tls_peer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return peer_->port(); }
  [[nodiscard]] std::string url() const { return peer_->url(); }

 private:
  idem::kit::background_io bg_;
  std::optional<tls_peer> peer_;
};

}  // namespace idem::test::tls
