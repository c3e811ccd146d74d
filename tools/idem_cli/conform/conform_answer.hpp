#pragma once
// How `idem-cli conform` reads one answer: the resource it names, its replay marker, its
// problem name, how each of idem's profiles classifies it, and a short description for the
// table ("201, id ord_7, Idempotent-Replayed: false").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idem/classify.hpp"
#include "idem/server_profile.hpp"
#include "idem/transport.hpp"

namespace idem::cli {

/// idem's built-in profiles, in the order they are recommended when several fit.
[[nodiscard]] const std::vector<server_profile>& builtin_profiles();

/// True when an HTTP answer arrived (whatever its status).
[[nodiscard]] bool answered(const transport_result& r) noexcept;
/// True for an answer with a 2xx status.
[[nodiscard]] bool succeeded(const transport_result& r) noexcept;

/// The resource a 2xx answer names: the string or number at `id_pointer` in its JSON body, else
/// its `Location` header; nullopt for other answers or when it names none.
[[nodiscard]] std::optional<std::string> resource_id(const transport_result& r,
                                                     const std::string& id_pointer);

/// The first replay marker header the answer carries (any name a profile reads) as
/// "Name: value", or "".
[[nodiscard]] std::string replay_marker(const transport_result& r);
/// True when some marker says "true" (whichever profile reads it).
[[nodiscard]] bool marked_replayed(const transport_result& r);

/// The problem name (problem+json `type`), or Stripe's `error.code`/`error.type`, or "".
[[nodiscard]] std::string problem_of(const transport_result& r);

/// How `profile` classifies the answer (an answered request only).
[[nodiscard]] answer_meaning meaning_under(const server_profile& profile,
                                           const transport_result& r);

/// The names of the built-in profiles under which every answer of `answers` has a class that
/// `fits` accepts.
template <class Fits>
[[nodiscard]] std::vector<std::string> profiles_where(const std::vector<transport_result>& answers,
                                                      Fits fits) {
  std::vector<std::string> names;
  for (const auto& p : builtin_profiles()) {
    bool all = true;
    for (const auto& a : answers)
      all = all && fits(meaning_under(p, a));
    if (all) names.emplace_back(p.name());
  }
  return names;
}

/// True when some built-in profile reads the answer as a business conflict (the business's own
/// unique constraint refused it: it was executed as a new request).
[[nodiscard]] bool business_conflict_somewhere(const transport_result& r);

/// The resource an answer of any status names in its JSON body at `id_pointer` (a replay given
/// with another status still carries it); nullopt when it names none. For 2xx answers,
/// resource_id (which also reads `Location`).
[[nodiscard]] std::optional<std::string> named_resource(const transport_result& r,
                                                        const std::string& id_pointer);

/// True when `r`, answering a request that repeats `first` (a success), gives `first`'s answer
/// back, whatever its status: a replay marker saying true, `first`'s JSON body, or `first`'s
/// resource id in its body. A business conflict never is (it executed).
[[nodiscard]] bool carries_first_answer(const transport_result& r, const transport_result& first,
                                        const std::string& id_pointer);

/// What an answer to a duplicate of a request (one key, one body) is, read from the answer.
enum class duplicate_kind {
  success,        ///< a 2xx (its resource id tells a replay from another execution)
  stored_answer,  ///< the first answer given back with another status (carries_first_answer)
  in_progress,    ///< says so: a problem type or error code read as in progress, Retry-After,
                  ///< or words ("in progress", "being processed")
  /// the business's unique constraint refused it, so it executed: a problem type read as a
  /// business conflict, or a 4xx whose body says "already exists", "duplicate", "unique"...
  business_conflict,
  /// a bare 409 or 425 (or a 5xx): "in progress" and an executed duplicate that the
  /// constraint refused (or that crashed on it) look alike
  ambiguous,
  other,  ///< any other answer, or none
};

/// How `r` reads as a duplicate; `first` is the first success among its siblings, if any.
[[nodiscard]] duplicate_kind classify_duplicate(const transport_result& r,
                                                const transport_result* first,
                                                const std::string& id_pointer);

/// One line for the table: the status (or the transport failure), the problem name, the
/// resource id, the replay marker and Retry-After, as far as present.
[[nodiscard]] std::string describe(const transport_result& r, const std::string& id_pointer);

/// "a, b and c" (or "a" or "").
[[nodiscard]] std::string join_words(const std::vector<std::string>& words);

}  // namespace idem::cli
