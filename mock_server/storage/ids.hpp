#pragma once
// Random identifiers for records and resources, from OpenSSL's CSPRNG.

#include <string>
#include <string_view>

namespace idem::mock {

/// `prefix` + "_" + 24 lower-case hex characters (96 random bits), e.g. "ord_3f9a...".
/// Throws std::runtime_error if the CSPRNG fails (it does not on a working system).
[[nodiscard]] std::string random_id(std::string_view prefix);

}  // namespace idem::mock
