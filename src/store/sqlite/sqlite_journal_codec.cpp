#include "store/sqlite/sqlite_journal_codec.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "idem/orders.hpp"

namespace idem::detail {
namespace {

// Enums are stored by name, so that the file reads plainly in the sqlite3 shell and does not
// depend on the order of the enumerators.

constexpr std::array all_states{intent_state::open, intent_state::succeeded, intent_state::rejected,
                                intent_state::abandoned};
constexpr std::array all_classes{attempt_class::succeeded,         attempt_class::not_sent,
                                 attempt_class::unknown,           attempt_class::not_processed,
                                 attempt_class::in_progress,       attempt_class::client_bug,
                                 attempt_class::business_conflict, attempt_class::rejected};
constexpr std::array all_outcomes{outcome_kind::succeeded, outcome_kind::rejected,
                                  outcome_kind::not_sent, outcome_kind::unresolved};
constexpr std::array all_kinds{
    timeline_entry::kind::created,         timeline_entry::kind::path_bound,
    timeline_entry::kind::attempt_started, timeline_entry::kind::attempt_finished,
    timeline_entry::kind::waited,          timeline_entry::kind::lookup,
    timeline_entry::kind::outcome,         timeline_entry::kind::abandoned};
// The orders API's lookups are stored by name (files written before lookups were declarative
// hold only those), any other as JSON (without its business ID, which has a column of its
// own), in the `lookup_kind` column. By name: 13 bytes instead of about 220 in every row.
using preset_lookup = business_lookup (*)(std::string);
constexpr std::array<std::pair<const char*, preset_lookup>, 3> preset_lookups{{
    {"order_created", &orders::order_created_lookup},
    {"payment_captured", &orders::payment_captured_lookup},
    {"order_cancelled", &orders::order_cancelled_lookup},
}};

std::string lookup_text(const business_lookup& l) {
  if (!l.enabled()) return "none";
  for (const auto& [name, make] : preset_lookups)
    if (make(l.business_id) == l) return name;
  auto j = to_json(l);
  j.erase("business_id");
  return j.dump();
}

std::optional<business_lookup> parse_lookup(const std::string& text, std::string business_id) {
  if (text == "none") return business_lookup{.business_id = std::move(business_id)};
  for (const auto& [name, make] : preset_lookups)
    if (text == name) return make(std::move(business_id));
  auto l = business_lookup_from_json(nlohmann::json::parse(text, nullptr, false));
  if (l) l->business_id = std::move(business_id);
  return l;
}

template <class E, std::size_t N>
std::optional<E> parse_name(std::string_view name, const std::array<E, N>& all) {
  for (E e : all)
    if (to_string(e) == name) return e;
  return std::nullopt;
}

template <class E, std::size_t N>
std::optional<E> parse_optional_name(const std::optional<std::string>& name,
                                     const std::array<E, N>& all) {
  return name ? parse_name(*name, all) : std::nullopt;
}

// An optional enum by its name, or NULL.
template <class E>
void bind_optional_name(sqlite_statement& s, int i, const std::optional<E>& e) {
  if (e)
    s.bind_text_ref(i, to_string(*e));
  else
    s.bind_null(i);
}

std::optional<std::int64_t> optional_millis(const std::optional<wall_time>& t) {
  return t ? std::optional<std::int64_t>(to_millis(*t)) : std::nullopt;
}

std::optional<wall_time> optional_time(std::optional<std::int64_t> ms) {
  return ms ? std::optional<wall_time>(from_millis(*ms)) : std::nullopt;
}

std::uint32_t column_u32(const sqlite_statement& s, int i) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(s.column_int(i), 0, UINT32_MAX));
}

}  // namespace

std::int64_t to_millis(wall_time t) noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

wall_time from_millis(std::int64_t ms) noexcept {
  return wall_time{std::chrono::milliseconds{ms}};
}

#define IDEM_INTENT_COLUMNS                                                              \
  "key, seq, method, path, body, lookup_kind, business_id, principal, created_at, "      \
  "first_attempt_at, finished_at, depends_on, path_bound, attempts, attempts_finished, " \
  "last_class, reached_server, state, last_outcome, final_status, final_body, error"

#define IDEM_INTENT_INSERT                                                                      \
  "INSERT INTO intents (" IDEM_INTENT_COLUMNS                                                   \
  ", timeline) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, " \
  "?17, ?18, ?19, ?20, ?21, ?22, ?23)"

const char* const insert_intent_sql = IDEM_INTENT_INSERT;

