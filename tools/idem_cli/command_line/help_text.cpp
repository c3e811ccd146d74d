// idem-cli's commands, flags and help texts (help_text.hpp). Flag texts are at most 70 columns a
// line: CLI11 prints them beside a 28-column left side, within 100 columns.
#include "idem_cli/command_line/help_text.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace idem::cli {
namespace {

using namespace std::string_view_literals;

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

// --- the flags common to the commands that talk to a backend -----------------------------------

constexpr flag_help common[] = {
    {.name = "url",
     .value = "URL",
     .text = "the backend, http:// or https:// (paths are appended to it)",
     .required = true},
    {.name = "token", .value = "T", .text = "sent as 'Authorization: Bearer T'", .required = true},
    {.name = "deadline",
     .value = "30s",
     .text = "the whole budget of each intent, lookup included"},
    {.name = "attempt-timeout",
     .value = "10s",
     .text = "one attempt (conform: one request) at most this long; never longer\n"
             "than the deadline"},
    {.name = "profile",
     .value = "ietf|stripe|generic",
     .text = "how the backend says in progress, key mismatch, conflict\n"
             "(default ietf, as the mock server speaks it)"},
    {.name = "header",
     .value = "'Name: value'",
     .text = "sent on every request; repeatable. Not Authorization (--token)\n"
             "nor Idempotency-Key (minted per intent); no CR or LF",
     .repeatable = true},
    {.name = "cacert",
     .value = "FILE",
     .text = "trust the CAs of this PEM file for https:// (default: the system's)"},
    {.name = "lookup",
     .value = "none",
     .text = "never look a result up by business ID (an intent whose answers\n"
             "were all lost then ends unresolved)"},
    {.name = "lookup-url",
     .value = "TEMPLATE",
     .text = "look results up with this GET instead of the preset (submit: by\n"
             "path; load: the creates), e.g. '/v1/orders?ref={business_id}';\n"
             "placeholders {business_id}, {field}, {/json/pointer} of the body.\n"
             "resume: every intent resumed gets it (each keeps its business ID);\n"
             "without it, each keeps the lookup it was written down with"},
    {.name = "lookup-select",
     .value = "PTR",
     .text = "where the record (or list of records) is in the answer (\"\": all)"},
    {.name = "lookup-identify",
     .value = "PTR",
     .text = "the business ID in each record (\"\": every record is about it)"},
    {.name = "lookup-match",
     .value = "PTR",
     .text = "a field that must agree between record and body; repeatable",
     .repeatable = true},
    {.name = "lookup-conflict",
     .text = "a record with our business ID that is not ours rejects the intent"},
};

// --- each command -------------------------------------------------------------------------------

constexpr flag_help submit_flags[] = {
    {.name = "method", .value = "POST", .text = "the only method: submit sends writes"},
    {.name = "path",
     .value = "PATH",
     .text = "where the intent goes, e.g. /v1/orders",
     .required = true},
    {.name = "data", .value = "JSON", .text = "the body (checked as JSON)", .required = true},
    {.name = "business-id",
     .value = "X",
     .text = "the merchant_order_id for /v1/orders, the order id for its\n"
             "sub-resources: what the lookup finds the result by",
     .required = true},
    {.name = "journal",
     .value = "PATH",
     .text = "write the intent down in this journal before it is sent"},
};
constexpr std::string_view submit_footer[] = {durations, outcomes, intent_statuses};

constexpr flag_help load_flags[] = {
    {.name = "orders",
     .value = "N",
     .text = "create-order intents, each with a fresh merchant_order_id",
     .required = true},
    {.name = "concurrency", .value = "16", .text = "intents in flight at once (1 to 10000)"},
    {.name = "pay",
     .text = "and a payment for each order, through the mock server's payment\n"
             "route: 2N intents; submitted once its order succeeded"},
    {.name = "mix",
     .value = "MIX",
     .text = "instead of --pay, what each order gets, drawn from --seed, e.g.\n"
             "pay=0.8,cancel=0.2,double-pay=0.1,double-order=0.05"},
    {.name = "seed", .value = "S", .text = "the seed of --mix's draws (default 0)"},
    {.name = "path", .value = "/v1/orders", .text = "where the create-order bodies are POSTed"},
    {.name = "journal",
     .value = "PATH",
     .text = "write the whole plan down (every key minted) before the first send"},
};
constexpr std::string_view load_footer[] = {durations, outcomes, intent_statuses};

constexpr flag_help resume_flags[] = {
    {.name = "journal",
     .value = "PATH",
     .text = "the journal whose intents that are not final are driven to an end",
     .required = true},
    {.name = "concurrency", .value = "16", .text = "intents in flight at once (1 to 10000)"},
};
constexpr std::string_view resume_footer[] = {durations, outcomes, intent_statuses};

constexpr flag_help journal_flags[] = {
    {.name = "journal", .value = "PATH", .text = "the journal to read", .required = true},
    {.name = "show",
     .value = "KEY",
     .text = "one intent's record and attempt timeline instead of the counts"},
};
constexpr std::string_view journal_footer[] = {
    "exit status: 0 read; 2 usage error; 4 the journal could not be opened."};

constexpr flag_help conform_flags[] = {
    {.name = "token2",
     .value = "T2",
     .text = "another principal's token: are keys scoped per principal?\n"
             "(that check is skipped without it)"},
    {.name = "path", .value = "/v1/orders", .text = "where the checks POST"},
    {.name = "body-file",
     .value = "FILE",
     .text = "a JSON body (at most 1 MiB) with {{unique}} wherever each check\n"
             "puts a value of its own (default: the mock server's create-order\n"
             "body, {{unique}} as merchant_order_id)"},
    {.name = "id-pointer",
     .value = "/id",
     .text = "where a 2xx body names the resource it created (else Location)"},
    {.name = "race", .value = "50", .text = "requests with one key at once (2 to 1000)"},
    {.name = "format", .value = "table|json", .text = "the report as a table or as one JSON line"},
    {.name = "json", .text = "the same as --format json"},
};
constexpr std::string_view conform_footer[] = {
    "The lookup (default for /v1/orders: by merchant_order_id; or --lookup-url ...) also\n"
    "counts executions. Durations as for the other commands (10s, 1m30s).",
    "exit status: 0 nothing found that breaks exactly-once (warnings and skipped checks\n"
    "             allowed); 1 some check failed;\n"
    "             3 none failed but some could not be completed (no answer);\n"
    "             2 usage error; 4 could not start."};

constexpr command_help every_command[] = {
    {.name = "submit",
     .summary = "one intent; prints its outcome as one JSON object",
     .usage = "usage: idem-cli submit --url URL --token T [--method POST] --path /v1/orders --data "
              "JSON\n"
              "                       --business-id X [--journal PATH] [COMMON OPTIONS]\n"
              "  One intent; prints its outcome as one JSON object. --business-id is the\n"
              "  merchant_order_id for /v1/orders, the order id for its sub-resources.",
     .own_flags = submit_flags,
     .common = common_flags::all,
     .footer = submit_footer},
    {.name = "load",
     .summary = "N create-order intents (and payments); prints one JSON summary",
     .usage =
         "usage: idem-cli load --url URL --token T --orders N [--concurrency 16]\n"
         "                     [--pay | --mix MIX [--seed S]] [--path /v1/orders] [--journal "
         "PATH]\n"
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
         "  taps end rejected (409) or succeeded by lookup; payments and cancels of an order "
         "whose\n"
         "  create lost to its double tap are abandoned.",
     .own_flags = load_flags,
     .common = common_flags::all,
     .footer = load_footer},
    {.name = "resume",
     .summary = "drives every intent of a journal that is not final to an end",
     .usage =
         "usage: idem-cli resume --url URL --token T --journal PATH [--concurrency 16]\n"
         "                       [COMMON OPTIONS]\n"
         "  Drives every intent of the journal that is not final to an end, each with its own\n"
         "  key, under a fresh deadline. Same summary as load. Another token than the\n"
         "  journal's: exit 2.",
     .own_flags = resume_flags,
     .common = common_flags::all,
     .footer = resume_footer},
    {.name = "journal",
     .summary = "counts over a journal, or one intent's timeline",
     .usage = "usage: idem-cli journal --journal PATH [--show KEY]\n"
              "  {intents, succeeded, rejected, not_sent, unresolved} over the journal, or one\n"
              "  intent's record and attempt timeline.",
     .own_flags = journal_flags,
     .common = common_flags::none,
     .footer = journal_footer},
    {.name = "conform",
     .summary = "checks a backend against what idem's guarantees rely on",
     .usage =
         "usage: idem-cli conform --url URL --token T [--token2 T2] [--profile P] [--path "
         "/v1/orders]\n"
         "                        [--body-file FILE] [--id-pointer /id] [--race 50]\n"
         "                        [--json | --format json] [COMMON OPTIONS but --deadline]\n"
         "  Checks a backend against what idem's guarantees rely on, with real requests (never "
         "the\n"
         "  mock server's admin API): a POST without a key, the same key with the same body and\n"
         "  with another body, --race requests with one key at once, \"in progress\" while the\n"
         "  first runs, the same key from another principal (--token2; skipped without it), a 4xx\n"
         "  under a key sent again, and the key forms idem mints. Prints a table (check, sent,\n"
         "  came back, verdict, why it matters, the idem setting it implies) or the same as JSON.",
     .own_flags = conform_flags,
     .common = common_flags::all_but_deadline,
     .footer = conform_footer},
};

constexpr std::string_view program_paragraphs[] = {
    "'idem-cli COMMAND --help' (or 'idem-cli help COMMAND') lists one command's flags.", durations,
    outcomes, intent_statuses};

}  // namespace

