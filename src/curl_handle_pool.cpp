#include "curl_handle_pool.hpp"

namespace idem::detail {

curl_handle_pool::~curl_handle_pool() {
  for (CURL* easy : kept_)
    curl_easy_cleanup(easy);
}

CURL* curl_handle_pool::take() noexcept {
  if (!kept_.empty()) {
    CURL* easy = kept_.back();  // the most recently used: its memory is the likeliest cached
    kept_.pop_back();
    return easy;
  }
  CURL* easy = curl_easy_init();
  if (easy != nullptr) ++made_;
  return easy;
}

void curl_handle_pool::give_back(CURL* easy) noexcept {
  if (easy == nullptr) return;
  if (kept_.size() >= max_kept_) {
    curl_easy_cleanup(easy);
    return;
  }
  // Reset now rather than when taken: the request's strings and callbacks that the handle
  // points at are about to be freed, and nothing of them may outlive the request.
  curl_easy_reset(easy);
  try {
    kept_.push_back(easy);
  } catch (...) {  // out of memory: just free it
    curl_easy_cleanup(easy);
  }
}

}  // namespace idem::detail
