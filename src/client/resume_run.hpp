#pragma once
// client::async_resume: a store's open intents driven to an end (resume.hpp).

#include <boost/asio/any_completion_handler.hpp>
#include <memory>

#include "flight/client_core.hpp"
#include "idem/resume.hpp"

namespace idem::detail {

// Plans the resume from the store's open intents and runs it; `handler` gets the summary.
void start_resume(const std::shared_ptr<client::core>& core, resume_options options,
                  boost::asio::any_completion_handler<void(resume_summary)> handler);

}  // namespace idem::detail
