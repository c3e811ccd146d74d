#include "transport/curl_handle_pool.hpp"

#include <utility>

namespace idem::detail {

curl_handle_pool::~curl_handle_pool() {
  for (kept_handle& k : kept_)
    free_kept(k);
}

void curl_handle_pool::free_kept(kept_handle& k) noexcept {
  curl_easy_cleanup(k.easy);
  k.url = curl_parsed_url{};
}

curl_handle_pool::handle curl_handle_pool::take() noexcept {
  if (!kept_.empty()) {
    // The most recently used: its memory is the likeliest cached.
    handle h{.easy = kept_.back().easy,
             .fresh = false,
             .url = std::move(kept_.back().url),
             .large_buffer = kept_.back().large_buffer};
    kept_.pop_back();
    return h;
  }
  CURL* easy = curl_easy_init();
  if (easy != nullptr) ++made_;
  return {.easy = easy, .fresh = true};
}

void curl_handle_pool::set_max_kept(std::size_t max_kept) noexcept {
  max_kept_ = max_kept;
  while (kept_.size() > max_kept_) {
    free_kept(kept_.back());
    kept_.pop_back();
  }
}

void curl_handle_pool::give_back(CURL* easy, curl_parsed_url url, bool large_buffer) noexcept {
  if (easy == nullptr) return;
  kept_handle k{easy, std::move(url), large_buffer};
  if (kept_.size() >= max_kept_) return free_kept(k);
  try {
    kept_.push_back(std::move(k));
  } catch (...) {  // out of memory: just free it
    free_kept(k);
  }
}

}  // namespace idem::detail
