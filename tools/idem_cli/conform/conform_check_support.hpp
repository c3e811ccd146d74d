#pragma once
// What the checks of `idem-cli conform` share: request sets with a new key and business value,
// the lookup count, whether two answers name the same resource, and the common rows (no answer,
// a first request that was not accepted).

#include <optional>
#include <string>
#include <variant>

#include "idem/transport.hpp"
#include "idem_cli/conform/conform_checks.hpp"

namespace idem::cli {

/// One business object the checks send: its unique value and the body made from it.
struct probe_body {
  std::string unique;
  std::string body;
};
[[nodiscard]] probe_body new_body(conform_context& c, std::string_view label);

/// A fresh key in idem's own form (a CSPRNG UUIDv4).
[[nodiscard]] std::string new_key();

/// Sends `b` under `key` (none: no key header) as `who`.
[[nodiscard]] transport_result post(conform_context& c, const probe_body& b,
                                    const std::optional<std::string>& key,
                                    which_token who = which_token::first);

/// The answers to two requests under one key.
struct one_key_pair {
  transport_result first;
  transport_result second;
};
/// Sends `a` under a new key, then `b` under the same key as `second_as`: both answers, or the
/// row to return at once when the first was not accepted (unless_accepted) or the second
/// (`second_name`) got no answer.
[[nodiscard]] std::variant<check_result, one_key_pair> send_under_one_key(
    conform_context& c, const check_result& row, const probe_body& a, const probe_body& b,
    std::string_view second_name, which_token second_as = which_token::first);

/// "POST /v1/orders".
[[nodiscard]] std::string target_text(const conform_context& c);

/// How many records the backend's lookup finds for `b`; nullopt without a lookup or without a
/// usable answer.
[[nodiscard]] std::optional<std::size_t> lookup_count(conform_context& c, const probe_body& b);
/// "; lookup: 1 record" (or ": no lookup", or what went wrong), for the table.
[[nodiscard]] std::string lookup_text(const std::optional<std::size_t>& n,
                                      const conform_context& c);

/// Whether two 2xx answers are about the same resource: by resource id when both name one,
/// else by equal JSON bodies; unknown when neither tells.
enum class sameness { same, different, unknown };
[[nodiscard]] sameness same_resource(const transport_result& a, const transport_result& b,
                                     const std::string& id_pointer);

/// The row of a check whose request got no HTTP answer: `error`, `no_answer` set.
[[nodiscard]] check_result no_answer(check_result row, const transport_result& r,
                                     std::string_view which);
/// The row to return at once when `r`, a request that had to succeed (`which` names it), did
/// not: `error`, with `no_answer` when it got no HTTP answer at all; nullopt when it succeeded.
[[nodiscard]] std::optional<check_result> unless_accepted(const check_result& row,
                                                          const transport_result& r,
                                                          std::string_view which,
                                                          const conform_context& c);

}  // namespace idem::cli
