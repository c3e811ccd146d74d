// Checks 1-3 of `idem-cli conform`: a POST without a key, the same key with the same body
// (replay), the same key with another body (mismatch).
#include "idem_cli/conform/conform_answer.hpp"
#include "idem_cli/conform/conform_check_support.hpp"
#include "idem_cli/conform/conform_checks.hpp"

namespace idem::cli {
namespace {

// How the profile reads an answer, in words: "ietf reads it as idempotency-key-mismatch".
std::string read_as(const conform_context& c, const transport_result& r) {
  const auto m = meaning_under(c.profile, r);
  std::string out = std::string(c.profile.name()) + " reads it as " +
                    (m.error.empty() ? std::string(to_string(m.cls)) : m.error);
  return out;
}

bool is_misuse(const answer_meaning& m) {
  return m.cls == attempt_class::client_bug;
}

// Check 2's row when the repeat gave the first answer back with another status (a 409 with the
// stored body, say): accepted and replayed, whatever the status.
check_result replayed_otherwise(const conform_context& c, check_result row,
                                const transport_result& first, const transport_result& again) {
  const std::string status = std::to_string(again.response.status);
  const std::string words = "accepted and replayed with status " + status + " (the first was " +
                            std::to_string(first.response.status) +
                            "), the stored answer given back";
  const auto m = meaning_under(c.profile, again);
  if (m.cls == attempt_class::succeeded) {
    row.judge(verdict::pass, words + ": " + read_as(c, again));
    return row;
  }
  row.judge(verdict::warn,
            words + "; exactly-once holds, but " + read_as(c, again) +
                ": a retry after a lost answer is not told it succeeded, and waits until idem's "
                "lookup settles it (or ends unresolved without a lookup)");
  row.setting = "a classifier that reads a " + status +
                " carrying the stored answer as success (docs/PROFILES.md), or a 2xx replay";
  return row;
}

}  // namespace

check_result check_missing_key(conform_context& c) {
  check_result row;
  row.sent = target_text(c) + ", new body, no " + c.endpoint.key_header;
  const auto b = new_body(c, "nokey");
  const auto r = post(c, b, std::nullopt);
  if (!answered(r)) return no_answer(std::move(row), r, "answer");
  row.came_back = describe(r, c.endpoint.id_pointer);
  row.setting =
      "nothing to set: idem sends a key on every write (client_options::key_header names it)";
  const int status = r.response.status;
  if (status >= 400 && status <= 499) {
    row.judge(verdict::pass,
              "refused (" + read_as(c, r) +
                  "): a client that forgets the key, or a proxy that drops it, cannot write "
                  "unprotected");
  } else if (succeeded(r)) {
    row.judge(verdict::warn,
              "executed without a key: a client or proxy that drops the header gets no "
              "protection against duplicates (idem itself always sends one)");
  } else {
    row.judge(verdict::warn, "neither refused nor executed: a key-less write should get a 400");
  }
  return row;
}

check_result check_replay(conform_context& c) {
  check_result row;
  row.sent = target_text(c) + " twice, one key, one body";
  const auto b = new_body(c, "replay");
  const auto sent = send_under_one_key(c, row, b, b, "again");
  if (const auto* stop = std::get_if<check_result>(&sent)) return *stop;
  const auto& [first, again] = std::get<one_key_pair>(sent);
  const auto records = lookup_count(c, b);
  const std::string& id = c.endpoint.id_pointer;
  row.came_back =
      "first: " + describe(first, id) + "; again: " + describe(again, id) + lookup_text(records, c);
  row.setting = "any profile";
  // The lookup's count proves what it finds; without one the answers are all there is.
  row.sure = records && *records >= 1 ? certainty::proven : certainty::observed;
  if (records && *records > 1) {
    row.judge(verdict::fail,
              "the repeat executed again (the lookup finds " + std::to_string(*records) +
                  " records): a retry after a lost answer makes a second order or charge");
    return row;
  }
  if (!succeeded(again)) {
    const auto m = meaning_under(c.profile, again);
    const auto kind = classify_duplicate(again, &first, id);
    if (kind == duplicate_kind::stored_answer) return replayed_otherwise(c, row, first, again);
    if (kind == duplicate_kind::business_conflict) {
      row.judge(verdict::fail, certainty::observed,
                "the repeat executed again and only the business's unique constraint stopped "
                "it: an operation without one (a payment) is done twice");
    } else if (is_retryable(m.cls)) {
      row.judge(verdict::warn,
                "the repeat is not replayed (" + read_as(c, again) +
                    "): a retry after a lost answer waits until idem's lookup settles it, or ends "
                    "unresolved without a lookup");
      if (kind == duplicate_kind::ambiguous) {
        row.sure = certainty::inconclusive;
        row.why += "; a bare " + std::to_string(again.response.status) +
                   " may also be a repeat that ran and was refused by a unique constraint";
      }
    } else {
      row.judge(verdict::fail,
                "the repeat of a success is answered as a failure (" + read_as(c, again) +
                    "): idem reports rejected an order that exists, and the user orders again");
    }
    return row;
  }
  switch (same_resource(first, again, id)) {
    case sameness::different:
      row.judge(verdict::fail,
                "the repeat created another resource: a retry after a lost answer makes a "
                "second order or charge");
      return row;
    case sameness::unknown:
      if (!records) {
        row.judge(verdict::warn,
                  "the answers name no resource (--id-pointer) and differ, and there is no "
                  "lookup: whether the repeat executed again cannot be told");
        return row;
      }
      break;
    case sameness::same:
      break;
  }
  row.result = verdict::pass;
  const std::string marker = replay_marker(again);
  if (c.profile.replayed(again.response.headers)) {
    row.why = "replayed, marked (" + marker + "): outcome::replayed() says so";
  } else if (marked_replayed(again)) {
    row.why = "replayed; its marker (" + marker + ") is read by the generic profile only";
    row.setting = "generic, to see replays in outcome::replayed()";
  } else {
    row.why = "replayed without a marker: harmless (outcome::replayed() stays false)";
  }
  if (again.response.status != first.response.status) {
    row.why += "; the status differs from the first answer's";
  }
  return row;
}

check_result check_mismatch(conform_context& c) {
  check_result row;
  row.sent = target_text(c) + " under one key, then another body under it";
  const auto b1 = new_body(c, "mismatch");
  const auto b2 = new_body(c, "mismatch");
  const auto sent = send_under_one_key(c, row, b1, b2, "other body");
  if (const auto* stop = std::get_if<check_result>(&sent)) return *stop;
  const auto& [first, other] = std::get<one_key_pair>(sent);
  const auto records = lookup_count(c, b2);
  row.came_back = "other body: " + describe(other, c.endpoint.id_pointer) + lookup_text(records, c);
  row.sure = records ? certainty::proven : certainty::observed;
  const bool given_back = carries_first_answer(other, first, c.endpoint.id_pointer);
  if (succeeded(other) || given_back || (records && *records > 0)) {
    row.judge(verdict::fail,
              given_back || same_resource(first, other, c.endpoint.id_pointer) == sameness::same
                  ? "the other body got the first body's answer: the body is not compared, so "
                    "a reused key makes a new order look done while it never happens (a lost "
                    "order)"
                  : "the other body executed under a used key: the key protects nothing once "
                    "the body changes");
    row.setting = "no profile helps: the backend must fingerprint the body";
    return row;
  }
  // Refused: which profiles read the refusal as the misuse it is.
  row.profiles_ok = profiles_where({other}, is_misuse);
  const auto names = join_words(*row.profiles_ok);
  const auto m = meaning_under(c.profile, other);
  if (is_misuse(m)) {
    row.judge(verdict::pass, "refused; " + read_as(c, other) + " (rejected, the error named)");
    row.setting = std::string(c.profile.name());
    return row;
  }
  row.judge(verdict::warn,
            "refused, but " + read_as(c, other) +
                (m.cls == attempt_class::rejected
                     ? ": a key reused by a bug ends as a plain rejection, its cause unnamed"
                     : ": idem retries and then looks it up instead of naming the misuse; a 422 "
                       "is better"));
  row.setting = names.empty() ? "a classifier naming it idempotency-key-mismatch"
                              : "use " + names + ": it names the misuse";
  return row;
}

}  // namespace idem::cli