const char* const upsert_intent_sql = IDEM_INTENT_INSERT
    " ON CONFLICT (key) DO UPDATE SET method = excluded.method, path = excluded.path, "
    "body = excluded.body, lookup_kind = excluded.lookup_kind, "
    "business_id = excluded.business_id, principal = excluded.principal, "
    "created_at = excluded.created_at, first_attempt_at = excluded.first_attempt_at, "
    "finished_at = excluded.finished_at, depends_on = excluded.depends_on, "
    "path_bound = excluded.path_bound, attempts = excluded.attempts, "
    "attempts_finished = excluded.attempts_finished, last_class = excluded.last_class, "
    "reached_server = excluded.reached_server, state = excluded.state, "
    "last_outcome = excluded.last_outcome, final_status = excluded.final_status, "
    "final_body = excluded.final_body, error = excluded.error, "
    "timeline = intents.timeline || excluded.timeline";

#define IDEM_TIMELINE_LINES "(length(timeline) - length(replace(timeline, char(10), '')))"

const char* const select_intent_sql =
    "SELECT " IDEM_INTENT_COLUMNS ", rowid, " IDEM_TIMELINE_LINES " FROM intents WHERE key = ?1";
const char* const select_open_intents_sql =
    "SELECT " IDEM_INTENT_COLUMNS ", rowid, " IDEM_TIMELINE_LINES
    " FROM intents WHERE state = 'open' ORDER BY seq";
// Formats 1 and 2 keep the timeline in a table of its own.
const char* const select_intent_v2_sql =
    "SELECT " IDEM_INTENT_COLUMNS ", rowid, 0 FROM intents WHERE key = ?1";
const char* const select_open_intents_v2_sql =
    "SELECT " IDEM_INTENT_COLUMNS ", rowid, 0 FROM intents WHERE state = 'open' ORDER BY seq";

const char* const select_timeline_sql = "SELECT timeline FROM intents WHERE key = ?1";

#undef IDEM_TIMELINE_LINES
#undef IDEM_INTENT_INSERT
#undef IDEM_INTENT_COLUMNS

const char* select_intent_sql_for(std::int64_t version) {
  return version < 3 ? select_intent_v2_sql : select_intent_sql;
}

const char* select_open_intents_sql_for(std::int64_t version) {
  return version < 3 ? select_open_intents_v2_sql : select_open_intents_sql;
}

#define IDEM_EVENT_COLUMNS                                                                   \
  "SELECT seq, key, at, kind, attempt, class, status, request_id, duration_ms, detail FROM " \
  "events "

const char* const select_events_sql =
    IDEM_EVENT_COLUMNS "WHERE intent = (SELECT seq FROM intents WHERE key = ?1) ORDER BY seq";
const char* const select_events_by_key_sql = IDEM_EVENT_COLUMNS "WHERE key = ?1 ORDER BY seq";

#undef IDEM_EVENT_COLUMNS

const std::string& lookup_text_memo::text_of(const intent& i) {
  // lookup_text does not read the shape's business_id (the presets are made with the shape's
  // own, and the JSON leaves it out), so the shape's text is the whole lookup's.
  if (!held_ || &held_->lookup_shape() != &i.lookup_shape()) {
    text_ = lookup_text(i.lookup_shape());
    held_ = i;
  }
  return text_;
}

void bind_intent(sqlite_statement& s, const intent_record& r, std::uint64_t seq,
                 lookup_text_memo& lookups) {
  const intent& what = r.what;
  s.bind_text_ref(1, what.key().str());
  s.bind(2, static_cast<std::int64_t>(seq));
  s.bind_text_ref(3, what.op().method);
  s.bind_text_ref(4, what.op().path);
  s.bind_blob_ref(5, what.body());
  s.bind_text_ref(6, lookups.text_of(what));  // bound for the statement's step only
  s.bind_text_ref(7, what.business_id());
  s.bind_text_ref(8, r.principal);
  s.bind(9, to_millis(r.created_at));
  s.bind_optional(10, optional_millis(r.first_attempt_at));
  s.bind_optional(11, optional_millis(r.finished_at));
  s.bind_optional_text_ref(12, r.depends_on);
  s.bind(13, r.path_bound ? 1 : 0);
  s.bind(14, r.attempts);
  s.bind(15, r.attempts_finished);
  bind_optional_name(s, 16, r.last_class);
  s.bind(17, r.reached_server ? 1 : 0);
  s.bind_text_ref(18, to_string(r.state));
  bind_optional_name(s, 19, r.last_outcome);
  s.bind(20, r.final_status);
  s.bind_blob_ref(21, std::string_view(r.final_body).substr(0, max_stored_final_body));
  s.bind_text_ref(22, r.error);
}

