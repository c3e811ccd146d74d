#pragma once
/// @file
/// Everything an app uses, in one include: the client and its options, intents and their
/// outcomes, the orders API helpers, the stores (memory and the SQLite journal), the blocking
/// client, the observer. Each header also compiles alone (CTest design.headers_alone), so a file
/// that needs less may include less. The test kit is separate: idem/testing/kit.hpp.

#include "idem/backoff.hpp"
#include "idem/blocking_client.hpp"
#include "idem/business_lookup.hpp"
#include "idem/classify.hpp"
#include "idem/client.hpp"
#include "idem/curl_transport.hpp"
#include "idem/deadline.hpp"
#include "idem/errc.hpp"
#include "idem/http_headers.hpp"
#include "idem/idempotency_key.hpp"
#include "idem/intent.hpp"
#include "idem/intent_store.hpp"
#include "idem/journal_error.hpp"
#include "idem/lifecycle.hpp"
#include "idem/lookup_verdict.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/observer.hpp"
#include "idem/orders.hpp"
#include "idem/outcome.hpp"
#include "idem/planned_intent.hpp"
#include "idem/request_body.hpp"
#include "idem/resume.hpp"
#include "idem/retry_budget.hpp"
#include "idem/scheduler.hpp"
#include "idem/server_profile.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem/submit_options.hpp"
#include "idem/transport.hpp"
#include "idem/transport_error.hpp"
#include "idem/version.hpp"
