#include "mock_server/http/route.hpp"

#include <array>
#include <vector>

namespace idem::mock {
namespace {

struct route_entry {
  std::string_view method;
  std::string_view pattern;  // segments; "{id}" is a parameter
  route_id id;
};

constexpr std::array routes{
    route_entry{"POST", "/v1/orders", route_id::create_order},
    route_entry{"GET", "/v1/orders", route_id::list_orders},
    route_entry{"GET", "/v1/orders/{id}", route_id::get_order},
    route_entry{"POST", "/v1/orders/{id}/payments", route_id::pay_order},
    route_entry{"POST", "/v1/orders/{id}/cancel", route_id::cancel_order},
    route_entry{"GET", "/v1/requests/{id}", route_id::get_request},
    route_entry{"GET", "/healthz", route_id::healthz},
    route_entry{"GET", "/metrics", route_id::metrics},
    route_entry{"PUT", "/_mock/faults", route_id::mock_faults},
    route_entry{"DELETE", "/_mock/faults", route_id::mock_faults},
    route_entry{"GET", "/_mock/faults", route_id::mock_faults},
    route_entry{"GET", "/_mock/stats", route_id::mock_stats},
    route_entry{"POST", "/_mock/clock", route_id::mock_clock},
    route_entry{"POST", "/_mock/reset", route_id::mock_reset},
    route_entry{"POST", "/_mock/complete", route_id::mock_complete},
    route_entry{"GET", "/_mock/invariants", route_id::mock_invariants},
    route_entry{"PUT", "/_mock/principals", route_id::mock_principals},
    route_entry{"DELETE", "/_mock/principals", route_id::mock_principals},
};

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  if (path.empty() || path.front() != '/') return parts;
  path.remove_prefix(1);
  while (true) {
    auto slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// Matches `path` against `pattern`; on success stores the {id} segment in `param`.
bool matches(std::string_view pattern, const std::vector<std::string_view>& path_parts,
             std::string& param) {
  auto pattern_parts = split_path(pattern);
  if (pattern_parts.size() != path_parts.size()) return false;
  std::string captured;
  for (std::size_t i = 0; i < path_parts.size(); ++i) {
    if (path_parts[i].empty()) return false;
    if (pattern_parts[i] == "{id}") {
      captured = std::string{path_parts[i]};
    } else if (pattern_parts[i] != path_parts[i]) {
      return false;
    }
  }
  param = std::move(captured);
  return true;
}

// A path is made of visible ASCII (RFC 3986: any other byte is sent percent-encoded). A raw
// byte beyond it names no resource, and must not reach what stores the path as JSON text, whose
// strict writer throws on invalid UTF-8 (a POST answered 500, which clients retry).
bool is_visible_ascii(std::string_view path) noexcept {
  for (char c : path) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

}  // namespace

route_match match_route(std::string_view method, std::string_view path) {
  // HEAD is allowed wherever GET is and takes the GET route (RFC 9110 section 9.3.2): the same
  // answer, whose content the transport leaves out.
  const std::string_view wanted = method == "HEAD" ? "GET" : method;
  route_match result;
  if (!is_visible_ascii(path)) return result;
  auto parts = split_path(path);
  for (const auto& r : routes) {
    std::string param;
    if (!matches(r.pattern, parts, param)) continue;
    if (r.method == wanted) {
      result.status = route_status::found;
      result.id = r.id;
      result.route_template = r.pattern;
      result.param = std::move(param);
      return result;
    }
    result.status = route_status::method_not_allowed;
    result.route_template = r.pattern;
    if (!result.allow.empty()) result.allow += ", ";
    result.allow += r.method;
    if (r.method == "GET") result.allow += ", HEAD";
  }
  return result;
}

bool is_tenant_route(route_id id) noexcept {
  switch (id) {
    case route_id::create_order:
    case route_id::list_orders:
    case route_id::get_order:
    case route_id::pay_order:
    case route_id::cancel_order:
    case route_id::get_request:
      return true;
    default:
      return false;
  }
}

}  // namespace idem::mock
