// idem-cli's lookup by business ID against a backend that is not the mock server (issue 44,
// item 3): the lookup follows --path (or says, once and before sending, that it cannot); a
// --lookup-url given alone matches a record by the business ID it was given; an unresolved
// intent says what the lookup got apart from what its last write got. The backend is a
// recording HTTP listener on loopback whose POSTs are lost and whose GETs answer as each test
// says; idem-cli runs in process.
#include <gtest/gtest.h>
#include <algorithm>

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "idem_cli/exit_status.hpp"
#include "tests/support/servers/recording_listener.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using cli_test::order_json;
using cli_test::run;
using kit::http_answer;
using kit::recording_listener;
using strings = std::vector<std::string>;

const std::string lookup_not_found = http_answer(404, R"({"title":"Not Found"})");

// The value of `name` in the query of a request head's target ("" if absent).
std::string lookup_query_value(const std::string& head, const std::string& name) {
  const auto target_end = head.find(' ', head.find(' ') + 1);
  const auto at = head.find(name + "=");
  if (at == std::string::npos || at > target_end) return {};
  const auto start = at + name.size() + 1;
  const auto end = head.find_first_of("& ", start);
  return head.substr(start, end - start);
}

// The last path segment of a request head's target.
std::string lookup_last_segment(const std::string& head) {
  const auto target_end = head.find(' ', head.find(' ') + 1);
  const auto start = head.rfind('/', target_end) + 1;
  return head.substr(start, target_end - start);
}

// A backend whose writes are all lost (held until the client gives up) and whose GETs
// starting with `lookup_prefix` find the order of the business ID that `id_of` reads from the
// head, in `{"data":[...]}` as the orders API answers; any other GET finds nothing.
kit::answer_policy orders_found_at(std::string lookup_prefix,
                                   std::string (*id_of)(const std::string&), bool wrapped) {
  return [lookup_prefix, id_of, wrapped](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return std::nullopt;
    if (!head.starts_with(lookup_prefix)) return lookup_not_found;
    const nlohmann::json records = nlohmann::json::array(
        {{{"id", "ord_other"}, {"merchant_order_id", "someone-else"}},
         {{"id", "ord_7"}, {"merchant_order_id", id_of(head)}, {"status", "CREATED"}}});
    return http_answer(200, wrapped ? nlohmann::json{{"data", records}}.dump() : records.dump());
  };
}

std::string lookup_merchant_order_id(const std::string& head) {
  return lookup_query_value(head, "merchant_order_id");
}

std::string lookup_ref(const std::string& head) {
  return lookup_query_value(head, "ref");
}

std::string lookup_heads_text(const recording_listener& server) {
  std::string out;
  for (const auto& h : server.heads())
    out += h.substr(0, h.find("\r\n")) + "\n";
  return out;
}

strings lookup_submit_args(const std::string& url, const std::string& path, strings extra = {}) {
  strings args = {"submit", "--url",      url,      "--token",           "t",
                  "--path", path,         "--data", order_json,          "--business-id",
                  "cli-1",  "--deadline", "3s",     "--attempt-timeout", "300ms"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

strings lookup_load_args(const std::string& url, strings extra = {}) {
  strings args = {"load",          "--url", "--token",    "t",  "--orders",          "2",
                  "--concurrency", "2",     "--deadline", "3s", "--attempt-timeout", "300ms"};
  args.insert(args.begin() + 2, url);
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::size_t count_of_text(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// --- the lookup follows --path ------------------------------------------------------------------

TEST(CliLookupFollowsPath, LoadToAnotherPathLooksItsOrdersUpThere) {
  recording_listener server(
      orders_found_at("GET /orders?merchant_order_id=", lookup_merchant_order_id, true));
  const auto r = run(lookup_load_args(server.url(), {"--path", "/orders"}));
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err << lookup_heads_text(server);
  EXPECT_EQ(r.json()["succeeded"], 2) << r.out;
  EXPECT_EQ(r.json()["recovered_by_lookup"], 2) << r.out;
  EXPECT_TRUE(server.heads_starting("GET /v1/").empty()) << lookup_heads_text(server);
}

TEST(CliLookupFollowsPath, SubmitToAnotherOrdersPathLooksItUpThere) {
  recording_listener server(
      orders_found_at("GET /shop/orders?merchant_order_id=cli-1 ", lookup_merchant_order_id, true));
  const auto r = run(lookup_submit_args(server.url(), "/shop/orders"));
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err << lookup_heads_text(server);
  EXPECT_EQ(r.json()["recovered_by_lookup"], true) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(CliLookupFollowsPath, APaymentElsewhereIsFoundOnItsOrderThere) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return std::nullopt;
    if (!head.starts_with("GET /shop/orders/ord_1 ")) return lookup_not_found;
    return http_answer(200, R"({"id":"ord_1","payments":[)"
                            R"({"amount_minor":1500,"currency":"EUR","status":"CAPTURED"}]})");
  });
  const auto r =
      run({"submit", "--url", server.url(), "--token", "t", "--path", "/shop/orders/ord_1/payments",
           "--data", R"({"amount_minor":1500,"currency":"EUR","payment_method":"card"})",
           "--business-id", "ord_1", "--deadline", "3s", "--attempt-timeout", "300ms"});
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err << lookup_heads_text(server);
  EXPECT_EQ(r.json()["recovered_by_lookup"], true) << r.out;
}

TEST(CliLookupFollowsPath, SubmitWhoseLookupCannotBeDerivedSaysSoOnce) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return http_answer(201, R"({"id":"inv_1"})");
    return lookup_not_found;
  });
  const auto r = run({"submit", "--url", server.url(), "--token", "t", "--path", "/v2/invoices",
                      "--data", R"({"ref":"inv-7","amount_minor":5})", "--business-id", "inv-7"});
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err;
  EXPECT_EQ(r.err,
            "idem-cli: no lookup by business ID for POST /v2/invoices (only an orders API's "
            "paths have one): if every answer to it is lost, it ends unresolved; give "
            "--lookup-url TEMPLATE to look it up, or --lookup none\n");
  // Said, not guessed: no lookup was made up for it.
  const auto with_none =
      run({"submit", "--url", server.url(), "--token", "t", "--path", "/v2/invoices", "--data",
           R"({"ref":"inv-8"})", "--business-id", "inv-8", "--lookup", "none"});
  EXPECT_EQ(with_none.err, "");
}

