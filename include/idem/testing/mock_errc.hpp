#pragma once
/// @file
/// Errors of the test kit (idem::kit::mock_server_process, mock_admin), as std::error_code
/// values. The kit's results carry one of these with a human-readable detail (mock_error).

#include <system_error>

namespace idem::kit {

/// Why a test-kit call failed.
enum class mock_errc {
  server_not_found =
      1,            ///< no idem-mock-server binary where the kit looked (the detail lists where)
  invalid_options,  ///< the options contradict each other (e.g. a preset and fault rules)
  temp_dir_failed,  ///< the temporary directory for the database could not be made
  start_failed,     ///< the server could not be started, or it exited before it listened
  start_timed_out,  ///< it printed no address within the start timeout (it was killed)
  not_running,      ///< the call needs a running server (after stop() or kill())
  stop_failed,      ///< after SIGTERM it exited with an error, or not in time (then killed)
  request_failed,   ///< an admin request got no HTTP answer (libcurl's reason in the detail)
  refused,          ///< the admin API answered with an error status (its problem in the detail)
  bad_answer,       ///< the admin API's answer is not the JSON it documents
};

/// The category of `mock_errc`, named "idem.testing". Thread-safe.
[[nodiscard]] const std::error_category& mock_category() noexcept;

[[nodiscard]] inline std::error_code make_error_code(mock_errc e) noexcept {
  return {static_cast<int>(e), mock_category()};
}

}  // namespace idem::kit

template <>
struct std::is_error_code_enum<idem::kit::mock_errc> : std::true_type {};
