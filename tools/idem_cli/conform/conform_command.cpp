#include "idem_cli/conform/conform_command.hpp"

#include <string>
#include <vector>

#include "idem_cli/conform/conform_checks.hpp"
#include "idem_cli/conform/conform_json.hpp"
#include "idem_cli/conform/conform_table.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/lookup_choice.hpp"

namespace idem::cli {
namespace {

// One check as the runner knows it: its stable id, its title, how to run it.
struct check_entry {
  std::string id;
  std::string title;
  check_result (*run)(conform_context&);
};

std::vector<check_entry> checks_in_order(std::size_t race) {
  return {{"missing-key", "POST without a key", &check_missing_key},
          {"replay", "same key, same body", &check_replay},
          {"mismatch", "same key, another body", &check_mismatch},
          {"race", std::to_string(race) + " racing requests, one key", &check_race},
          {"in-progress", "\"in progress\" while the first runs", &check_in_progress},
          {"principal-scope", "same key, another principal", &check_principal_scope},
          {"final-4xx", "a 4xx under a key, sent again", &check_final_4xx},
          {"key-forms", "key length and charset", &check_key_forms}};
}

}  // namespace

conform_endpoint endpoint_for(const conform_args& args) {
  conform_endpoint e;
  e.base_url = args.common.url;
  e.path = args.path;
  if (!args.body_template.empty()) e.body_template = args.body_template;
  e.token = args.common.token;
  e.token2 = args.token2;
  e.headers = args.common.headers;
  e.key_header = args.common.key_header;
  if (args.common.attempt_timeout.count() > 0) e.timeout = args.common.attempt_timeout;
  e.id_pointer = args.id_pointer;
  e.lookup = choose_lookup(args.common.lookup, lookup_for(args.path, {}));
  return e;
}

conform_report run_checks(const conform_endpoint& endpoint, const server_profile& profile,
                          std::size_t race, const std::string& cacert) {
  curl_transport_options transport;
  transport.tls.ca_file = cacert;
  conform_probe probe{std::move(transport)};
  unique_values unique;
  conform_context c{
      .probe = probe, .endpoint = endpoint, .profile = profile, .unique = unique, .race = race};
  conform_report report{.url = endpoint.base_url,
                        .path = endpoint.path,
                        .profile = std::string(profile.name()),
                        .race = race,
                        .checks = {}};
  std::string silent;  // the check whose requests the backend stopped answering
  for (const auto& check : checks_in_order(race)) {
    check_result row;
    if (silent.empty()) {
      row = check.run(c);
      if (row.no_answer) silent = check.id;
    } else {
      row.result = verdict::error;
      row.came_back = "not run";
      row.why = "the backend stopped answering at check " + silent;
    }
    // Nothing was concluded from a skipped or unfinished check.
    if (row.result == verdict::skip || row.result == verdict::error) {
      row.sure = certainty::inconclusive;
    }
    row.id = check.id;
    row.title = check.title;
    report.checks.push_back(std::move(row));
  }
  return report;
}

int run_conform(const conform_args& args, std::ostream& out, std::ostream& err) {
  // The parser accepted the name, so it is known.
  const auto profile =
      server_profile::by_name(args.common.profile).value_or(server_profile::ietf());
  const auto report = run_checks(endpoint_for(args), profile, args.race, args.common.cacert);
  if (args.json) {
    // A backend's bytes (an id, a header) need not be UTF-8: replaced, never a throw.
    out << to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    print_table(report, out);
  }
  const int status = conform_exit_status(report);
  if (status != exit_conform_clean) {
    std::string failed;
    std::string unfinished;
    for (const auto& c : report.checks) {
      if (c.result == verdict::fail) failed += " " + c.id;
      if (c.result == verdict::error) unfinished += " " + c.id;
    }
    err << "idem-cli: conform:";
    if (!failed.empty()) err << " failed:" << failed << ";";
    if (!unfinished.empty()) err << " not completed:" << unfinished << ";";
    err << " see the report\n";
  }
  return status;
}

}  // namespace idem::cli
