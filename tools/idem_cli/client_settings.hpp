#pragma once
// The client options idem-cli runs with: the contract's defaults, with the deadline from the
// command line.

#include <chrono>
#include <string>

#include "idem/client.hpp"

namespace idem::cli {

/// Options for `url` and `token` with an overall deadline of `deadline` per intent. The lookup
/// reserve and the attempt timeout keep their defaults (3 s, 10 s) but never exceed a tenth of
/// the deadline and the deadline itself, so a short deadline still leaves room for attempts.
[[nodiscard]] client_options client_settings(const std::string& url, const std::string& token,
                                             std::chrono::milliseconds deadline);

}  // namespace idem::cli
