#pragma once
/// @file
/// Server profiles: how a backend says "in progress", "key mismatch", "key missing or invalid",
/// "business conflict", "replay" and "rate limited". The client classifies every answer through
/// its profile; see docs/PROFILES.md for the table.
///
/// The safety rule holds for every profile, an app-supplied classifier included: a 409 or 425
/// that is not recognised as a definite business conflict (or a key misuse) is "in progress or
/// unknown", never `rejected`: it is retried with the same key (waiting spends no attempt), then
/// looked up, then unresolved. A business conflict answered under a key whose earlier attempts
/// may have executed is settled by the lookup, never reported as rejected on its own.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "idem/classify.hpp"
#include "idem/http_headers.hpp"

namespace idem {

/// One HTTP answer as a profile sees it.
struct answer_view {
  int status = 0;
  const header_list& headers;
  std::string_view body;
};

/// What an answer means, per a profile.
struct answer_meaning {
  attempt_class cls = attempt_class::unknown;
  /// For `client_bug`: the misuse in words idem uses everywhere ("idempotency-key-mismatch",
  /// "idempotency-key-missing", "idempotency-key-invalid", "idempotency-key-misuse").
  std::string error{};
  /// The problem+json `type`, or the backend's own error code (e.g. Stripe's `error.code`).
  std::string problem{};
  /// For a 409 or 425 classed `rejected`: the profile recognised it as a definite final answer
  /// (e.g. an invalid state transition), exempt from the safety rule.
  bool definite = false;
};

/// An app's own reading of its backend's answers, consulted before the profile's table:
/// nullopt leaves the answer to the profile. Called on the client's strand; must not throw.
/// The safety rule above still applies to what it returns.
using answer_classifier = std::function<std::optional<answer_meaning>(const answer_view&)>;

/// A value: cheap to copy, immutable once built. Thread-safety: const members may be called
/// concurrently.
class server_profile {
 public:
  enum class family { ietf, stripe, generic };

  /// The IETF draft (draft-ietf-httpapi-idempotency-key-header) with problem+json types, as
  /// idem-mock-server speaks it. The default.
  [[nodiscard]] static server_profile ietf();
  /// Stripe's conventions: `error.code`/`error.type` in a JSON body, `Stripe-Should-Retry`.
  [[nodiscard]] static server_profile stripe();
  /// Bare status codes, for backends that say nothing more (e.g. express-idempotency).
  [[nodiscard]] static server_profile generic();
  /// "ietf", "stripe" or "generic"; nullopt for any other name.
  [[nodiscard]] static std::optional<server_profile> by_name(std::string_view name);

  /// The same profile with `c` consulted first.
  [[nodiscard]] server_profile with_classifier(answer_classifier c) const;

  [[nodiscard]] family kind() const noexcept { return family_; }
  [[nodiscard]] std::string_view name() const noexcept;

  /// What a complete HTTP answer to a write means. Pure apart from the app's classifier.
  [[nodiscard]] answer_meaning classify(const answer_view& answer) const;
  /// True when the answer says it is a replay of the first answer under its key.
  [[nodiscard]] bool replayed(const header_list& headers) const;

 private:
  explicit server_profile(family f) : family_(f) {}
  [[nodiscard]] answer_meaning classify_table(const answer_view& answer) const;
  family family_ = family::ietf;
  std::shared_ptr<const answer_classifier> custom_;
};

}  // namespace idem
