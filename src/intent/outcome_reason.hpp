#pragma once
// Internal: how an outcome's reason (idem::errc) follows from what happened, shared by the flight
// that decides an outcome and by outcome::reason() for an outcome built without one.

#include <optional>
#include <string_view>
#include <system_error>

#include "idem/errc.hpp"
#include "idem/outcome.hpp"

namespace idem::detail {

// A transport failure's meaning for the intent (a cancellation is errc::cancelled).
[[nodiscard]] errc reason_of_transport(std::error_code ec) noexcept;
// The last answer to a write that was no verdict (a 5xx, 429, 409 in progress, 202...).
[[nodiscard]] errc reason_of_status(int status) noexcept;
// The errc whose name is `error` ("duplicate-business-id"), if any.
[[nodiscard]] std::optional<errc> reason_named(std::string_view error) noexcept;
// The reason of an outcome built without one: from its error, problem type, transport error
// and status, in that order; errc::no_answer when nothing is known.
[[nodiscard]] std::error_code reason_of_fields(const outcome_fields& f);

}  // namespace idem::detail
