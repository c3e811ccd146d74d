// Checks 6 and 7 of `idem-cli conform`: what a key covers. Keys belong to one principal (the
// same key from another one is another request), and a key that got a 4xx stays bound to it (a
// retry gets the same answer, never a new execution).
#include "idem_cli/conform/conform_answer.hpp"
#include "idem_cli/conform/conform_check_support.hpp"
#include "idem_cli/conform/conform_checks.hpp"

namespace idem::cli {
namespace {

bool client_error(const transport_result& r) {
  return answered(r) && r.response.status >= 400 && r.response.status <= 499;
}

// The request whose 4xx check 7 examines: the body of an existing business object under a
// new key (a business conflict, stored like any definite answer), or, when the backend has no
// such constraint, a body it cannot accept (a validation error, which executed nothing).
struct refused_request {
  probe_body body;
  transport_result answer;
  bool validation_fallback = false;
};

}  // namespace

check_result check_principal_scope(conform_context& c) {
  check_result row;
  row.sent = target_text(c) + " as --token, then the same key and body as --token2";
  row.setting = "nothing to set: idem binds keys to credentials (client_options::credentials)";
  if (c.endpoint.token2.empty()) {
    row.result = verdict::skip;
    row.came_back = "not checked: needs --token2";
    row.why =
        "give a second principal's token to check that one user's key never replays "
        "another user's answer";
    return row;
  }
  const auto b = new_body(c, "scope");
  const auto sent = send_under_one_key(c, row, b, b, "second principal", which_token::second);
  if (const auto* stop = std::get_if<check_result>(&sent)) return *stop;
  const auto& [first, second] = std::get<one_key_pair>(sent);
  const std::string& id = c.endpoint.id_pointer;
  row.came_back = "first: " + describe(first, id) + "; second principal: " + describe(second, id);
  if (second.response.status == 401 || second.response.status == 403) {
    row.judge(verdict::error, "--token2 was not accepted: give a valid second principal's token");
    return row;
  }
  if (!succeeded(second) && carries_first_answer(second, first, id)) {
    row.judge(verdict::fail,
              "the second principal got the first one's stored answer (with status " +
                  std::to_string(second.response.status) +
                  "): keys are not scoped per principal. Scope keys by (principal, operation, "
                  "key)");
    return row;
  }
  if (succeeded(second)) {
    const bool leaked = same_resource(first, second, id) == sameness::same ||
                        (marked_replayed(second) && second.response.body == first.response.body);
    if (leaked) {
      row.judge(verdict::fail,
                "the second principal got the first one's stored answer: keys are not scoped "
                "per principal, so one user's order is shown to another, and the second "
                "user's order is never created (a lost order). Scope keys by (principal, "
                "operation, key)");
      return row;
    }
    row.judge(verdict::pass, "the second principal's request executed on its own");
    return row;
  }
  row.judge(verdict::warn,
            "the second principal's request was refused: keys of different principals meet "
            "(no answer leaks, but one user's key blocks another's; idem's random keys make "
            "that unlikely)");
  return row;
}

check_result check_final_4xx(conform_context& c) {
  check_result row;
  row.sent = target_text(c) +
             ": an existing business object under a new key K (a 4xx), K again, "
             "then another body under K";
  row.setting =
      "nothing to set: idem never re-sends after a definite 4xx; this protects against re-sends "
      "below it (libcurl, proxies)";
  const std::string& id = c.endpoint.id_pointer;
  // An object that exists, then the same object under another key: the business refuses it.
  refused_request refused{.body = new_body(c, "final"), .answer = {}};
  const auto created = post(c, refused.body, new_key());
  if (auto stop = unless_accepted(row, created, "first", c)) return *stop;
  std::string key = new_key();
  refused.answer = post(c, refused.body, key);
  if (succeeded(refused.answer)) {
    // No business constraint on this body: fall back to a body the backend cannot accept.
    refused = refused_request{
        .body = {.unique = c.unique.next("invalid"), .body = R"({"idem_conform_invalid":true})"},
        .answer = {},
        .validation_fallback = true};
    key = new_key();
    refused.answer = post(c, refused.body, key);
  }
  if (!answered(refused.answer)) return no_answer(std::move(row), refused.answer, "K");
  if (!client_error(refused.answer)) {
    row.came_back = "K: " + describe(refused.answer, id);
    row.judge(verdict::skip,
              "no 4xx could be provoked (neither a duplicate business object nor an invalid "
              "body was refused)");
    return row;
  }
  const auto again = post(c, refused.body, key);
  if (!answered(again)) return no_answer(std::move(row), again, "K again");
  const auto other = post(c, new_body(c, "final"), key);
  if (!answered(other)) return no_answer(std::move(row), other, "another body under K");
  row.came_back = "K: " + describe(refused.answer, id) + "; K again: " + describe(again, id) +
                  "; another body under K: " + describe(other, id);
  if (refused.validation_fallback) {
    row.sent = target_text(c) +
               ": an invalid body under a new key K (a 4xx), K again, then a "
               "valid body under K";
  }
  if (succeeded(again)) {
    row.judge(verdict::fail,
              "the retry of a refused request executed: the user was told it failed, and it "
              "happened");
  } else if (succeeded(other)) {
    row.judge(refused.validation_fallback ? verdict::warn : verdict::fail,
              "the 4xx did not hold the key (a new body under it executed), so a re-sent "
              "request runs again: ");
    row.why += refused.validation_fallback
                   ? "harmless for a validation error that executed nothing; store definite "
                     "business failures (a decline, a conflict) and replay them"
                   : "a definite failure (a decline, a conflict) can turn into a charge the user "
                     "was told did not happen. Store 4xx answers that executed and replay them";
  } else if (!client_error(again)) {
    row.judge(verdict::error,
              "the retry was not answered with a 4xx: whether the first one "
              "holds the key cannot be told");
  } else if (again.response.status != refused.answer.response.status) {
    row.judge(verdict::fail, "the retry got another answer than the first: it was executed again");
  } else {
    row.judge(verdict::pass, marked_replayed(again)
                                 ? "the same 4xx replayed, and the key stays bound to it"
                                 : "the same 4xx again, and the key stays bound to it");
  }
  return row;
}

}  // namespace idem::cli