std::optional<intent_record> read_intent(const sqlite_statement& s, std::uint64_t& seq) {
  auto key = idempotency_key::from_string(s.column_text(0));
  const auto state = parse_name(s.column_text(17), all_states);
  auto lookup = parse_lookup(s.column_text(5), s.column_text(6));
  if (!key || !state || !lookup) return std::nullopt;
  auto what = intent::restore_exact(std::move(*key),
                                    operation{.method = s.column_text(2), .path = s.column_text(3)},
                                    s.column_text(4), std::move(*lookup));
  if (!what) return std::nullopt;
  seq = static_cast<std::uint64_t>(s.column_int(1));
  intent_record r{.what = std::move(*what)};
  r.principal = s.column_text(7);
  r.created_at = from_millis(s.column_int(8));
  r.first_attempt_at = optional_time(s.column_optional_int(9));
  r.finished_at = optional_time(s.column_optional_int(10));
  r.depends_on = s.column_optional_text(11);
  r.path_bound = s.column_int(12) != 0;
  r.attempts = column_u32(s, 13);
  r.attempts_finished = column_u32(s, 14);
  r.last_class = parse_optional_name(s.column_optional_text(15), all_classes);
  r.reached_server = s.column_int(16) != 0;
  r.state = *state;
  r.last_outcome = parse_optional_name(s.column_optional_text(18), all_outcomes);
  r.final_status = static_cast<int>(s.column_int(19));
  r.final_body = s.column_text(20);
  r.error = s.column_text(21);
  return r;
}

std::int64_t read_rowid(const sqlite_statement& s) {
  return s.column_int(22);
}

std::uint64_t read_timeline_lines(const sqlite_statement& s) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(s.column_int(23), 0));
}

#define IDEM_PROGRESS_COLUMNS                                                                 \
  "first_attempt_at = ?2, attempts = ?3, attempts_finished = ?4, last_class = ?5, "           \
  "reached_server = ?6, last_outcome = ?7, final_status = ?8, final_body = ?9, error = ?10, " \
  "timeline = timeline || ?13"

const char* const update_progress_sql =
    "UPDATE intents SET " IDEM_PROGRESS_COLUMNS " WHERE rowid = ?1";
const char* const update_progress_and_state_sql =
    "UPDATE intents SET " IDEM_PROGRESS_COLUMNS ", state = ?11, finished_at = ?12 WHERE rowid = ?1";

#undef IDEM_PROGRESS_COLUMNS

intent_progress progress_of(const intent_record& r) {
  return {.first_attempt_at = r.first_attempt_at,
          .finished_at = r.finished_at,
          .attempts = r.attempts,
          .attempts_finished = r.attempts_finished,
          .last_class = r.last_class,
          .reached_server = r.reached_server,
          .state = r.state,
          .last_outcome = r.last_outcome,
          .final_status = r.final_status,
          .final_body = r.final_body.substr(0, max_stored_final_body),
          .error = r.error};
}

void bind_progress(sqlite_statement& s, std::int64_t rowid, const intent_progress& p,
                   bool with_state, std::string_view lines) {
  s.bind(1, rowid);
  s.bind_text_ref(13, lines);
  s.bind_optional(2, optional_millis(p.first_attempt_at));
  s.bind(3, p.attempts);
  s.bind(4, p.attempts_finished);
  bind_optional_name(s, 5, p.last_class);
  s.bind(6, p.reached_server ? 1 : 0);
  bind_optional_name(s, 7, p.last_outcome);
  s.bind(8, p.final_status);
  s.bind_blob_ref(9, p.final_body);
  s.bind_text_ref(10, p.error);
  if (!with_state) return;
  s.bind_text_ref(11, to_string(p.state));
  s.bind_optional(12, optional_millis(p.finished_at));
}

namespace {

// A line's fields other than its two free texts (numbers, names and tabs, at most about 90
// bytes), written into a buffer on the stack and appended at once: appended one by one they
// were some 20 calls into the string's out-of-line members per line. Each write is bounded by
// the buffer's end, so a name longer than any there is cannot overrun it.
class line_fields {
 public:
  line_fields() = default;
  line_fields(const line_fields&) = delete;  // at_ points into its own buffer
  line_fields& operator=(const line_fields&) = delete;

