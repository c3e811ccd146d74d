// TLS verification cannot be turned off by accident: not by a certificate that is almost right,
// not by a CA file that cannot be read, not by a flag of idem-cli, not by the environment a user
// may have set for other tools. The public options have no switch for it (idem/curl_transport.hpp:
// tls_options holds trust anchors and a client certificate only; the transport always sets
// CURLOPT_SSL_VERIFYPEER 1 and CURLOPT_SSL_VERIFYHOST 2).
//
// Proved elsewhere, not repeated here: a server whose CA is not trusted and a trusted server
// under another host name are refused (curl_transport_tls_test), and --cacert is how idem-cli
// trusts a private CA (cli_backend_test).
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/idem/support/tls_test_pki.hpp"
#include "tests/support/processes/cli_process.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using test::tls::test_pki;
using test::tls::tls_peer;
using test::tls::validity;
using strings = std::vector<std::string>;

// Makes `pki`'s peers (those constructed afterwards) present a new certificate for 127.0.0.1
// issued by the test CA, valid over `valid`.
void serve_certificate(test_pki& pki, validity valid) {
  auto key = test::tls::make_key();
  auto cert = test::tls::make_cert(key.get(), "idem test server", pki.ca_cert.get(),
                                   pki.ca_key.get(), "IP:127.0.0.1", "serverAuth", valid);
  pki.cert_pem = test::tls::to_pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
  pki.key_pem = test::tls::to_pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
}

// Makes `pki`'s peers present a certificate for 127.0.0.1 issued by a certificate that the test
// CA issued but that is no CA itself (basicConstraints CA:FALSE), with that certificate as the
// chain: every signature checks out, only the issuer had no right to issue.
void serve_certificate_issued_by_a_leaf(test_pki& pki) {
  auto leaf_key = test::tls::make_key();
  auto leaf = test::tls::make_cert(leaf_key.get(), "idem test leaf", pki.ca_cert.get(),
                                   pki.ca_key.get(), "DNS:leaf.example");
  auto key = test::tls::make_key();
  auto cert = test::tls::make_cert(key.get(), "idem test server", leaf.get(), leaf_key.get(),
                                   "IP:127.0.0.1");
  pki.cert_pem = test::tls::to_pem([&](BIO* b) {
    return PEM_write_bio_X509(b, cert.get()) == 1 && PEM_write_bio_X509(b, leaf.get()) == 1 ? 1 : 0;
  });
  pki.key_pem = test::tls::to_pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
}

// What OpenSSL itself says of the chain that `pki`'s peers present, checked against the test CA
// for 127.0.0.1 as a TLS server's: X509_V_OK, or the one thing wrong with it. The tests below
// ask it first, so that a refusal is known to be for the reason the test names.
int openssl_verdict(const test_pki& pki) {
  using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;
  using store_ptr = std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)>;
  using store_ctx_ptr = std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)>;
  bio_ptr bio(BIO_new_mem_buf(pki.cert_pem.data(), static_cast<int>(pki.cert_pem.size())),
              &BIO_free);
  std::vector<test::tls::cert_ptr> certs;
  while (X509* c = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))
    certs.emplace_back(c, &X509_free);
  ERR_clear_error();  // the read past the last certificate
  if (certs.empty()) return -1;
  const auto free_stack = [](STACK_OF(X509) * s) { sk_X509_free(s); };  // a macro
  std::unique_ptr<STACK_OF(X509), decltype(free_stack)> chain(sk_X509_new_null(), free_stack);
  for (std::size_t i = 1; i < certs.size(); ++i)
    sk_X509_push(chain.get(), certs[i].get());
  store_ptr store(X509_STORE_new(), &X509_STORE_free);
  X509_STORE_add_cert(store.get(), pki.ca_cert.get());
  store_ctx_ptr ctx(X509_STORE_CTX_new(), &X509_STORE_CTX_free);
  X509_STORE_CTX_init(ctx.get(), store.get(), certs.front().get(), chain.get());
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  X509_VERIFY_PARAM_set1_ip_asc(param, "127.0.0.1");
  X509_verify_cert(ctx.get());
  return X509_STORE_CTX_get_error(ctx.get());
}

constexpr long day = 24 * 3600;

class TlsVerification : public ::testing::Test {
 protected:
  // One GET to `peer` through a transport that trusts the test CA (and so would accept a
  // certificate it issued properly).
  transport_result send_trusting_the_ca(const test_pki& pki, const tls_peer& peer) {
    curl_transport_options options;
    options.tls.ca_file = pki.ca_file;
    curl_transport t(io_.get_executor(), options);
    return test::send_and_wait(io_, t, test::get_request(peer.url()));
  }

