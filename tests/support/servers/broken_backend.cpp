#include "tests/support/servers/broken_backend.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "mock_server/http/problem.hpp"

namespace idem::kit {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

// One key's record: PROCESSING until `answer` is set.
struct record {
  std::string fingerprint;
  std::optional<mock::response> answer{};
};

}  // namespace

struct broken_backend::state {
  broken_backend_options options;
  std::map<std::string, record> records;  // by scope: (principal, key), or key alone
  std::map<std::pair<std::string, std::string>, json> orders;  // (principal, merchant_order_id)
  std::size_t executions = 0;
};

namespace {

using state = broken_backend::state;

asio::awaitable<void> wait(std::chrono::milliseconds d) {
  asio::steady_timer timer{co_await asio::this_coro::executor, d};
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

std::optional<std::string> principal_of(const mock::request& req) {
  const auto auth = req.header("Authorization");
  constexpr std::string_view bearer = "Bearer ";
  if (!auth || !auth->starts_with(bearer) || auth->size() == bearer.size()) return std::nullopt;
  return std::string(auth->substr(bearer.size()));
}

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > 255) return false;
  for (char c : key) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

mock::response lookup(const state& s, const std::string& principal, const mock::request& req) {
  const auto id = mock::query_param(req.query(), "merchant_order_id");
  if (!id) return mock::make_problem(400, "validation-failed", "merchant_order_id is required");
  json data = json::array();
  if (auto it = s.orders.find({principal, *id}); it != s.orders.end()) data.push_back(it->second);
  return mock::make_json(200, {{"data", std::move(data)}});
}

// The business: one order per (principal, merchant_order_id).
mock::response create_order(state& s, const std::string& principal, const json& body) {
  ++s.executions;
  const std::string merchant_id = body.at("merchant_order_id").get<std::string>();
  if (auto it = s.orders.find({principal, merchant_id}); it != s.orders.end()) {
    const auto& wording = s.options.wording;
    if (wording.empty_business_conflict)
      return mock::response{.status = 409, .headers = {}, .body = {}};
    if (wording.plain_business_conflict) {
      return mock::make_json(409,
                             {{"detail", "order with this merchant_order_id already exists."}});
    }
    auto res = mock::make_problem(409, "duplicate-business-id", "merchant_order_id is taken",
                                  {{"existing_order_id", it->second.at("id")}});
    res.set_header("Location", "/v1/orders/" + it->second.at("id").get<std::string>());
    return res;
  }
  const std::string id = "ord_" + std::to_string(s.orders.size() + 1);
  json order = body;
  order["id"] = id;
  order["status"] = "CREATED";
  s.orders.emplace(std::pair{principal, merchant_id}, order);
  auto res = mock::make_json(201, order);
  res.set_header("Location", "/v1/orders/" + id);
  return res;
}

// What a request finds under a key that has a record.
mock::response existing(const state& s, const record& r, const std::string& fingerprint) {
  if (!s.options.defects.body_not_compared && r.fingerprint != fingerprint) {
    return mock::make_problem(422, "idempotency-key-mismatch",
                              "this Idempotency-Key was used with a different request body");
  }
  if (!r.answer) {
    auto res = mock::make_problem(409, "idempotency-request-in-progress",
                                  "a request with this Idempotency-Key is still being processed");
    res.set_header("Retry-After", "1");
    return res;
  }
  mock::response replay = *r.answer;
  if (s.options.wording.replay_status != 0) replay.status = s.options.wording.replay_status;
  if (s.options.wording.mark_replays) replay.set_header("Idempotent-Replayed", "true");
  return replay;
}

// The request's order, or nullopt when the body has no string merchant_order_id.
std::optional<json> order_body(const mock::request& req) {
  auto body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("merchant_order_id") ||
      !body["merchant_order_id"].is_string()) {
    return std::nullopt;
  }
  return body;
}

// Without a layer: every POST executes, the unique constraint alone refuses duplicates.
asio::awaitable<mock::reply> post_unprotected(std::shared_ptr<state> s,
                                              const std::string& principal, const json& body) {
  co_await wait(s->options.execution);
  co_return mock::reply{.res = create_order(*s, principal, body)};
}

asio::awaitable<mock::reply> post_order(std::shared_ptr<state> s, const std::string& principal,
                                        const mock::request& req) {
  const auto body = order_body(req);
  if (s->options.defects.no_idempotency_layer && body) {
    co_return co_await post_unprotected(std::move(s), principal, *body);
  }
  const std::string& key_header = s->options.wording.key_header;
  if (req.header_count(key_header) == 0) {
    co_return mock::reply{
        .res = mock::make_problem(400, "idempotency-key-missing", key_header + " is required")};
  }
  const std::string key{*req.header(key_header)};
  if (req.header_count(key_header) > 1 || !valid_key(key)) {
    co_return mock::reply{.res = mock::make_problem(400, "idempotency-key-invalid", "bad key")};
  }
  if (!body) {
    co_return mock::reply{
        .res = mock::make_problem(400, "validation-failed", "merchant_order_id is required")};
  }
  const std::string scope = s->options.defects.keys_not_scoped ? key : principal + '\n' + key;
  const std::string fingerprint = body->dump();  // keys sorted: a canonical form
  if (auto it = s->records.find(scope); it != s->records.end()) {
    co_return mock::reply{.res = existing(*s, it->second, fingerprint)};
  }
  if (s->options.defects.check_then_insert) {
    co_await wait(s->options.race_gap);  // whoever checked meanwhile found the key absent too
    s->records.insert_or_assign(scope, record{.fingerprint = fingerprint});
  } else {
    s->records.emplace(scope, record{.fingerprint = fingerprint});  // checked and claimed at once
  }
  co_await wait(s->options.execution);
  mock::response answer = create_order(*s, principal, *body);
  s->records.at(scope).answer = answer;
  if (s->options.wording.mark_replays) answer.set_header("Idempotent-Replayed", "false");
  co_return mock::reply{.res = std::move(answer)};
}

asio::awaitable<mock::reply> handle(std::shared_ptr<state> s, mock::request req) {
  if (req.path() != "/v1/orders") {
    co_return mock::reply{.res = mock::make_problem(404, "not-found", "no such route")};
  }
  const auto principal = principal_of(req);
  if (!principal) {
    auto res = mock::make_problem(401, "unauthenticated", "a Bearer token is required");
    res.set_header("WWW-Authenticate", "Bearer");
    co_return mock::reply{.res = std::move(res)};
  }
  if (req.method == "GET") co_return mock::reply{.res = lookup(*s, *principal, req)};
  if (req.method != "POST") {
    co_return mock::reply{.res = mock::make_problem(405, "method-not-allowed", "GET or POST")};
  }
  co_return co_await post_order(std::move(s), *principal, req);
}

}  // namespace

broken_backend::broken_backend(broken_backend_options options)
    : state_(std::make_shared<state>(state{.options = options, .records = {}, .orders = {}})) {
  server_.start([s = state_](mock::request req) { return handle(s, std::move(req)); },
                mock::http_server_options{});
}

broken_backend::~broken_backend() = default;

std::string broken_backend::url() const {
  return "http://127.0.0.1:" + std::to_string(server_.port());
}

std::size_t broken_backend::executions() {
  return server_.on_io([s = state_] { return s->executions; });
}

std::size_t broken_backend::orders() {
  return server_.on_io([s = state_] { return s->orders.size(); });
}

}  // namespace idem::kit
