// idem::curl_transport with a client certificate (mutual TLS, tls_options::client_cert_file,
// client_key_file, client_key_password) against a TLS peer that requires one signed by the test
// CA (tests/idem/support/tls_test_pki.hpp).

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <string>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/idem/support/tls_test_pki.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using test::tls::test_pki;
using test::tls::tls_peer;

class curl_transport_client_cert_test : public ::testing::Test {
 protected:
  transport_result send(tls_options tls) {
    curl_transport t(io_.get_executor(), {.tls = std::move(tls)});
    return test::send_and_wait(io_, t, test::get_request(peer_.url()));
  }

  tls_options with_client(std::string cert, std::string key = {}, std::string password = {}) {
    return {.ca_file = pki_.ca_file,
            .client_cert_file = std::move(cert),
            .client_key_file = std::move(key),
            .client_key_password = std::move(password)};
  }

  asio::io_context io_;
  test_pki pki_{"IP:127.0.0.1"};
  tls_peer peer_{io_, pki_, {.require_client_cert = true}};
};

TEST_F(curl_transport_client_cert_test, CertificateAndKeyFilesAreOfferedWhenTheServerAsks) {
  auto r = send(with_client(pki_.client_cert_file, pki_.client_key_file));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
  ASSERT_EQ(peer_.state().client_subjects.size(), 1u);
  EXPECT_EQ(peer_.state().client_subjects[0], "idem test client");
}

TEST_F(curl_transport_client_cert_test, KeyInTheCertificateFileIsFound) {
  auto r = send(with_client(pki_.client_combined_file));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(curl_transport_client_cert_test, EncryptedKeyIsOpenedWithItsPassword) {
  auto r = send(with_client(pki_.client_cert_file, pki_.client_key_encrypted_file,
                            test::tls::client_key_password));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(curl_transport_client_cert_test, WrongKeyPasswordFailsBeforeAnythingIsSent) {
  auto r = send(with_client(pki_.client_cert_file, pki_.client_key_encrypted_file, "wrong"));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
  EXPECT_EQ(peer_.state().requests, 0);
}

TEST_F(curl_transport_client_cert_test, MissingCertificateFileFailsBeforeAnythingIsSent) {
  auto r = send(with_client((pki_.dir / "no-such.pem").string()));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
  EXPECT_EQ(peer_.state().requests, 0);
}

TEST_F(curl_transport_client_cert_test, WithoutACertificateTheServerRefusesTheConnection) {
  // Under TLS 1.3 the server's refusal can arrive after the client wrote its request, so the
  // class is not asserted here (unknown is the honest answer then); no request was served.
  auto r = send({.ca_file = pki_.ca_file});
  EXPECT_TRUE(r.ec) << "status " << r.response.status;
  EXPECT_EQ(r.response.status, 0);
  EXPECT_EQ(peer_.state().requests, 0);
  EXPECT_TRUE(peer_.state().client_subjects.empty());
}

}  // namespace
}  // namespace idem
