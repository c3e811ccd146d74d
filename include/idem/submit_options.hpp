#pragma once
/// @file
/// Per-submission settings that override the client's (client::async_submit, async_resume).

#include <optional>

#include "idem/deadline.hpp"
#include "idem/http_headers.hpp"

namespace idem {

/// Per-submission settings that override the client's.
struct submit_options {
  std::optional<deadline_policy> deadline{};  ///< this intent's budget instead of the client's
  header_list headers{};                      ///< sent on this intent's writes and lookups
};

}  // namespace idem