  // Refused during the handshake, as a failure that says so, before any request left.
  static void expect_refused(const transport_result& r, const tls_peer& peer) {
    EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
    EXPECT_EQ(r.failure, transport_failure::not_sent);
    EXPECT_EQ(r.response.status, 0);
    EXPECT_EQ(peer.state().requests, 0);
  }

  asio::io_context io_;
};

// The control for the three below: the same CA and host, a certificate in its validity period.
TEST_F(TlsVerification, CertificateWithinItsValidityIsAccepted) {
  test_pki pki("IP:127.0.0.1");
  serve_certificate(pki, {.not_before_s = -day, .not_after_s = day});
  ASSERT_EQ(openssl_verdict(pki), X509_V_OK);
  tls_peer peer(io_, pki);
  auto r = send_trusting_the_ca(pki, peer);
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(TlsVerification, ExpiredCertificateIsRefused) {
  test_pki pki("IP:127.0.0.1");
  serve_certificate(pki, {.not_before_s = -2 * day, .not_after_s = -day});
  ASSERT_EQ(openssl_verdict(pki), X509_V_ERR_CERT_HAS_EXPIRED);
  tls_peer peer(io_, pki);
  expect_refused(send_trusting_the_ca(pki, peer), peer);
}

TEST_F(TlsVerification, CertificateNotYetValidIsRefused) {
  test_pki pki("IP:127.0.0.1");
  serve_certificate(pki, {.not_before_s = day, .not_after_s = 2 * day});
  ASSERT_EQ(openssl_verdict(pki), X509_V_ERR_CERT_NOT_YET_VALID);
  tls_peer peer(io_, pki);
  expect_refused(send_trusting_the_ca(pki, peer), peer);
}

TEST_F(TlsVerification, CertificateIssuedByACertificateThatIsNoCaIsRefused) {
  test_pki pki("IP:127.0.0.1");
  serve_certificate_issued_by_a_leaf(pki);
  ASSERT_EQ(openssl_verdict(pki), X509_V_ERR_INVALID_CA);
  tls_peer peer(io_, pki);
  expect_refused(send_trusting_the_ca(pki, peer), peer);
}

// A CA file or directory that cannot be used never falls back to "trust anything": the server
// (whose CA is not in the system's store) stays refused.
TEST_F(TlsVerification, UnusableTrustAnchorsDoNotTurnVerificationOff) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  const auto empty_file = (pki.dir / "empty.pem").string();
  std::ofstream{empty_file};
  std::filesystem::create_directory(pki.dir / "empty");
  const std::pair<std::string, tls_options> cases[] = {
      {"missing CA file", {.ca_file = (pki.dir / "missing.pem").string()}},
      {"empty CA file", {.ca_file = empty_file}},
      {"empty CA directory", {.ca_path = (pki.dir / "empty").string()}},
      {"missing CA directory", {.ca_path = (pki.dir / "missing").string()}}};
  for (const auto& [name, tls] : cases) {
    SCOPED_TRACE(name);
    curl_transport t(io_.get_executor(), {.tls = tls});
    auto r = test::send_and_wait(io_, t, test::get_request(peer.url()));
    EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
    EXPECT_EQ(r.response.status, 0);
    EXPECT_EQ(r.failure, transport_failure::not_sent);
  }
  EXPECT_EQ(peer.state().requests, 0);
}

// --- idem-cli, as a process ---------------------------------------------------------------------

const char* order_json =
    R"({"merchant_order_id":"tls-1","customer_id":"c1","currency":"EUR","amount_minor":1500,)"
    R"("items":[{"sku":"book","quantity":3,"unit_price_minor":500}]})";

