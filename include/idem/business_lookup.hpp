#pragma once
/// @file
/// How to find an intent's result by business ID when every answer to its writes was lost: a
/// declarative GET, a value (not a callback) so that a journal can store it and a resumed intent
/// gets it back. See docs/BACKENDS.md.
///
/// The answer is read as: 404 or 410, an empty list, or no record about the business ID: absent.
/// A 200 (or 203) with JSON: the records at `select` (a list, or one object); a record is about our
/// business ID when its `identify` field equals it; such a record is ours when every `match`
/// rule whose two sides both exist holds (a field missing on either side is not compared, never
/// a conflict); a record about our business ID that is not ours proves that another intent owns
/// it only with `conflict_on_other`.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "idem/lookup_verdict.hpp"

namespace idem {

/// One condition a found record must meet to be ours.
struct lookup_rule {
  std::string pointer;  ///< JSON pointer into the record, e.g. "/amount_minor"
  /// The payload's value to compare with (JSON pointer; empty: the same as `pointer`).
  std::string payload_pointer{};
  /// A fixed value to compare with instead of the payload's (e.g. status "CANCELLED").
  std::optional<nlohmann::json> equals{};
  friend bool operator==(const lookup_rule&, const lookup_rule&) = default;
};

struct business_lookup {
  /// The GET path (on the API's origin) or absolute URL. Placeholders, each replaced by its
  /// percent-encoded value: `{business_id}`, `{name}` (the payload's top-level field) and
  /// `{/json/pointer}` (any payload value). Empty: no lookup; an intent that cannot be settled
  /// stays unresolved.
  std::string url{};
  std::string business_id{};  ///< e.g. the merchant order id, or the order id
  /// JSON pointer to the record, or the list of records, in a 200 answer ("": the whole body).
  std::string select{};
  /// JSON pointer, in each record, to the business ID ("": every record is about it).
  std::string identify{};
  std::vector<lookup_rule> match{};
  /// A record about the business ID that is not ours proves another intent owns the ID (a
  /// unique merchant order id); the intent is then rejected with the lookup's real status.
  /// Without it such a record is just not ours (e.g. another payment of the same order).
  bool conflict_on_other = false;
  /// Name of an app-registered predicate (client_options::lookup_predicates) that must also
  /// say "ours" for each record; for what rules cannot say. Unknown names settle nothing.
  std::string predicate{};

  [[nodiscard]] bool enabled() const noexcept { return !url.empty(); }
  friend bool operator==(const business_lookup&, const business_lookup&) = default;
};

/// What a predicate says about one record.
enum class record_match { ours, other, unrelated };
/// An app's own test of a record against the intent's payload. Must not throw.
using lookup_predicate =
    std::function<record_match(const nlohmann::json& payload, const nlohmann::json& record)>;

/// The lookup as JSON (what a journal stores), and back; nullopt for anything malformed.
[[nodiscard]] nlohmann::json to_json(const business_lookup& l);
[[nodiscard]] std::optional<business_lookup> business_lookup_from_json(const nlohmann::json& j);

/// The URL with its placeholders filled from `l.business_id` and `payload`; nullopt when a
/// placeholder names a value the payload does not have (or `l` has no URL).
[[nodiscard]] std::optional<std::string> expand_lookup_url(const business_lookup& l,
                                                           const nlohmann::json& payload);

struct lookup_judgement {
  lookup_verdict verdict = lookup_verdict::retry;
  std::string record{};  ///< the record that decided it (found or conflicting), as JSON text
  /// Found: how many records of the answer are ours. More than one means the backend executed
  /// the intent more than once; the outcome says so (outcome::matching_records).
  std::size_t matches = 0;
};

/// Judges one complete answer (status and body) to the lookup of an intent with `payload`.
/// `predicate` is the one `l.predicate` names (nullptr when it names none or none is
/// registered). Pure.
[[nodiscard]] lookup_judgement judge_lookup(const business_lookup& l, const nlohmann::json& payload,
                                            int status, std::string_view body,
                                            const lookup_predicate* predicate = nullptr);

}  // namespace idem
