#pragma once
// Why an intent did not succeed, in words a person can act on: what idem-cli prints on stderr
// for every outcome other than succeeded, and in submit's JSON as "error". The words are the
// library's (outcome::explain, outcome::explain_lookup); the CLI adds where and how to fix it
// on its command line.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "idem/business_lookup.hpp"
#include "idem/outcome.hpp"

namespace idem::cli {

/// Why `o` did not succeed: outcome::explain (its client-bug name, else the deciding answer's
/// status in words and the start of its body unless `with_body` is false, else the last
/// transport error, else the reason in words), with `url` in parentheses after a transport
/// error when given (not for a cancellation), and --cacert as the fix for an untrusted
/// certificate. When the lookup decided it, what the lookup got comes first
/// (outcome::explain_lookup, naming `lookup_url`), then "; last write: " and the words above
/// when a write got an answer or a transport error. "" for a success.
[[nodiscard]] std::string failure_words(const outcome& o, std::string_view url = {},
                                        bool with_body = true, std::string_view lookup_url = {});

/// The URL the lookup `l` asks, to name in failure_words: on `base` unless absolute; its
/// placeholders filled from `payload` (submit), or the template itself when `payload` is null
/// (load, whose intents each ask their own) or names a value the payload lacks.
[[nodiscard]] std::string lookup_url_words(std::string_view base, const business_lookup& l,
                                           const nlohmann::json& payload = {});

}  // namespace idem::cli
