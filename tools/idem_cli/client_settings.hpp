#pragma once
// The client idem-cli runs with: the contract's defaults, with what the common options say
// (deadline, attempt timeout, profile, headers, CA file).

#include <chrono>
#include <string>

#include "idem/client.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// Options for `url` and `token` with an overall deadline of `deadline` per intent. The lookup
/// reserve and the attempt timeout keep their defaults (3 s, 10 s) but never exceed a tenth of
/// the deadline and the deadline itself, so a short deadline still leaves room for attempts.
[[nodiscard]] client_options client_settings(const std::string& url, const std::string& token,
                                             std::chrono::milliseconds deadline);

/// The same from the common options: also the server profile, the extra headers,
/// `--attempt-timeout` (at most the deadline) and `--cacert` (the default transport's CA file).
[[nodiscard]] client_options client_settings(const common_args& args);

}  // namespace idem::cli