std::span<const command_help> commands() noexcept {
  return every_command;
}

const command_help* find_command(std::string_view name) noexcept {
  for (const command_help& c : every_command) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<flag_help> flags_of(const command_help& command) {
  std::vector<flag_help> out(command.own_flags.begin(), command.own_flags.end());
  if (command.common == common_flags::none) return out;
  for (const flag_help& f : common) {
    // conform's checks have no intent, so no intent's deadline; each request has its timeout.
    if (command.common == common_flags::all_but_deadline && f.name == "deadline"sv) continue;
    out.push_back(f);
  }
  return out;
}

std::string_view program_usage() noexcept {
  return "usage: idem-cli COMMAND [FLAGS]\n"
         "  idem's command-line face: submits writes to an HTTP backend exactly once (each under\n"
         "  an idempotency key, retried and looked up until its outcome is known), and checks\n"
         "  whether a backend keeps what that relies on (conform).";
}

std::span<const std::string_view> program_footer() noexcept {
  return program_paragraphs;
}

std::string_view short_usage() noexcept {
  return "usage: idem-cli COMMAND [FLAGS]   commands: submit, load, resume, journal, conform\n"
         "'idem-cli --help' describes them; 'idem-cli COMMAND --help' lists one command's flags.\n";
}

}  // namespace idem::cli
