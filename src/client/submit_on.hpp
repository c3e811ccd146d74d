#pragma once
// A submission's way onto the client's strand (what client::async_submit does after checking its
// options), for the library's own callers that hold the core rather than the client: a resume
// outlives nothing it needs if the client is destroyed under it.

#include <memory>

#include "flight/client_core.hpp"
#include "flight/submit_operation.hpp"

namespace idem::detail {

void submit_on(const std::shared_ptr<client::core>& core, const intent& i, submit_options options,
               outcome_handler handler);

}  // namespace idem::detail
