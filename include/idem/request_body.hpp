#pragma once
/// @file
/// The bytes of a request body, shared rather than copied. An intent's frozen body goes to
/// every attempt, and the transport keeps it while curl reads it, without a copy of its own:
/// thousands of intents in flight hold one body each. Immutable; copies share the same bytes.

#include <concepts>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace idem {

class request_body {
 public:
  /// No body.
  request_body() noexcept = default;
  /// Takes (or copies) `bytes`: anything a std::string is made from, e.g. `req.body = "{}"`.
  template <class Bytes>
  requires std::constructible_from<std::string, Bytes&&> &&
      (!std::same_as<std::remove_cvref_t<Bytes>, request_body>)
          request_body(Bytes&& bytes)  // NOLINT(google-explicit-constructor): a body is its bytes
      : request_body(own(std::string(std::forward<Bytes>(bytes)))) {}
  /// Shares bytes kept alive by `bytes` (a pointer may alias a larger object holding them, as
  /// an intent's body does); never copied.
  explicit request_body(std::shared_ptr<const std::string> bytes) noexcept
      : bytes_(std::move(bytes)) {}

  [[nodiscard]] std::string_view view() const noexcept {
    return bytes_ ? std::string_view(*bytes_) : std::string_view();
  }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: a body is its bytes
  /// Never nullptr ("" for no body): curl reads POSTFIELDS from here.
  [[nodiscard]] const char* data() const noexcept { return bytes_ ? bytes_->data() : ""; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_ ? bytes_->size() : 0; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] const char* begin() const noexcept { return data(); }
  [[nodiscard]] const char* end() const noexcept { return data() + size(); }
  [[nodiscard]] std::string str() const { return std::string(view()); }

  /// Same bytes (compares with strings, string views, literals and other bodies).
  friend bool operator==(const request_body& a, std::string_view b) noexcept {
    return a.view() == b;
  }

 private:
  static std::shared_ptr<const std::string> own(std::string bytes) {
    if (bytes.empty()) return nullptr;
    return std::make_shared<const std::string>(std::move(bytes));
  }
  std::shared_ptr<const std::string> bytes_;
};

/// Writes the bytes as they are.
std::ostream& operator<<(std::ostream& os, const request_body& body);

}  // namespace idem