  template <class Int>
  line_fields& number(Int n) {
    at_ = std::to_chars(at_, end(), n).ptr;  // at end() if it does not fit (never: 20 digits)
    return *this;
  }
  line_fields& text(std::string_view s) {
    const auto n = std::min(s.size(), static_cast<std::size_t>(end() - at_));
    at_ = std::copy_n(s.data(), n, at_);
    return *this;
  }
  line_fields& tab() { return text("\t"); }
  [[nodiscard]] std::string_view view() const { return {buf_.data(), at_}; }

 private:
  char* end() { return buf_.data() + buf_.size(); }
  std::array<char, 160> buf_;
  char* at_ = buf_.data();
};

void append_escaped(std::string& out, std::string_view text) {
  for (;;) {
    const auto special = text.find_first_of("\\\t\n");
    out.append(text.substr(0, special));
    if (special == std::string_view::npos) return;
    const char c = text[special];
    out += '\\';
    out += c == '\t' ? 't' : c == '\n' ? 'n' : '\\';
    text.remove_prefix(special + 1);
  }
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    switch (text[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

template <class Int>
std::optional<Int> parse_number(std::string_view text) {
  Int n{};
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return n;
}

// One line, without its newline: eight fields, or nothing.
std::optional<timeline_entry> parse_line(std::string_view line) {
  std::array<std::string_view, 8> f;
  std::size_t n = 0;
  for (;;) {
    const auto tab = line.find('\t');
    if (n == f.size()) return std::nullopt;  // a ninth field
    f[n++] = line.substr(0, tab);
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  if (n != f.size()) return std::nullopt;
  const auto at = parse_number<std::int64_t>(f[0]);
  const auto kind = parse_name(f[1], all_kinds);
  const auto attempt = parse_number<std::uint32_t>(f[2]);
  const auto cls = f[3].empty() ? std::optional<attempt_class>{} : parse_name(f[3], all_classes);
  const auto status = parse_number<int>(f[4]);
  auto request_id = unescape(f[5]);
  const auto duration = parse_number<std::int64_t>(f[6]);
  auto detail = unescape(f[7]);
  if (!at || !kind || !attempt || (!f[3].empty() && !cls) || !status || !request_id || !duration ||
      !detail) {
    return std::nullopt;
  }
  return timeline_entry{.what = *kind,
                        .at = from_millis(*at),
                        .attempt = *attempt,
                        .cls = cls,
                        .status = *status,
                        .request_id = std::move(*request_id),
                        .duration = std::chrono::milliseconds{*duration},
                        .detail = std::move(*detail)};
}

}  // namespace

void read_as_recovered(intent_record& r) noexcept {
  if (!r.is_open() || !r.path_bound || r.last_outcome || r.maybe_sent()) return;
  ++r.attempts;
  if (!r.first_attempt_at) r.first_attempt_at = r.created_at;
}

void append_timeline_line(std::string& out, const timeline_entry& e) {
  line_fields head;
  head.number(to_millis(e.at)).tab().text(to_string(e.what)).tab().number(e.attempt).tab();
  if (e.cls) head.text(to_string(*e.cls));
  head.tab().number(e.status).tab();
  line_fields middle;
  middle.tab().number(static_cast<std::int64_t>(e.duration.count())).tab();
  // Grown geometrically: an intent's queued lines are appended one event at a time, and an
  // exact reserve per line reallocated (and copied) the text at every one.
  const std::size_t need = out.size() + head.view().size() + e.request_id.size() +
                           middle.view().size() + e.detail.size() + 1;
  if (out.capacity() < need) out.reserve(std::max(need, 2 * out.capacity()));
  out.append(head.view());
  append_escaped(out, e.request_id);
  out.append(middle.view());
  append_escaped(out, e.detail);
  out.push_back('\n');
}

std::size_t read_timeline(std::string_view text, std::vector<timeline_entry>& out) {
  std::size_t lines = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (end == std::string_view::npos) break;  // cut short: not a line (never written so)
    ++lines;
    if (auto e = parse_line(text.substr(0, end))) out.push_back(std::move(*e));
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::optional<timeline_entry> read_event(const sqlite_statement& s, std::uint64_t& seq) {
  const auto kind = parse_name(s.column_text(3), all_kinds);
  if (!kind) return std::nullopt;
  seq = static_cast<std::uint64_t>(s.column_int(0));
  return timeline_entry{.what = *kind,
                        .at = from_millis(s.column_int(2)),
                        .attempt = column_u32(s, 4),
                        .cls = parse_optional_name(s.column_optional_text(5), all_classes),
                        .status = static_cast<int>(s.column_int(6)),
                        .request_id = s.column_text(7),
                        .duration = std::chrono::milliseconds{s.column_int(8)},
                        .detail = s.column_text(9)};
}

}  // namespace idem::detail
