#pragma once
/// @file
/// An intent whose path is known only once another intent succeeded: the payment of an order
/// that does not exist yet. Its key is minted and its payload frozen when it is planned, so a
/// journal can hold the whole plan before the first request; its path is filled in (durably,
/// before its first attempt) from the prerequisite's result.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "idem/intent.hpp"

namespace idem {

struct intent_record;

/// Immutable; cheap to copy. Thread-safety: immutable; copies may be used from any thread.
class planned_intent {
 public:
  /// The placeholder in a path template that `bind` replaces.
  static constexpr std::string_view placeholder = "{id}";

  /// Plans `method path_template` with `payload` after `prerequisite`, minting the key now.
  /// `lookup` is the lookup the bound intent gets; its `business_id` is the id that fills the
  /// path.
  [[nodiscard]] static planned_intent create(std::string method, std::string path_template,
                                             nlohmann::json payload, business_lookup lookup,
                                             const intent& prerequisite,
                                             key_format format = key_format::uuid_v4);
  /// Rebuilds a plan read back from a store (a record with `path_bound == false`).
  [[nodiscard]] static std::optional<planned_intent> from_record(const intent_record& r);

  [[nodiscard]] const idempotency_key& key() const noexcept { return draft_.key(); }
  /// The intent with the path template still in it (what the store journals).
  [[nodiscard]] const intent& draft() const noexcept { return draft_; }
  /// Key of the intent whose result fills the path.
  [[nodiscard]] const std::string& depends_on() const noexcept { return depends_on_; }
  /// The intent to submit once the prerequisite succeeded: same key, same body bytes, the path
  /// with `id` (percent-encoded) in place of the placeholder, the lookup by `id`.
  [[nodiscard]] intent bind(std::string_view id) const;

 private:
  planned_intent(intent draft, std::string depends_on)
      : draft_(std::move(draft)), depends_on_(std::move(depends_on)) {}
  intent draft_;
  std::string depends_on_;
};

/// The id of the resource a succeeded intent created: `id` of its JSON body (the 201 body, or
/// the resource found by the lookup). nullopt if there is none.
[[nodiscard]] std::optional<std::string> created_resource_id(std::string_view body);

}  // namespace idem
