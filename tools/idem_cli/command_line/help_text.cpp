// idem-cli's commands, flags and help texts (help_text.hpp). Flag texts are at most 70 columns a
// line: CLI11 prints them beside a 28-column left side, within 100 columns.
#include "idem_cli/command_line/help_text.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "idem/version.hpp"

namespace idem::cli {
namespace {

using common::flag;
using enum common::flag_kind;

// --- the paragraphs several helps share ----------------------------------------------------------

constexpr std::string_view durations =
    "Durations: <digits><unit> with unit ms, s, m, h or d, or several of them (1m30s); a bare\n"
    "number is seconds; a deadline must be positive. URLs: http:// or https:// only. Flags take\n"
    "'--name value' or '--name=value'.";

constexpr std::string_view outcomes =
    "Every outcome other than succeeded is explained on stderr (the last transport error or HTTP\n"
    "answer) and, for submit, in the JSON's \"error\"; load and resume print counts per reason.\n"
    "A journal is a SQLite file that one process at a time may use; its commits survive power\n"
    "loss. Ctrl-C cancels what is in flight and prints the keys of the unresolved intents.\n"
    "Proxies: libcurl's environment variables (http_proxy, https_proxy, all_proxy, no_proxy).";

constexpr std::string_view intent_statuses =
    "exit status: 0 every intent succeeded; 1 some rejected, none left open;\n"
    "             3 some unresolved or not sent; 2 usage error (a bad flag, a malformed URL,\n"
    "             a journal written with another token); 4 could not start (curl or OpenSSL "
    "failed\n"
    "             to initialise, or the journal could not be opened: in use, damaged, read-only).";

std::string joined(std::initializer_list<std::string_view> paragraphs) {
  std::string out;
  for (std::string_view p : paragraphs)
    out += (out.empty() ? "" : "\n\n") + std::string(p);
  return out;
}

// --- the flags common to the commands that talk to a backend -----------------------------------

// conform's checks have no intent, so no intent's deadline (each request has its timeout).
std::vector<flag> common_flag_table(bool with_deadline) {
  std::vector<flag> out{
      {"url", "URL", "the backend, http:// or https:// (paths are appended to it)", required},
      {"token", "T", "sent as 'Authorization: Bearer T'", required},
      {"deadline", "30s", "the whole budget of each intent, lookup included"},
      {"attempt-timeout", "10s",
       "one attempt (conform: one request) at most this long; never longer\nthan the deadline"},
      {"profile", "ietf|stripe|generic",
       "how the backend says in progress, key mismatch, conflict\n"
       "(default ietf, as the mock server speaks it)"},
      {"header", "'Name: value'",
       "sent on every request; repeatable. Not Authorization (--token)\n"
       "nor Idempotency-Key (minted per intent); no CR or LF",
       repeatable},
      {"key-header", "Idempotency-Key", "the header that carries the key"},
      {"cacert", "FILE", "trust the CAs of this PEM file for https:// (default: the system's)"},
      {"lookup", "none",
       "never look a result up by business ID (an intent whose answers\n"
       "were all lost then ends unresolved)"},
      {"lookup-url", "TEMPLATE",
       "look results up with this GET instead of the preset (submit: by\n"
       "path; load: the creates), e.g. '/v1/orders?ref={business_id}';\n"
       "placeholders {business_id}, {field}, {/json/pointer} of the body.\n"
       "resume: every intent resumed gets it (each keeps its business ID);\n"
       "without it, each keeps the lookup it was written down with"},
      {"lookup-select", "PTR",
       "where the record (or list of records) is in the answer (\"\": all)"},
      {"lookup-identify", "PTR", "the business ID in each record (\"\": every record is about it)"},
      {"lookup-match", "PTR", "a field that must agree between record and body; repeatable",
       repeatable},
      {"lookup-conflict", "", "a record with our business ID that is not ours rejects the intent"},
  };
  if (!with_deadline) std::erase_if(out, [](const flag& f) { return f.name == "deadline"; });
  return out;
}

// A command with its own flags, then (unless `common` is empty) the common ones.
common::command_spec make_command(std::string_view name, std::string_view summary,
                                  std::string_view usage, std::vector<flag> own,
                                  std::vector<flag> common, std::string footer) {
  common::command_spec out{name, summary, usage, {{"Options", std::move(own)}}, std::move(footer)};
  if (!common.empty()) out.flags.push_back({"Common options", std::move(common)});
  return out;
}

// --- each command -------------------------------------------------------------------------------

common::command_spec submit_help() {
  return make_command(
      "submit", "one intent; prints its outcome as one JSON object",
      "usage: idem-cli submit --url URL --token T [--method POST] --path /v1/orders --data JSON\n"
      "                       --business-id X [--journal PATH] [COMMON OPTIONS]\n"
      "  One intent; prints its outcome as one JSON object. --business-id is the\n"
      "  merchant_order_id for /v1/orders, the order id for its sub-resources.",
      {{"method", "POST", "the only method: submit sends writes"},
       {"path", "PATH", "where the intent goes, e.g. /v1/orders", required},
       {"data", "JSON", "the body (checked as JSON)", required},
       {"business-id", "X",
        "the merchant_order_id for /v1/orders, the order id for its\n"
        "sub-resources: what the lookup finds the result by",
        required},
       {"journal", "PATH", "write the intent down in this journal before it is sent"}},
      common_flag_table(true), joined({durations, outcomes, intent_statuses}));
}

common::command_spec load_help() {
  return make_command(
      "load", "N create-order intents (and payments); prints one JSON summary",
      "usage: idem-cli load --url URL --token T --orders N [--concurrency 16]\n"
      "                     [--pay | --mix MIX [--seed S]] [--path /v1/orders] [--journal PATH]\n"
      "                     [COMMON OPTIONS]\n"
      "  N create-order intents with fresh merchant_order_ids, POSTed to --path (with --pay, a\n"
      "  payment for each through the mock server's payment route: 2N intents; a payment is\n"
      "  submitted once its order succeeded, and counts as not_sent if its order did not).\n"
      "  Prints one JSON summary; a progress bar on stderr if it is a terminal. With --journal\n"
      "  the whole plan (every key already minted) is written down first.\n"
      "  --mix pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05 [--seed S]: instead of\n"
      "  --pay, what each order gets is drawn from the seed (default 0): a payment, a cancel\n"
      "  sent with it, a second payment of the same order with a new key (a double tap on\n"
      "  \"pay\"), the same cart sent twice with a new key (a double tap on \"order\"). Double\n"
      "  taps end rejected (409) or succeeded by lookup; payments and cancels of an order whose\n"
      "  create lost to its double tap are abandoned.",
      {{"orders", "N", "create-order intents, each with a fresh merchant_order_id", required},
       {"concurrency", "16", "intents in flight at once (1 to 10000)"},
       {"pay", "",
        "and a payment for each order, through the mock server's payment\n"
        "route: 2N intents; submitted once its order succeeded"},
       {"mix", "MIX",
        "instead of --pay, what each order gets, drawn from --seed, e.g.\n"
        "pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05"},
       {"seed", "S", "the seed of --mix's draws (default 0)"},
       {"path", "/v1/orders", "where the create-order bodies are POSTed"},
       {"journal", "PATH", "write the whole plan down (every key minted) before the first send"}},
      common_flag_table(true), joined({durations, outcomes, intent_statuses}));
}

common::command_spec resume_help() {
  return make_command(
      "resume", "drives every intent of a journal that is not final to an end",
      "usage: idem-cli resume --url URL --token T --journal PATH [--concurrency 16]\n"
      "                       [COMMON OPTIONS]\n"
      "  Drives every intent of the journal that is not final to an end, each with its own\n"
      "  key, under a fresh deadline. Same summary as load. Another token than the\n"
      "  journal's: exit 2.",
      {{"journal", "PATH", "the journal whose intents that are not final are driven to an end",
        required},
       {"concurrency", "16", "intents in flight at once (1 to 10000)"}},
      common_flag_table(true), joined({durations, outcomes, intent_statuses}));
}

common::command_spec journal_help() {
  return make_command(
      "journal", "counts over a journal, or one intent's timeline",
      "usage: idem-cli journal --journal PATH [--show KEY]\n"
      "  {intents, succeeded, rejected, not_sent, unresolved} over the journal, or one\n"
      "  intent's record and attempt timeline.",
      {{"journal", "PATH", "the journal to read", required},
       {"show", "KEY", "one intent's record and attempt timeline instead of the counts"}},
      {}, "exit status: 0 read; 2 usage error; 4 the journal could not be opened.");
}

common::command_spec conform_help() {
  return make_command(
      "conform", "checks a backend against what idem's guarantees rely on",
      "usage: idem-cli conform --url URL --token T [--token2 T2] [--profile P] [--path "
      "/v1/orders]\n"
      "                        [--body-file FILE] [--id-pointer /id] [--race 50]\n"
      "                        [--json | --format json] [COMMON OPTIONS but --deadline]\n"
      "  Checks a backend against what idem's guarantees rely on, with real requests (never the\n"
      "  mock server's admin API): a POST without a key, the same key with the same body and\n"
      "  with another body, --race requests with one key at once, \"in progress\" while the\n"
      "  first runs, the same key from another principal (--token2; skipped without it), a 4xx\n"
      "  under a key sent again, and the key forms idem mints. Prints a table (check, sent,\n"
      "  came back, verdict, why it matters, the idem setting it implies) or the same as JSON.",
      {{"token2", "T2",
        "another principal's token: are keys scoped per principal?\n"
        "(that check is skipped without it)"},
       {"path", "/v1/orders", "where the checks POST"},
       {"body-file", "FILE",
        "a JSON body (at most 1 MiB) with {{unique}} wherever each check\n"
        "puts a value of its own (default: the mock server's create-order\n"
        "body, {{unique}} as merchant_order_id)"},
       {"id-pointer", "/id", "where a 2xx body names the resource it created (else Location)"},
       {"race", "50", "requests with one key at once (2 to 1000)"},
       {"format", "table|json", "the report as a table or as one JSON line"},
       {"json", "", "the same as --format json"}},
      common_flag_table(false),
      joined({"The lookup (default for /v1/orders: by merchant_order_id; or --lookup-url ...) "
              "also\n"
              "counts executions. Durations as for the other commands (10s, 1m30s).",
              "exit status: 0 nothing found that breaks exactly-once (warnings and skipped "
              "checks\n"
              "             allowed); 1 some check failed;\n"
              "             3 none failed but some could not be completed (no answer);\n"
              "             2 usage error; 4 could not start."}));
}

}  // namespace

common::program_spec program() {
  const std::string_view usage =
      "usage: idem-cli COMMAND [FLAGS]\n"
      "  idem's command-line face: submits writes to an HTTP backend exactly once (each under\n"
      "  an idempotency key, retried and looked up until its outcome is known), and checks\n"
      "  whether a backend keeps what that relies on (conform).";
  const std::string_view see_commands =
      "'idem-cli COMMAND --help' (or 'idem-cli help COMMAND') lists one command's flags.";
  return {"idem-cli",
          IDEM_VERSION_STRING,
          {"", "", usage, {}, joined({see_commands, durations, outcomes, intent_statuses})},
          {submit_help(), load_help(), resume_help(), journal_help(), conform_help()}};
}

}  // namespace idem::cli
