#pragma once
/// @file
/// HTTP header fields as idem passes them around: an ordered list of (name, value) pairs, since a
/// name may repeat and order can matter to a server.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idem {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// The first field named `name` (ASCII case-insensitive), or nullptr.
[[nodiscard]] const std::string* find_header(const header_list& headers,
                                             std::string_view name) noexcept;

}  // namespace idem
