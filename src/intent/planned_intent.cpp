#include "idem/planned_intent.hpp"

#include "idem/intent_store.hpp"
#include "util/http_facts.hpp"

namespace idem {

planned_intent planned_intent::create(std::string method, std::string path_template,
                                      nlohmann::json payload, business_lookup lookup,
                                      const intent& prerequisite, key_format format) {
  return planned_intent(intent::create({std::move(method), std::move(path_template)},
                                       std::move(payload), std::move(lookup), format),
                        prerequisite.key().str());
}

std::optional<planned_intent> planned_intent::from_record(const intent_record& r) {
  if (r.path_bound || !r.depends_on) return std::nullopt;
  return planned_intent(r.what, *r.depends_on);
}

intent planned_intent::bind(std::string_view id) const {
  std::string path = draft_.op().path;
  if (auto at = path.find(placeholder); at != std::string::npos) {
    path.replace(at, placeholder.size(), detail::percent_encode(id));
  }
  business_lookup lookup = draft_.lookup();
  lookup.business_id = std::string(id);
  return *intent::restore_exact(draft_.key(), {draft_.op().method, std::move(path)}, draft_.body(),
                                std::move(lookup));
}

std::optional<std::string> created_resource_id(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto id = j.find("id");
  if (id == j.end() || !id->is_string() || id->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  return id->get<std::string>();
}

}  // namespace idem
