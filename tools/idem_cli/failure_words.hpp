#pragma once
// Why an intent did not succeed, in words a person can act on: what idem-cli prints on stderr
// for every outcome other than succeeded, and in submit's JSON as "error". The words are the
// library's (outcome::explain); the CLI adds where and how to fix it on its command line.

#include <string>
#include <string_view>

#include "idem/outcome.hpp"

namespace idem::cli {

/// Why `o` did not succeed: outcome::explain (its client-bug name, else the deciding answer's
/// status in words and the start of its body unless `with_body` is false, else the last
/// transport error, else the reason in words), with `url` in parentheses after a transport
/// error when given (not for a cancellation), and --cacert as the fix for an untrusted
/// certificate. "" for a success.
[[nodiscard]] std::string failure_words(const outcome& o, std::string_view url = {},
                                        bool with_body = true);

}  // namespace idem::cli
