// Check 8 of `idem-cli conform`: which keys the backend takes. idem mints lower-case UUIDs (v4 by
// default, v7 on request); the contract allows 1-255 visible ASCII characters. Each form is
// sent, then a key one character away (a backend that truncates or folds keys makes them
// collide), then the first key again (a backend that ignores keys it dislikes executes again).
#include <array>

#include "idem/idempotency_key.hpp"
#include "idem_cli/conform/conform_answer.hpp"
#include "idem_cli/conform/conform_check_support.hpp"
#include "idem_cli/conform/conform_checks.hpp"

namespace idem::cli {
namespace {

struct key_form {
  std::string name;
  bool idem_mints_it;  // a refusal then breaks every submission
  std::string key;
  std::string neighbour;  // `key` with its last character changed
};

// `text` made `length` long from the characters of `alphabet` (after `text`), ending in 'a'.
std::string padded(std::string text, std::size_t length, std::string_view alphabet) {
  for (std::size_t i = 0; text.size() + 1 < length; ++i)
    text.push_back(alphabet[i % alphabet.size()]);
  text.resize(length - 1);
  text.push_back('a');
  return text;
}

std::string with_last_changed(std::string key) {
  key.back() = key.back() == '0' ? '1' : (key.back() == 'a' ? 'b' : '0');
  return key;
}

std::vector<key_form> forms() {
  // The random part keeps a second run's keys apart from the first's.
  std::string random = idempotency_key::mint().str();
  std::erase(random, '-');
  // Visible ASCII without the characters some HTTP stacks treat specially in a header value
  // ('"' starts a structured-field string, '\\' escapes, ',' separates list members).
  constexpr std::string_view visible =
      "!#$%&'()*+-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";
  constexpr std::string_view token =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::vector<key_form> out;
  for (auto [name, format] :
       {std::pair{"UUIDv4", key_format::uuid_v4}, std::pair{"UUIDv7", key_format::uuid_v7}}) {
    const std::string key = idempotency_key::mint(format).str();
    out.push_back({name, true, key, with_last_changed(key)});
  }
  const std::string k64 = padded(random, 64, token);
  out.push_back({"64 chars", false, k64, with_last_changed(k64)});
  const std::string k255 = padded(random, 255, visible);
  out.push_back({"255 chars", false, k255, with_last_changed(k255)});
  return out;
}

// What one form came to: ok, or what went wrong.
struct form_result {
  verdict result = verdict::pass;
  std::string words;
};

}  // namespace

check_result check_key_forms(conform_context& c) {
  check_result row;
  row.sent =
      "per form (UUIDv4, UUIDv7, 64 and 255 visible ASCII): a key, a key one character "
      "away, the first key again";
  row.setting = "the key_format of intent::create: uuid_v4 (default) or uuid_v7";
  const std::string& id = c.endpoint.id_pointer;
  std::vector<std::string> refused_idem_forms;
  row.result = verdict::pass;
  for (const auto& form : forms()) {
    const auto body_a = new_body(c, "key");
    const auto body_b = new_body(c, "key");
    const auto a = post(c, body_a, form.key);
    if (!answered(a)) return no_answer(std::move(row), a, form.name);
    form_result f{.result = verdict::pass, .words = "ok"};
    const verdict bad = form.idem_mints_it ? verdict::fail : verdict::warn;
    if (!succeeded(a)) {
      f = {bad, "refused (" + describe(a, id) + ")"};
      if (form.idem_mints_it) refused_idem_forms.push_back(form.name);
    } else {
      const auto b = post(c, body_b, form.neighbour);
      const auto again = post(c, body_a, form.key);
      if (!answered(b)) return no_answer(std::move(row), b, form.name + " neighbour");
      if (!answered(again)) return no_answer(std::move(row), again, form.name + " again");
      // A replay may come with another status (a 409 with the stored body): still a replay.
      const bool replayed = succeeded(again) ? same_resource(a, again, id) != sameness::different
                                             : carries_first_answer(again, a, id);
      if (!succeeded(b) || same_resource(a, b, id) == sameness::same) {
        f = {bad, "collides with a key one character away (" + describe(b, id) + ")"};
      } else if (!replayed) {
        f = {bad, "not replayed (" + describe(again, id) + ")"};
      } else if (again.response.status != a.response.status) {
        f.words = "ok (replayed with status " + std::to_string(again.response.status) + ")";
      }
    }
    if (!row.came_back.empty()) row.came_back += "; ";
    row.came_back += form.name + ": " + f.words;
    if (f.result == verdict::fail || (f.result == verdict::warn && row.result == verdict::pass)) {
      row.result = f.result;  // the worst form decides
    }
  }
  switch (row.result) {
    case verdict::pass:
      row.why = "every form accepted, kept apart from its neighbour and replayed";
      break;
    case verdict::warn:
      row.why =
          "idem's UUID keys work; longer keys the contract allows do not (other clients "
          "may send them)";
      break;
    default:
      row.why =
          "keys of the form idem mints are refused, confused or ignored: submissions "
          "fail, or two orders share one answer";
      if (refused_idem_forms.size() == 1) {
        row.setting = refused_idem_forms.front() == "UUIDv4"
                          ? "create intents with key_format::uuid_v7"
                          : "create intents with key_format::uuid_v4 (the default)";
      }
      break;
  }
  return row;
}

}  // namespace idem::cli