// --- --lookup-url alone -------------------------------------------------------------------------

TEST(CliLookupUrlAlone, SubmitMatchesTheRecordByTheBusinessIdItWasGiven) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return std::nullopt;
    if (!head.starts_with("GET /lookup/")) return lookup_not_found;
    return http_answer(200, nlohmann::json{{"id", "ord_7"},
                                           {"merchant_order_id", lookup_last_segment(head)},
                                           {"status", "CREATED"}}
                                .dump());
  });
  const auto r = run(
      lookup_submit_args(server.url(), "/v1/orders", {"--lookup-url", "/lookup/{business_id}"}));
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err << lookup_heads_text(server);
  EXPECT_EQ(r.json()["recovered_by_lookup"], true) << r.out;
}

TEST(CliLookupUrlAlone, LoadMatchesEachRecordByItsOwnBusinessId) {
  recording_listener server(orders_found_at("GET /search?ref=", lookup_ref, false));
  const auto r = run(lookup_load_args(server.url(), {"--lookup-url", "/search?ref={business_id}"}));
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err << lookup_heads_text(server);
  EXPECT_EQ(r.json()["recovered_by_lookup"], 2) << r.out;
}

TEST(CliLookupUrlAlone, WithoutAFieldHoldingTheBusinessIdItSaysWhatToGive) {
  recording_listener server([](const std::string&) -> std::optional<std::string> {
    return http_answer(201, R"({"id":"ord_1"})");
  });
  const auto r =
      run({"submit", "--url", server.url(), "--token", "t", "--path", "/v1/orders", "--data",
           order_json, "--business-id", "cart-9", "--lookup-url", "/lookup/{business_id}"});
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err;
  EXPECT_EQ(r.err,
            "idem-cli: --lookup-url alone cannot tell which record is ours: no field of --data "
            "holds the business ID 'cart-9'; give --lookup-identify PTR (the record's business "
            "ID) or --lookup-match PTR\n");
}

// --- what the lookup got ------------------------------------------------------------------------

TEST(CliUnresolvedLookupWords, SubmitSaysWhatTheLookupGotApartFromTheLastWrite) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return std::nullopt;
    return lookup_not_found;
  });
  const auto r = run(lookup_submit_args(server.url(), "/v1/orders"));
  EXPECT_EQ(r.status, exit_some_open);
  const std::string words = "the lookup found no record of it (HTTP 404 Not Found at " +
                            server.url() +
                            "/v1/orders?merchant_order_id=cli-1); last write: the attempt timed "
                            "out (" +
                            server.url() + "/v1/orders)";
  EXPECT_EQ(r.err, "idem-cli: unresolved: " + words + "\n");
  EXPECT_EQ(r.json()["error"], words) << r.out;
}

TEST(CliUnresolvedLookupWords, AConflictAndALookupThatTimesOutAreToldApart) {
  auto posts = std::make_shared<std::atomic<int>>(0);
  recording_listener server([posts](const std::string& head) -> std::optional<std::string> {
    // The first write's answer is lost; the next one is refused by a unique constraint; the
    // lookup never answers.
    if (head.starts_with("POST ") && posts->fetch_add(1) > 0) {
      return http_answer(409, R"({"type":"https://shop.example/taken","title":"Taken"})");
    }
    return std::nullopt;
  });
  // A 6 s deadline keeps 3 s for the lookup (a 3 s one only 300 ms): on a loaded machine the
  // client's lateness margin could leave no room to start the lookup at all, and then no
  // lookup words are there to be told apart.
  auto args = lookup_submit_args(server.url(), "/v1/orders");
  std::replace(args.begin(), args.end(), std::string("3s"), std::string("6s"));
  const auto r = run(args);
  EXPECT_EQ(r.status, exit_some_open);
  EXPECT_EQ(r.err,
            "idem-cli: unresolved: no lookup answered within the deadline (the attempt timed out "
            "at " +
                server.url() +
                "/v1/orders?merchant_order_id=cli-1); last write: HTTP 409 Conflict: "
                R"({"type":"https://shop.example/taken","title":"Taken"})"
                "; last transport error: the attempt timed out\n")
      << lookup_heads_text(server);
}

TEST(CliUnresolvedLookupWords, LoadCountsThemByTheLookupsUrlTemplate) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    if (head.starts_with("POST ")) return std::nullopt;
    return lookup_not_found;
  });
  const auto r = run(lookup_load_args(server.url()));
  EXPECT_EQ(r.status, exit_some_open);
  EXPECT_EQ(count_of_text(r.err,
                          "idem-cli: 2 unresolved: the lookup found no record of it (HTTP 404 Not "
                          "Found at " +
                              server.url() +
                              "/v1/orders?merchant_order_id={business_id}); last write: the "
                              "attempt timed out (" +
                              server.url() + ")\n"),
            1u)
      << r.err;
}

}  // namespace
}  // namespace idem::cli