strings submit_to(const std::string& url, strings extra = {}) {
  strings args = {"submit", "--url",      url,      "--token",  "t",
                  "--path", "/v1/orders", "--data", order_json, "--business-id",
                  "tls-1",  "--deadline", "1s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// curl's switches for it are unknown flags: a usage error before anything is sent, for every
// subcommand that talks to a server.
TEST(TlsVerificationCli, HasNoFlagToTurnVerificationOff) {
  const std::string url = "https://127.0.0.1:1";
  for (const std::string flag : {"--insecure", "-k", "--proxy-insecure"}) {
    const strings commands[] = {
        submit_to(url, {flag}),
        {"load", "--url", url, "--token", "t", "--orders", "1", "--deadline", "1s", flag},
        {"resume", "--url", url, "--token", "t", "--journal", "/nonexistent/j", "--deadline", "1s",
         flag}};
    for (const auto& args : commands) {
      SCOPED_TRACE(args.front() + " " + flag);
      auto r = kit::run_cli_to_exit(args);
      EXPECT_EQ(r.exit_code(), 2) << r.dump();
      EXPECT_NE(r.err.find(flag), std::string::npos) << r.dump();
      EXPECT_EQ(r.out, "");
    }
  }
}

// An OpenSSL configuration (OPENSSL_CONF) that lowers the security level and asks for peer
// verification in the weakest form it knows ("Request").
std::string write_openssl_conf(const test_pki& pki) {
  const auto path = (pki.dir / "openssl.cnf").string();
  std::ofstream(path) << "openssl_conf = idem_test\n"
                         "[idem_test]\n"
                         "ssl_conf = idem_test_ssl\n"
                         "[idem_test_ssl]\n"
                         "system_default = idem_test_defaults\n"
                         "[idem_test_defaults]\n"
                         "CipherString = DEFAULT:@SECLEVEL=0\n"
                         "MinProtocol = TLSv1\n"
                         "VerifyMode = Request\n";
  return path;
}

// The environment a user may have set for other tools: the variables that choose a trust store
// in OpenSSL (SSL_CERT_FILE, SSL_CERT_DIR) and in the curl tool (CURL_CA_BUNDLE), pointed at
// the test CA (choosing whom to trust is the user's right; Debian's libcurl reads none of them
// and keeps its built-in store), the switches that turn verification off in git, Node.js and
// Python, and an OpenSSL configuration that lowers the security level and asks for peer
// verification in its weakest form. None of it may turn verification off in idem-cli.
kit::cli_options hostile_environment(const test_pki& pki) {
  return {.env = {{"SSL_CERT_FILE", pki.ca_file},
                  {"SSL_CERT_DIR", pki.ca_path},
                  {"CURL_CA_BUNDLE", pki.ca_file},
                  {"GIT_SSL_NO_VERIFY", "1"},
                  {"NODE_TLS_REJECT_UNAUTHORIZED", "0"},
                  {"PYTHONHTTPSVERIFY", "0"},
                  {"OPENSSL_CONF", write_openssl_conf(pki)}}};
}

// idem-cli refused the server during the handshake: not_sent (nothing left), exit 3, and why,
// after one attempt (a retry would meet the same certificate).
void expect_cli_refused(const kit::cli_result& r) {
  EXPECT_EQ(r.exit_code(), 3) << r.dump();
  const auto outcome = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_EQ(outcome.value("outcome", ""), "not_sent") << r.dump();
  EXPECT_EQ(outcome.value("attempts", 0), 1) << r.dump();
  EXPECT_EQ(outcome.value("status", nlohmann::json()), nullptr) << r.dump();
  EXPECT_NE(r.err.find("TLS failed"), std::string::npos) << r.dump();
}

// idem-cli submit, with `extra` flags and `options` for its process, against a TLS peer that
// presents `pki`'s server certificate.
kit::cli_result submit_over_tls(const test_pki& pki, strings extra,
                                const kit::cli_options& options) {
  test::tls::background_tls_peer peer(pki);
  return kit::run_cli_to_exit(submit_to(peer.url(), std::move(extra)), options);
}

// Each run below trusts the test CA through --cacert as well, so that the certificate has one
// fault only: the one the test names. The control: in that environment a certificate without
// fault is accepted, so a refusal is the certificate's doing, not a TLS that the environment
// broke altogether.
TEST(TlsVerificationCli, EnvironmentStillLetsACertificateWithoutFaultThrough) {
  test_pki pki("IP:127.0.0.1");
  auto r = submit_over_tls(pki, {"--cacert", pki.ca_file}, hostile_environment(pki));
  EXPECT_EQ(r.exit_code(), 0) << r.dump();
}

TEST(TlsVerificationCli, EnvironmentCannotTurnHostNameVerificationOff) {
  test_pki pki("DNS:api.example.org");  // issued by the CA, but not for 127.0.0.1
  expect_cli_refused(submit_over_tls(pki, {"--cacert", pki.ca_file}, hostile_environment(pki)));
}

TEST(TlsVerificationCli, EnvironmentCannotTurnCertificateVerificationOff) {
  test_pki pki("IP:127.0.0.1");
  serve_certificate(pki, {.not_before_s = -2 * day, .not_after_s = -day});
  expect_cli_refused(submit_over_tls(pki, {"--cacert", pki.ca_file}, hostile_environment(pki)));
}

// Empty trust variables are "verify nothing" to some tools (python-requests took an empty
// CURL_CA_BUNDLE so); to idem-cli they are no trust store at all, or the default one.
TEST(TlsVerificationCli, EmptyTrustVariablesDoNotTurnVerificationOff) {
  test_pki pki("IP:127.0.0.1");  // its CA is trusted nowhere
  expect_cli_refused(submit_over_tls(
      pki, {}, {.env = {{"SSL_CERT_FILE", ""}, {"SSL_CERT_DIR", ""}, {"CURL_CA_BUNDLE", ""}}}));
}

}  // namespace
}  // namespace idem
