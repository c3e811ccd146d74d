#pragma once
/// @file
/// The test kit's results: a value or a `mock_error` (a small std::expected for C++20), printable
/// with `operator<<` so that a test says why: `ASSERT_TRUE(r.ok()) << r;`.

#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

#include "idem/testing/mock_errc.hpp"

namespace idem::kit {

/// What went wrong: a code to switch on (usually a `mock_errc`) and what happened, in words.
struct mock_error {
  std::error_code code;
  std::string detail;

  /// "<code's message>: <detail>" (or the message alone).
  [[nodiscard]] std::string describe() const {
    return detail.empty() ? code.message() : code.message() + ": " + detail;
  }
};

inline std::ostream& operator<<(std::ostream& out, const mock_error& e) {
  return out << e.describe();
}

/// Thrown by `mock_result::value()` on an error (as std::expected's bad_expected_access): a test
/// that takes the value without looking fails with the reason. Nothing else in the kit throws.
class bad_mock_result_access : public std::runtime_error {
 public:
  explicit bad_mock_result_access(const mock_error& e)
      : std::runtime_error(e.describe()), error_(e) {}
  [[nodiscard]] const mock_error& error() const noexcept { return error_; }

 private:
  mock_error error_;
};

/// A `T` or a `mock_error`. A value type; not synchronised.
template <class T>
class [[nodiscard]] mock_result {
 public:
  mock_result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
  mock_result(mock_error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  /// The value; throws bad_mock_result_access (with the error's description) if there is none.
  [[nodiscard]] T& value() & {
    check();
    return std::get<0>(v_);
  }
  [[nodiscard]] const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  [[nodiscard]] T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  /// The error; an empty one (no code) when there is a value.
  [[nodiscard]] mock_error error() const { return ok() ? mock_error{} : std::get<1>(v_); }
  /// "ok" or the error's description.
  [[nodiscard]] std::string describe() const { return ok() ? "ok" : std::get<1>(v_).describe(); }

 private:
  void check() const {
    if (!ok()) throw bad_mock_result_access(std::get<1>(v_));
  }
  std::variant<T, mock_error> v_;
};

/// Success or a `mock_error` (whose code is set: an error without a code counts as success).
template <>
class [[nodiscard]] mock_result<void> {
 public:
  mock_result() = default;
  mock_result(mock_error error) : error_(std::move(error)) {}  // NOLINT: implicit

  [[nodiscard]] bool ok() const noexcept { return !error_.code; }
  explicit operator bool() const noexcept { return ok(); }
  /// Throws bad_mock_result_access on an error; does nothing otherwise.
  void value() const {
    if (!ok()) throw bad_mock_result_access(error_);
  }
  [[nodiscard]] const mock_error& error() const noexcept { return error_; }
  [[nodiscard]] std::string describe() const { return ok() ? "ok" : error_.describe(); }

 private:
  mock_error error_;
};

template <class T>
std::ostream& operator<<(std::ostream& out, const mock_result<T>& r) {
  return out << r.describe();
}

}  // namespace idem::kit
