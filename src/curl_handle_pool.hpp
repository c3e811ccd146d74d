#pragma once
// Easy handles kept for reuse by one transport (private to the idem library).
//
// curl_easy_init allocates and initialises a large handle, and a handle's first transfer
// allocates its buffers; every attempt used to pay for both. A handle put back here is
// curl_easy_reset: every option, header list, callback and private pointer of the last request
// is gone, while what curl keeps across a reset stays (its buffers, its TLS session cache, so a
// new connection to the same server may resume the TLS session).

#include <curl/curl.h>

#include <cstddef>
#include <vector>

namespace idem::detail {

/// Thread-safety: none; used on the transport's executor.
class curl_handle_pool {
 public:
  /// Keeps at most `max_kept` handles; more are freed when they come back.
  explicit curl_handle_pool(std::size_t max_kept) : max_kept_(max_kept) {}
  ~curl_handle_pool();
  curl_handle_pool(const curl_handle_pool&) = delete;
  curl_handle_pool& operator=(const curl_handle_pool&) = delete;

  /// A handle with every option at its default (a kept one, or a new one); nullptr if curl
  /// cannot make one.
  [[nodiscard]] CURL* take() noexcept;
  /// Takes back `easy` (nullptr: nothing), which must be in no multi handle any more: resets it,
  /// or frees it when `max_kept` are kept already.
  void give_back(CURL* easy) noexcept;

  /// Handles kept for reuse now.
  [[nodiscard]] std::size_t kept() const noexcept { return kept_.size(); }
  /// Handles made by curl_easy_init so far (the rest of take()'s answers were reused).
  [[nodiscard]] std::size_t made() const noexcept { return made_; }

 private:
  std::size_t max_kept_;
  std::vector<CURL*> kept_;
  std::size_t made_ = 0;
};

}  // namespace idem::detail
