#pragma once
// Easy handles kept for reuse by one transport (private to the idem library).
//
// curl_easy_init allocates and initialises a large handle, and a handle's first transfer
// allocates its buffers; every attempt used to pay for both. A handle kept here keeps its
// buffers, its TLS session cache (so a new connection to the same server may resume the TLS
// session) and the options that are the same for every request of the transport; the request
// that used it last has cleared everything that pointed into it (curl_request::~curl_request).
// That is cheaper than curl_easy_reset and setting every option again: 165,386 -> 162,457
// instructions per request in idem-cli load (docs/PERFORMANCE.md). A handle is kept with its
// parsed URL (curl_parsed_url.hpp), which it may still point at (CURLOPT_CURLU): the two go
// together, the handle first.

#include <curl/curl.h>

#include <cstddef>
#include <vector>

#include "transport/curl_parsed_url.hpp"

namespace idem::detail {

/// Thread-safety: none; used on the transport's executor.
class curl_handle_pool {
 public:
  /// Keeps at most `max_kept` handles (the transport moves the bound with its load, see
  /// set_max_kept); more are freed when they come back.
  explicit curl_handle_pool(std::size_t max_kept) : max_kept_(max_kept) {}
  ~curl_handle_pool();
  curl_handle_pool(const curl_handle_pool&) = delete;
  curl_handle_pool& operator=(const curl_handle_pool&) = delete;

  struct handle {
    CURL* easy = nullptr;   ///< nullptr if curl cannot make one
    bool fresh = false;     ///< new from curl_easy_init: every option at its default
    curl_parsed_url url{};  ///< the URL its last request parsed (empty for a new handle)
    /// Its receive buffer is curl's 16 KiB, not the small one (curl_request.hpp,
    /// small_receive_buffer).
    bool large_buffer = false;
  };
  /// A kept handle (as its last request left it), or a new one.
  [[nodiscard]] handle take() noexcept;
  /// Takes back `easy` (nullptr: nothing), which must be in no multi handle any more and point
  /// at nothing that is about to go but `url`; frees both when `max_kept` are kept already.
  /// `large_buffer`: as handle::large_buffer, for whoever takes it next.
  void give_back(CURL* easy, curl_parsed_url url = {}, bool large_buffer = false) noexcept;

  /// From now on keeps at most `max_kept` handles; frees those kept beyond it at once.
  void set_max_kept(std::size_t max_kept) noexcept;

  /// Handles kept for reuse now.
  [[nodiscard]] std::size_t kept() const noexcept { return kept_.size(); }
  /// Handles made by curl_easy_init so far (the rest of take()'s answers were reused).
  [[nodiscard]] std::size_t made() const noexcept { return made_; }

 private:
  std::size_t max_kept_;
  struct kept_handle {
    CURL* easy;
    curl_parsed_url url;
    bool large_buffer;
  };
  // Frees the handle, then the URL it may point at.
  static void free_kept(kept_handle& k) noexcept;

  std::vector<kept_handle> kept_;
  std::size_t made_ = 0;
};

}  // namespace idem::detail
