#include "curl_handle_pool.hpp"

namespace idem::detail {

curl_handle_pool::~curl_handle_pool() {
  for (CURL* easy : kept_)
    curl_easy_cleanup(easy);
}

curl_handle_pool::handle curl_handle_pool::take() noexcept {
  if (!kept_.empty()) {
    CURL* easy = kept_.back();  // the most recently used: its memory is the likeliest cached
    kept_.pop_back();
    return {easy, false};
  }
  CURL* easy = curl_easy_init();
  if (easy != nullptr) ++made_;
  return {easy, true};
}

void curl_handle_pool::set_max_kept(std::size_t max_kept) noexcept {
  max_kept_ = max_kept;
  while (kept_.size() > max_kept_) {
    curl_easy_cleanup(kept_.back());
    kept_.pop_back();
  }
}

void curl_handle_pool::give_back(CURL* easy) noexcept {
  if (easy == nullptr) return;
  if (kept_.size() >= max_kept_) {
    curl_easy_cleanup(easy);
    return;
  }
  try {
    kept_.push_back(easy);
  } catch (...) {  // out of memory: just free it
    curl_easy_cleanup(easy);
  }
}

}  // namespace idem::detail
