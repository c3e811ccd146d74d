// idem-cli's options common to submit, load and resume (contract section 9): how each is parsed
// and refused (usage errors), what reaches the client's options, the lookup they choose, and the
// words idem-cli uses for outcomes that did not succeed (failure_words, failure_tally, the
// notice after Ctrl-C).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "idem/journal_error.hpp"
#include "idem/orders.hpp"
#include "idem/server_profile.hpp"
#include "idem/transport_error.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/command_line/flag_checks.hpp"
#include "idem_cli/failure_words.hpp"
#include "idem_cli/load/failure_tally.hpp"
#include "idem_cli/lookup_choice.hpp"
#include "idem_cli/unresolved_notice.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using cli_test::usage_message;

using namespace std::chrono_literals;
using strings = std::vector<std::string>;

const strings submit_base = {
    "submit", "--url", "http://127.0.0.1:8080", "--token", "t", "--path", "/v1/orders",
    "--data", "{}",    "--business-id",         "x"};

strings submit_with(const strings& extra) {
  strings all = submit_base;
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

common_args submit_common(const strings& extra) {
  auto cmd = parse_command_line(submit_with(extra));
  if (auto* error = std::get_if<usage_error>(&cmd)) {
    ADD_FAILURE() << "usage error: " << error->message;
    return {};
  }
  return std::get<submit_args>(cmd).common;
}

// --- parsing ------------------------------------------------------------------------------------

TEST(CliCommonOptions, EveryCommandTakesThemUnderTheSameNames) {
  const strings common = {"--profile", "generic", "--lookup",          "none",
                          "--header",  "X-A: 1",  "--attempt-timeout", "2s"};
  auto with = [&](strings args) {
    args.insert(args.end(), common.begin(), common.end());
    return parse_command_line(args);
  };
  const auto submit = std::get<submit_args>(with(submit_base)).common;
  const auto load =
      std::get<load_args>(with({"load", "--url", "http://h", "--token", "t", "--orders", "1"}))
          .common;
  const auto resume =
      std::get<resume_args>(with({"resume", "--url", "http://h", "--token", "t", "--journal", "j"}))
          .common;
  for (const common_args& c : {submit, load, resume}) {
    EXPECT_EQ(c.profile, "generic");
    EXPECT_TRUE(c.lookup.none);
    EXPECT_EQ(c.headers, (header_list{{"X-A", "1"}}));
    EXPECT_EQ(c.attempt_timeout, 2s);
  }
}

TEST(CliCommonOptions, ProfileDefaultsToIetfAndTakesTheThreeNames) {
  EXPECT_EQ(submit_common({}).profile, "ietf");
  for (const char* name : {"ietf", "stripe", "generic"}) {
    EXPECT_EQ(submit_common({"--profile", name}).profile, name);
  }
  EXPECT_EQ(usage_message(submit_with({"--profile", "paypal"})),
            "bad --profile 'paypal' (ietf, stripe or generic)");
}

TEST(CliCommonOptions, HeadersAreRepeatableTrimmedAndKeptInOrder) {
  const auto c = submit_common(
      {"--header", "X-Api-Version: 2", "--header=Accept-Language:  de ", "--header", "X-Empty:"});
  EXPECT_EQ(c.headers,
            (header_list{{"X-Api-Version", "2"}, {"Accept-Language", "de"}, {"X-Empty", ""}}));
}

TEST(CliCommonOptions, MalformedOrForbiddenHeadersAreUsageErrors) {
  EXPECT_EQ(usage_message(submit_with({"--header", "X-No-Colon"})),
            "bad --header: expected 'Name: value'");
  EXPECT_EQ(usage_message(submit_with({"--header", ": v"})),
            "bad --header ': ...': the name is empty");
  EXPECT_EQ(usage_message(submit_with({"--header", "X Y: v"})),
            "bad --header 'X Y: ...': the name may hold letters, digits and !#$%&'*+-.^_`|~");
  EXPECT_EQ(usage_message(submit_with({"--header", "X-A: 1\r\nX-Injected: 2"})),
            "bad --header 'X-A: ...': CR, LF and NUL are not allowed in a header");
  EXPECT_EQ(usage_message(submit_with({"--header", "X-A: a\nb"})),
            "bad --header 'X-A: ...': CR, LF and NUL are not allowed in a header");
  EXPECT_EQ(usage_message(submit_with({"--header", std::string("X-A: a\x01")})),
            "bad --header 'X-A: ...': control characters in the value");
  for (const std::string own : {"Authorization: Bearer other", "authorization: x",
                                "Idempotency-Key: k-1", "IDEMPOTENCY-KEY: k"}) {
    const std::string message = usage_message(submit_with({"--header", own}));
    const std::string name = own.substr(0, own.find(':'));
    EXPECT_TRUE(message.starts_with("bad --header '" + name + ": ...': idem-cli sets ")) << message;
  }
}

TEST(CliCommonOptions, AttemptTimeoutIsAPositiveDuration) {
  EXPECT_EQ(submit_common({"--attempt-timeout", "750ms"}).attempt_timeout, 750ms);
  EXPECT_EQ(usage_message(submit_with({"--attempt-timeout", "0s"})),
            "--attempt-timeout must be positive");
  EXPECT_EQ(usage_message(submit_with({"--attempt-timeout", "soon"})),
            "bad --attempt-timeout 'soon' (e.g. 30s, 500ms, 1m30s)");
}

TEST(CliCommonOptions, CacertMustBeAReadableFile) {
  kit::temp_dir dir;
  const std::string pem = dir.file("ca.pem");
  std::ofstream(pem) << "-----BEGIN CERTIFICATE-----\n";
  EXPECT_EQ(submit_common({"--cacert", pem}).cacert, pem);
  const std::string missing = dir.file("missing.pem");
  EXPECT_EQ(usage_message(submit_with({"--cacert", missing})),
            "bad --cacert '" + missing + "': No such file or directory");
  EXPECT_EQ(usage_message(submit_with({"--cacert", dir.path().string()})),
            "bad --cacert '" + dir.path().string() + "': a directory, not a file");
}

TEST(CliCommonOptions, UrlMustBeHttpOrHttpsAsLibcurlParsesIt) {
  EXPECT_EQ(submit_common({}).url, "http://127.0.0.1:8080");
  for (const char* good : {"https://api.example", "http://[::1]:8080", "https://h/base/path/"}) {
    EXPECT_EQ(check_base_url("--url", good), "") << good;
  }
  auto url_message = [](const std::string& url) {
    return usage_message({"load", "--url", url, "--token", "t", "--orders", "1"});
  };
  EXPECT_EQ(url_message("ftp://files.example"),
            "bad --url 'ftp://files.example': only http:// and https:// are supported");
  EXPECT_EQ(url_message("file:///etc/passwd"),
            "bad --url 'file:///etc/passwd': only http:// and https:// are supported");
  for (const char* malformed :
       {"u", "127.0.0.1:8080", "http://", "http://h:99999", "http://exa mple.com"}) {
    const std::string message = url_message(malformed);
    EXPECT_TRUE(message.starts_with("bad --url '" + std::string(malformed) + "': ")) << message;
    EXPECT_NE(message.find("(e.g. http://127.0.0.1:8080"), std::string::npos) << message;
  }
  EXPECT_EQ(url_message("http://h/?x=1"),
            "bad --url 'http://h/?x=1': no query or fragment, please (paths are appended to it)");
}

TEST(CliCommonOptions, LookupNoneAndTheLookupFlags) {
  EXPECT_TRUE(submit_common({"--lookup", "none"}).lookup.none);
  const auto custom =
      submit_common({"--lookup-url", "/v1/orders?ref={business_id}", "--lookup-select", "/data",
                     "--lookup-identify", "/ref", "--lookup-match", "/amount_minor",
                     "--lookup-match", "/currency", "--lookup-conflict"})
          .lookup;
  EXPECT_FALSE(custom.none);
  EXPECT_TRUE(custom.overrides());
  EXPECT_EQ(custom.custom, (business_lookup{.url = "/v1/orders?ref={business_id}",
                                            .select = "/data",
                                            .identify = "/ref",
                                            .match = {{"/amount_minor"}, {"/currency"}},
                                            .conflict_on_other = true}));
  const auto absolute = submit_common({"--lookup-url", "https://search.example/o/{business_id}"});
  EXPECT_EQ(absolute.lookup.custom.url, "https://search.example/o/{business_id}");
  EXPECT_TRUE(absolute.lookup.custom.match.empty());
  EXPECT_FALSE(absolute.lookup.custom.conflict_on_other);
}

TEST(CliCommonOptions, ContradictoryOrIncompleteLookupFlagsAreUsageErrors) {
  EXPECT_EQ(usage_message(submit_with({"--lookup", "preset"})),
            "bad --lookup 'preset' (only 'none'; or give --lookup-url)");
  EXPECT_EQ(usage_message(submit_with({"--lookup", "none", "--lookup-url", "/x"})),
            "--lookup none and --lookup-url contradict");
  EXPECT_EQ(usage_message(submit_with({"--lookup-select", "/data"})),
            "--lookup-select needs --lookup-url");
  EXPECT_EQ(usage_message(submit_with({"--lookup-conflict"})),
            "--lookup-conflict needs --lookup-url");
  EXPECT_EQ(usage_message(submit_with({"--lookup-url", "/x", "--lookup-select", "data"})),
            "bad --lookup-select 'data': not a JSON pointer (e.g. /data or /items/0/sku)");
  EXPECT_EQ(usage_message(submit_with({"--lookup-url", "/x", "--lookup-match", "/a~2"})),
            "bad --lookup-match '/a~2': not a JSON pointer (e.g. /data or /items/0/sku)");
  EXPECT_EQ(usage_message(submit_with({"--lookup-url", "/x", "--lookup-conflict=yes"})),
            "--lookup-conflict takes no value");
  EXPECT_TRUE(usage_message(submit_with({"--lookup-url", "ftp://h/{business_id}"}))
                  .starts_with("bad --lookup-url 'ftp://h': only http:// and https://"));
  EXPECT_TRUE(usage_message(submit_with({"--lookup-url", "orders/{business_id}"}))
                  .starts_with("bad --lookup-url 'orders/{business_id}': "));
}

TEST(CliCommonOptions, OnlyHeaderAndLookupMatchMayBeRepeated) {
  EXPECT_EQ(usage_message(submit_with({"--profile", "ietf", "--profile", "stripe"})),
            "--profile given twice");
  EXPECT_EQ(usage_message(submit_with({"--cacert", "a", "--cacert", "b"})), "--cacert given twice");
}

TEST(CliCommonOptions, LoadTakesAPath) {
  auto load = [](strings extra) {
    strings args = {"load", "--url", "http://h", "--token", "t", "--orders", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  EXPECT_EQ(std::get<load_args>(parse_command_line(load({}))).path, "/v1/orders");
  EXPECT_EQ(std::get<load_args>(parse_command_line(load({"--path", "/api/orders"}))).path,
            "/api/orders");
  EXPECT_EQ(usage_message(load({"--path", "api/orders"})), "--path must start with '/'");
  EXPECT_EQ(usage_message(
                {"resume", "--url", "http://h", "--token", "t", "--journal", "j", "--path", "/x"}),
            "unknown flag --path");
}

TEST(CliCommonOptions, EveryCommandsHelpNamesEveryCommonOption) {
  for (const char* command : {"submit", "load", "resume", "conform"}) {
    const std::string usage = cli_test::run({command, "--help"}).out;
    for (const char* flag :
         {"--profile ietf|stripe|generic", "--lookup none", "--lookup-url", "--lookup-select",
          "--lookup-identify", "--lookup-match", "--lookup-conflict", "--header 'Name: value'",
          "--cacert FILE", "--attempt-timeout"}) {
      EXPECT_NE(usage.find(flag), std::string::npos) << command << ": " << flag;
    }
  }
  EXPECT_NE(cli_test::run({"load", "--help"}).out.find("[--path /v1/orders]"), std::string::npos);
}

// --- what reaches the client -------------------------------------------------------------------

TEST(CliClientSettings, CommonOptionsBecomeTheClientsOptions) {
  const auto o =
      client_settings(submit_common({"--profile", "stripe", "--header", "X-Api-Version: 2",
                                     "--attempt-timeout", "1500ms", "--deadline", "20s"}));
  EXPECT_EQ(o.base_url, "http://127.0.0.1:8080");
  EXPECT_EQ(o.profile.kind(), server_profile::family::stripe);
  EXPECT_EQ(o.headers, (header_list{{"X-Api-Version", "2"}}));
  EXPECT_EQ(o.deadline.total, 20s);
  EXPECT_EQ(o.deadline.attempt_timeout, 1500ms);
  EXPECT_EQ(o.credentials.value, "Bearer t");
}

TEST(CliClientSettings, KeyHeaderNamesTheHeaderTheClientSendsTheKeyIn) {
  EXPECT_EQ(client_settings(submit_common({})).key_header, "Idempotency-Key");
  EXPECT_EQ(client_settings(submit_common({"--key-header", "X-Request-Key"})).key_header,
            "X-Request-Key");
  EXPECT_EQ(usage_message(submit_with({"--key-header", "X Y"})),
            "bad --key-header 'X Y': the name may hold letters, digits and !#$%&'*+-.^_`|~");
  EXPECT_EQ(usage_message(submit_with({"--key-header", "authorization"})),
            "bad --key-header 'authorization': --token sets Authorization");
  // The key header named is the CLI's own, like Idempotency-Key by default.
  const auto message =
      usage_message(submit_with({"--key-header", "X-Request-Key", "--header", "x-request-key: k"}));
  EXPECT_TRUE(message.starts_with("bad --header 'x-request-key: ...': idem-cli sets ")) << message;
}

TEST(CliClientSettings, AttemptTimeoutNeverExceedsTheDeadline) {
  const auto o = client_settings(submit_common({"--attempt-timeout", "1m", "--deadline", "5s"}));
  EXPECT_EQ(o.deadline.attempt_timeout, 5s);
  EXPECT_EQ(client_settings(submit_common({})).profile.kind(), server_profile::family::ietf);
}

// --- the lookup chosen -------------------------------------------------------------------------

TEST(CliLookupChoice, PresetNoneOrCustomKeepTheBusinessId) {
  const business_lookup preset = orders::order_created_lookup("m-1");
  EXPECT_EQ(choose_lookup({}, preset), preset);
  const business_lookup none = choose_lookup({.none = true}, preset);
  EXPECT_FALSE(none.enabled());
  EXPECT_EQ(none.business_id, "m-1");
  const business_lookup custom = choose_lookup(
      {.custom = business_lookup{.url = "/search?ref={business_id}", .select = "/hits"}}, preset);
  EXPECT_EQ(custom.url, "/search?ref={business_id}");
  EXPECT_EQ(custom.select, "/hits");
  EXPECT_EQ(custom.business_id, "m-1");
}

TEST(CliLookupChoice, WithLookupKeepsTheIntentButItsLookup) {
  const intent order =
      orders::create({.merchant_order_id = "m-1",
                      .customer_id = "c",
                      .currency = "EUR",
                      .amount_minor = 100,
                      .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 100}}});
  const intent same = with_lookup({}, order);
  EXPECT_EQ(same.lookup(), order.lookup());
  const intent none = with_lookup({.none = true}, order);
  EXPECT_TRUE(none.same_request(order));  // key, operation and body bytes
  EXPECT_EQ(none.body(), order.body());
  EXPECT_FALSE(none.lookup().enabled());
  EXPECT_EQ(none.lookup().business_id, "m-1");
}

// --- words --------------------------------------------------------------------------------------

TEST(CliFailureWords, AnAnswerIsItsStatusInWordsAndTheStartOfItsBody) {
  const outcome conflict(outcome_fields{.kind = outcome_kind::rejected,
                                        .status = 409,
                                        .body = "{\"type\":\"conflict\",\n\"detail\":\"taken\"}"});
  EXPECT_EQ(failure_words(conflict, "http://h/v1/orders"),
            "HTTP 409 Conflict: {\"type\":\"conflict\", \"detail\":\"taken\"}");
  EXPECT_EQ(failure_words(conflict, "http://h", /*with_body=*/false), "HTTP 409 Conflict");
  // The words themselves are the library's (outcome::explain, tests/idem/intent).
  const outcome both(outcome_fields{.kind = outcome_kind::unresolved,
                                    .status = 503,
                                    .last_transport_error = transport_errc::timed_out});
  EXPECT_EQ(failure_words(both), "HTTP 503 Service Unavailable; last transport error: " +
                                     make_error_code(transport_errc::timed_out).message());
}

TEST(CliFailureWords, WithoutAnAnswerTheTransportErrorAndWhere) {
  const outcome refused(outcome_fields{.kind = outcome_kind::not_sent,
                                       .last_transport_error = transport_errc::connection_refused});
  EXPECT_EQ(failure_words(refused, "http://127.0.0.1:1/v1/orders"),
            "connection refused (http://127.0.0.1:1/v1/orders)");
  const outcome tls(outcome_fields{.kind = outcome_kind::not_sent,
                                   .last_transport_error = transport_errc::certificate_rejected});
  const std::string words = failure_words(tls);
  EXPECT_NE(words.find("certificate is not trusted"), std::string::npos) << words;
  EXPECT_NE(words.find("--cacert"), std::string::npos) << words;
  const outcome handshake(outcome_fields{.kind = outcome_kind::not_sent,
                                         .last_transport_error = transport_errc::tls_failed});
  EXPECT_NE(failure_words(handshake).find("handshake"), std::string::npos);
  const outcome cancelled(
      outcome_fields{.kind = outcome_kind::unresolved,
                     .last_transport_error = std::make_error_code(std::errc::operation_canceled)});
  EXPECT_EQ(failure_words(cancelled), "cancelled");
  EXPECT_EQ(failure_words(outcome{}), "no answer");
}

TEST(CliFailureWords, AClientBugKeepsItsNameAndASuccessHasNoWords) {
  const outcome bug(outcome_fields{
      .kind = outcome_kind::rejected, .status = 422, .error = "idempotency-key-mismatch"});
  EXPECT_EQ(failure_words(bug), "idempotency-key-mismatch");
  EXPECT_EQ(failure_words(outcome(outcome_fields{.kind = outcome_kind::succeeded, .status = 201})),
            "");
}

TEST(CliFailureTally, CountsPerOutcomeAndReasonMostFrequentFirstAndCapped) {
  failure_tally t;
  EXPECT_TRUE(t.empty());
  t.add(outcome_kind::unresolved, "timed out", 2);
  t.add(outcome_kind::not_sent, "connection refused (http://h)", 5);
  t.add(outcome_kind::unresolved, "timed out");
  t.add(outcome_kind::rejected, "HTTP 409 Conflict");
  t.add(outcome_kind::rejected, "HTTP 400 Bad Request", 0);  // nothing to count
  EXPECT_EQ(t.count(outcome_kind::unresolved, "timed out"), 3u);
  std::ostringstream all;
  t.print(all);
  EXPECT_EQ(all.str(),
            "idem-cli: 5 not_sent: connection refused (http://h)\n"
            "idem-cli: 3 unresolved: timed out\n"
            "idem-cli: 1 rejected: HTTP 409 Conflict\n");
  std::ostringstream capped;
  t.print(capped, 1);
  EXPECT_EQ(capped.str(),
            "idem-cli: 5 not_sent: connection refused (http://h)\n"
            "idem-cli: 4 more for 2 other reasons\n");
}

TEST(CliUnresolvedNotice, KeysOnePerLineAndTheResumeCommandWithAJournal) {
  std::ostringstream with_journal;
  print_unresolved_notice(with_journal, {"k-1", "k-2"}, "http://h", "shop.journal");
  EXPECT_EQ(with_journal.str(),
            "idem-cli: interrupted; 2 intents are unresolved (may have happened), by key:\n"
            "k-1\n"
            "k-2\n"
            "idem-cli: finish them with their own keys: idem-cli resume --url http://h --token "
            "TOKEN --journal shop.journal\n");
  std::ostringstream without;
  print_unresolved_notice(without, {"k-1"}, "http://h", "");
  EXPECT_NE(without.str().find("\nk-1\n"), std::string::npos) << without.str();
  EXPECT_NE(without.str().find("without --journal"), std::string::npos) << without.str();
  std::ostringstream none;
  print_unresolved_notice(none, {}, "http://h", "");
  EXPECT_EQ(none.str(), "idem-cli: interrupted; no intent was left unresolved\n");
}

TEST(CliUnresolvedNotice, AJournalThatCouldNotBeFlushedIsSaidBeforeTheResumeCommand) {
  std::ostringstream err;
  print_unresolved_notice(err, {"k-1"}, "http://h", "shop.journal",
                          make_error_code(journal_errc::full));
  EXPECT_EQ(err.str(),
            "idem-cli: interrupted; 1 intent is unresolved (may have happened), by key:\n"
            "k-1\n"
            "idem-cli: the journal could not be flushed (" +
                make_error_code(journal_errc::full).message() +
                "): it holds what it held at its last commit; an intent whose end it lost is "
                "still open in it, under its key\n"
                "idem-cli: finish them with their own keys: idem-cli resume --url http://h "
                "--token TOKEN --journal shop.journal\n");
}

}  // namespace
}  // namespace idem::cli
