// The usage text of idem-cli (contract section 9), printed with --help and after a usage error.
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

const char* usage_text() noexcept {
  return R"(usage:
  idem-cli submit --url URL --token T [--method POST] --path /v1/orders --data JSON
                  --business-id X [--journal PATH] [COMMON OPTIONS]
      One intent; prints its outcome as one JSON object. --business-id is the
      merchant_order_id for /v1/orders, the order id for its sub-resources.
  idem-cli load --url URL --token T --orders N [--concurrency 16] [--pay | --mix MIX [--seed S]]
                [--path /v1/orders] [--journal PATH] [COMMON OPTIONS]
      N create-order intents with fresh merchant_order_ids, POSTed to --path (with --pay, a
      payment for each through the mock server's payment route: 2N intents; a payment is
      submitted once its order succeeded, and counts as not_sent if its order did not). Prints
      one JSON summary; a progress bar on stderr if it is a terminal. With --journal the whole
      plan (every key already minted) is written down first.
      --mix pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05 [--seed S]: instead of --pay,
      what each order gets is drawn from the seed (default 0): a payment, a cancel sent with
      it, a second payment of the same order with a new key (a double tap on "pay"), the same
      cart sent twice with a new key (a double tap on "order"). Double taps end rejected (409)
      or succeeded by lookup; payments and cancels of an order whose create lost to its double
      tap are abandoned.
  idem-cli resume --url URL --token T --journal PATH [--concurrency 16] [COMMON OPTIONS]
      Drives every intent of the journal that is not final to an end, each with its own key,
      under a fresh deadline. Same summary as load. Another token than the journal's: exit 2.
  idem-cli journal --journal PATH [--show KEY]
      {intents, succeeded, rejected, not_sent, unresolved} over the journal, or one intent's
      record and attempt timeline.

  idem-cli conform --url URL --token T [--token2 T2] [--profile P] [--path /v1/orders]
                   [--body-file FILE] [--id-pointer /id] [--race 50] [--json | --format json]
                   [--attempt-timeout 10s] [--header ...] [--cacert ...] [--lookup ...]
      Checks a backend against what idem's guarantees rely on, with real requests (never the
      mock server's admin API): a POST without a key, the same key with the same body and with
      another body, --race requests with one key at once, "in progress" while the first runs,
      the same key from another principal (--token2; skipped without it), a 4xx under a key
      sent again, and the key forms idem mints. Prints a table (check, sent, came back,
      verdict, why it matters, the idem setting it implies) or the same as JSON.
      --body-file: a JSON body with {{unique}} wherever each check puts a value of its own
      (default: the mock server's create-order body, {{unique}} as merchant_order_id).
      --id-pointer: where a 2xx body names the resource it created (else Location).
      The lookup (default for /v1/orders: by merchant_order_id; or --lookup-url ...) also
      counts executions. --attempt-timeout bounds each request (default 10s).
      Exit status: 0 nothing found that breaks exactly-once (warnings and skipped checks
      allowed); 1 some check failed; 3 none failed but some could not be completed (no
      answer); 2 usage error; 4 could not start.

common options (submit, load, resume; conform takes all but --deadline):
  --deadline 30s            the whole budget of each intent, lookup included
  --attempt-timeout 10s     one attempt at most this long (never longer than the deadline)
  --profile ietf|stripe|generic
                            how the backend says in progress, key mismatch, conflict
                            (default ietf, as the mock server speaks it)
  --header 'Name: value'    sent on every request; repeatable. Not Authorization (--token)
                            nor Idempotency-Key (minted per intent); no CR or LF
  --cacert FILE             trust the CAs of this PEM file for https:// (default: the system's)
  --lookup none             never look a result up by business ID (an intent whose answers
                            were all lost then ends unresolved)
  --lookup-url TEMPLATE     look results up with this GET instead of the preset (submit: by
                            path; load: the creates), e.g. '/v1/orders?ref={business_id}';
                            placeholders {business_id}, {field}, {/json/pointer} of the body.
                            resume: every intent resumed gets it (each keeps its business ID);
                            without it, each keeps the lookup it was written down with.
    --lookup-select PTR     where the record (or list of records) is in the answer ("": all)
    --lookup-identify PTR   the business ID in each record ("": every record is about it)
    --lookup-match PTR      a field that must agree between record and body; repeatable
    --lookup-conflict       a record with our business ID that is not ours rejects the intent
  Proxies: libcurl's environment variables (http_proxy, https_proxy, all_proxy, no_proxy).

  Durations: <digits><unit> with unit ms, s, m, h or d, or several of them (1m30s); a bare
  number is seconds; a deadline must be positive. URLs: http:// or https:// only. A journal is
  a SQLite file that one process at a time may use; its commits survive power loss.
  Every outcome other than succeeded is explained on stderr (the last transport error or HTTP
  answer) and, for submit, in the JSON's "error"; load and resume print counts per reason.
  Ctrl-C cancels what is in flight and prints the keys of the unresolved intents.
exit status: 0 every intent succeeded; 1 some rejected, none left open;
             3 some unresolved or not sent; 2 usage error (a bad flag, a malformed URL,
             a journal written with another token); 4 could not start (curl or OpenSSL failed
             to initialise, or the journal could not be opened: in use, damaged, read-only).
)";
}

}  // namespace idem::cli
