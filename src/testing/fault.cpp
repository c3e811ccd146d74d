#include "idem/testing/fault.hpp"

#include <utility>

namespace idem::kit {

std::string_view to_string(fault_kind kind) noexcept {
  switch (kind) {
    case fault_kind::reset_before_processing:
      return "reset_before_processing";
    case fault_kind::status_before_processing:
      return "status_before_processing";
    case fault_kind::delay:
      return "delay";
    case fault_kind::crash_during_processing:
      return "crash_during_processing";
    case fault_kind::provider_timeout:
      return "provider_timeout";
    case fault_kind::drop_response_after_commit:
      return "drop_response_after_commit";
    case fault_kind::status_after_commit:
      return "status_after_commit";
    case fault_kind::stall_after_commit:
      return "stall_after_commit";
    case fault_kind::hold_in_processing:
      return "hold_in_processing";
  }
  return "unknown";
}

fault fault::reset_before_processing() {
  return fault{fault_kind::reset_before_processing};
}

fault fault::status_before_processing(int status, std::optional<std::chrono::seconds> retry_after) {
  return fault{fault_kind::status_before_processing, std::nullopt, status, retry_after};
}

fault fault::delay(std::chrono::milliseconds by) {
  return fault{fault_kind::delay, by};
}

fault fault::crash_during_processing() {
  return fault{fault_kind::crash_during_processing};
}

fault fault::provider_timeout() {
  return fault{fault_kind::provider_timeout};
}

fault fault::drop_response_after_commit() {
  return fault{fault_kind::drop_response_after_commit};
}

fault fault::status_after_commit(int status) {
  return fault{fault_kind::status_after_commit, std::nullopt, status};
}

fault fault::stall_after_commit(std::chrono::milliseconds by) {
  return fault{fault_kind::stall_after_commit, by};
}

fault fault::hold_in_processing(std::chrono::milliseconds hold) {
  return fault{fault_kind::hold_in_processing, hold};
}

fault fault::on_method(std::string method) const {
  fault f = *this;
  f.method_ = std::move(method);
  return f;
}

fault fault::on_route(std::string_view route) const {
  fault f = *this;
  f.route_ = std::string{route};
  return f;
}

fault fault::on_create_order() const {
  return on_method("POST").on_route(mock_routes::create_order);
}

fault fault::on_pay_order() const {
  return on_method("POST").on_route(mock_routes::pay_order);
}

fault fault::on_cancel_order() const {
  return on_method("POST").on_route(mock_routes::cancel_order);
}

fault fault::probability(double p) const {
  fault f = *this;
  f.probability_ = p;
  return f;
}

fault fault::times(std::int64_t n) const {
  fault f = *this;
  f.times_ = n;
  return f;
}

nlohmann::json fault::to_json() const {
  nlohmann::json match = nlohmann::json::object();
  if (method_) match["method"] = *method_;
  if (route_) match["route"] = *route_;
  nlohmann::json rule = {{"match", std::move(match)}, {"fault", std::string{to_string(kind_)}}};
  if (probability_) rule["probability"] = *probability_;
  if (times_) rule["times"] = *times_;
  if (delay_) rule["delay_ms"] = delay_->count();
  if (status_) rule["status"] = *status_;
  if (retry_after_) rule["retry_after_s"] = retry_after_->count();
  return rule;
}

}  // namespace idem::kit
