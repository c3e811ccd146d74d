// idem-cli's journal as real processes see it (contract section 9, docs/JOURNAL.md): one process
// at a time, a damaged journal is refused and left as it is, a journal the process cannot write
// sends nothing, a journal's intents are resumed only with its own token, and an intent whose
// deadline passed long ago is finished with the key it was minted with.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/idem/support/live_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/tools/support/cli_journal_fixture.hpp"

namespace idem::test::cli_journal {
namespace {

namespace fs = std::filesystem;

std::string order_json(const std::string& merchant_order_id) {
  return nlohmann::json{{"merchant_order_id", merchant_order_id},
                        {"customer_id", "c-1"},
                        {"currency", "EUR"},
                        {"amount_minor", 1500},
                        {"items", {{{"sku", "book"}, {"quantity", 3}, {"unit_price_minor", 500}}}}}
      .dump();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

using CliJournal = cli_journal_test;

TEST_F(CliJournal, ASecondProcessOnABusyJournalExitsFourAndReadingItStillWorks) {
  // Each order is held 4 s by the server: the first load holds the journal meanwhile.
  api_->set_faults(idem::kit::only(idem::kit::on_create("delay", {{"delay_ms", 4000}})));
  cli_process first(with_server("load", {"--orders", "2", "--deadline", "20s"}));
  // Its first request arrived: its journal is open and its plan durable.
  ASSERT_TRUE(idem::kit::eventually([&] { return stat("requests") >= 1; }));

  const cli_result second = run(with_server("load", {"--orders", "1", "--deadline", "20s"}));
  EXPECT_EQ(second.exit_code(), 4) << second.dump();
  EXPECT_NE(second.err.find(journal_), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("in use"), std::string::npos) << second.err;
  EXPECT_TRUE(second.out.empty()) << second.out;

  const cli_result reader = run({"journal", "--journal", journal_});
  EXPECT_EQ(reader.exit_code(), 0) << reader.dump();
  EXPECT_EQ(last_json_line(reader.out).value("intents", -1), 2) << reader.out;  // the first's

  auto done = first.wait_for(60s);
  ASSERT_TRUE(done.has_value()) << "the first load never ended";
  EXPECT_EQ(done->exit_code(), 0) << done->dump();
  EXPECT_EQ(stat("orders"), 2);
  EXPECT_EQ(stat("requests"), 2) << "the refused load sent something";
}

// A finished load's journal, damaged by `damage`: load and resume refuse it (exit 4, the reason
// on stderr) and leave it exactly as it is; nothing is sent.
class CliDamagedJournal : public cli_journal_test {
 protected:
  void expect_refused_and_untouched(void (*damage)(const std::string& path)) {
    const cli_result load = run(load_args(10));
    ASSERT_EQ(load.exit_code(), 0) << load.dump();
    damage(journal_);
    if (HasFatalFailure()) return;
    const std::string damaged = bytes_of(journal_);
    const auto requests = stat("requests");

    for (const strings& args : {resume_args(), load_args(1)}) {
      const cli_result r = run(args);
      EXPECT_EQ(r.exit_code(), 4) << args[0] << ": " << r.dump();
      EXPECT_NE(r.err.find("cannot open journal " + journal_), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("damaged"), std::string::npos) << r.err;
      EXPECT_EQ(bytes_of(journal_), damaged) << args[0] << " changed the damaged journal";
    }
    const cli_result reader = run({"journal", "--journal", journal_});
    EXPECT_EQ(reader.exit_code(), 4) << reader.dump();
    EXPECT_EQ(bytes_of(journal_), damaged);
    EXPECT_EQ(stat("requests"), requests) << "something was sent on a damaged journal";
  }
};

TEST_F(CliDamagedJournal, OverwrittenMiddlePageIsRefusedAndLeftUntouched) {
  expect_refused_and_untouched([](const std::string& path) {
    std::string bytes = bytes_of(path);
    ASSERT_GE(bytes.size(), 100u);
    // The page size is the header's big-endian u16 at offset 16 (1 means 65536).
    std::size_t page =
        (static_cast<unsigned char>(bytes[16]) << 8) | static_cast<unsigned char>(bytes[17]);
    if (page == 1) page = 65'536;
    const std::size_t pages = bytes.size() / page;
    ASSERT_GE(pages, 3u) << "too small a journal to damage its middle";
    const std::size_t first = pages / 2 * page;
    for (std::size_t n = first; n < first + page; ++n)
      bytes[n] = static_cast<char>(0xA5 ^ (n & 0xFF));
    write_bytes(path, bytes);
  });
}

TEST_F(CliDamagedJournal, TruncatedToHalfIsRefusedAndLeftUntouched) {
  expect_refused_and_untouched(
      [](const std::string& path) { fs::resize_file(path, fs::file_size(path) / 2); });
}

// A journal written by root, then submitted to by nobody (file modes do not bind root).
class CliReadOnlyJournal : public cli_journal_test {
 protected:
  void SetUp() override {
    cli_journal_test::SetUp();
    // The journal exists: an earlier submit, against a port where nothing listens, wrote it.
    const auto dead = "http://127.0.0.1:" + std::to_string(live::unused_port());
    const cli_result setup = run({"submit", "--url", dead, "--token", token, "--path", "/v1/orders",
                                  "--data", order_json("ro-0"), "--business-id", "ro-0",
                                  "--deadline", "1s", "--journal", journal_});
    ASSERT_EQ(setup.exit_code(), 3) << setup.dump();
    ASSERT_TRUE(fs::exists(journal_));
    // Root's files, 0644; nobody may enter the directory and read them, not write.
    fs::permissions(dir_.path(), fs::perms(0755));
    for (const auto& f : fs::directory_iterator(dir_.path())) {
      if (f.path().string().starts_with(journal_)) fs::permissions(f.path(), fs::perms(0644));
    }
  }

  // `submit --journal` as nobody: nothing is sent, and the outcome says why.
  void expect_not_sent_for_lack_of_a_journal() {
    const std::string before = bytes_of(journal_);
    const cli_result r = run(
        {"submit", "--url", url(), "--token", token, "--path", "/v1/orders", "--data",
         order_json("ro-1"), "--business-id", "ro-1", "--deadline", "5s", "--journal", journal_},
        {.unprivileged = true});
    EXPECT_EQ(r.exit_code(), 3) << r.dump();
    const auto outcome = last_json_line(r.out);
    EXPECT_EQ(outcome.value("outcome", ""), "not_sent") << r.dump();
    EXPECT_EQ(outcome.value("error", ""), "journal-unavailable") << r.dump();
    EXPECT_NE(r.err.find("cannot open journal " + journal_), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot be written"), std::string::npos) << r.err;
    EXPECT_EQ(stat("requests"), 0);
    EXPECT_EQ(bytes_of(journal_), before);
  }
};

TEST_F(CliReadOnlyJournal, SubmitInADirectoryItCannotWriteSendsNothingAndSaysSo) {
  // Here the lock file (root's, 0644) already stops it.
  expect_not_sent_for_lack_of_a_journal();
}

TEST_F(CliReadOnlyJournal, SubmitToAWriteProtectedJournalFileSendsNothingAndSaysSo) {
  // The lock file may be taken: the journal file itself is what cannot be written.
  fs::permissions(journal_ + ".lock", fs::perms(0666));
  expect_not_sent_for_lack_of_a_journal();
}

// A newcomer who clones as root into root's home folder (0700) ran the two tests above with
// exit 127: nobody could not reach the binary. The child now runs a copy anyone may reach.
TEST(CliUnprivileged, ABinaryInAFolderOnlyRootMayEnterStillRunsAsNobody) {
  idem::kit::temp_dir home;
  fs::permissions(home.path(), fs::perms(0700));
  const auto binary = home.path() / "idem-cli";
  fs::copy_file(idem::kit::idem_cli_binary(), binary);
  const cli_result r =
      idem::kit::run_cli_to_exit({"--help"}, {.unprivileged = true, .binary = binary.string()});
  EXPECT_EQ(r.exit_code(), 0) << r.dump();
  EXPECT_NE(r.out.find("idem-cli"), std::string::npos) << r.dump();
}

TEST_F(CliJournal, ResumeWithAnotherTokenIsRefusedAndSendsNothing) {
  const cli_result load = run(load_args(2), crash_at("planned"));
  ASSERT_EQ(load.signal(), SIGKILL) << load.dump();
  // The orders read as maybe sent (their starts need no commit of their own: docs/JOURNAL.md),
  // the payments, their paths never bound, as not sent.
  const auto planned = journal_counts();
  ASSERT_EQ(planned.value("intents", -1), 4) << planned.dump();
  ASSERT_EQ(planned.value("unresolved", -1), 2) << planned.dump();

  const cli_result foreign = run(resume_args("tenant-b"));
  EXPECT_EQ(foreign.exit_code(), 2) << foreign.dump();
  EXPECT_NE(foreign.err.find("another token"), std::string::npos) << foreign.err;
  EXPECT_EQ(stat("requests"), 0);
  EXPECT_EQ(journal_counts(), planned);

  // The journal's own token resumes them: the refusal was about the token.
  const cli_result own = run(resume_args());
  EXPECT_EQ(own.exit_code(), 0) << own.dump();
  EXPECT_EQ(stat("orders"), 2);
  EXPECT_EQ(stat("payments"), 2);
}

TEST_F(CliJournal, AnIntentWhoseDeadlinePassedLongAgoIsResumedWithItsOwnKey) {
  // Every request, lookups included, is refused: the submit runs out of time, unresolved.
  nlohmann::json refuse_all = {
      {"match", nlohmann::json::object()}, {"fault", "status_before_processing"}, {"status", 503}};
  api_->set_faults(idem::kit::only(std::move(refuse_all)));
  const std::string body = order_json("late-1");
  const cli_result submit =
      run({"submit", "--url", url(), "--token", token, "--path", "/v1/orders", "--data", body,
           "--business-id", "late-1", "--deadline", "1s", "--journal", journal_});
  ASSERT_EQ(submit.exit_code(), 3) << submit.dump();
  const auto first = last_json_line(submit.out);
  ASSERT_EQ(first.value("outcome", ""), "unresolved") << submit.dump();
  const std::string key = first.value("key", "");
  const int first_attempts = first.value("attempts", 0);
  ASSERT_GE(first_attempts, 1);

  ASSERT_EQ(api_->admin("DELETE", "/_mock/faults").res.status, 204);
  const cli_result resume = run(resume_args());
  ASSERT_EQ(resume.exit_code(), 0) << resume.dump();
  const auto summary = last_json_line(resume.out);
  EXPECT_EQ(summary.value("intents", -1), 1) << summary.dump();
  EXPECT_EQ(summary.value("succeeded", -1), 1) << summary.dump();
  const int resumed_attempts = summary.value("attempts", 0);

  // The journal holds one intent, and every attempt of both processes is on its key's timeline.
  EXPECT_EQ(journal_counts().value("intents", -1), 1);
  const cli_result show = run({"journal", "--journal", journal_, "--show", key});
  ASSERT_EQ(show.exit_code(), 0) << show.dump();
  const auto record = last_json_line(show.out);
  EXPECT_EQ(record.value("state", ""), "succeeded") << record.dump();
  // An attempt written down whose journal commit then took the time left for it (a 1 s
  // deadline) is closed as not sent, never sent: on the timeline, not among the writes.
  int started = 0, written_not_sent = 0;
  for (const auto& line : record.at("timeline")) {
    if (line.value("event", "") == "attempt_started") {
      EXPECT_EQ(line.value("attempt", 0), ++started);
    }
    if (line.value("event", "") == "attempt_finished" && line.value("class", "") == "not_sent" &&
        line.value("detail", "").find("journal's commit") != std::string::npos) {
      ++written_not_sent;
    }
  }
  EXPECT_EQ(record.value("attempts", -1), started) << record.dump();
  EXPECT_EQ(started - written_not_sent, first_attempts + resumed_attempts) << record.dump();

  // The server executed it once, under that key: the key replays the order.
  EXPECT_EQ(stat("orders"), 1);
  EXPECT_EQ(stat("max_keys_per_business_id"), 1);
  const auto replay = api_->post("/v1/orders", key, nlohmann::json::parse(body));
  EXPECT_EQ(replay.res.status, 201) << replay.res.body;
  EXPECT_EQ(replay.res.header("Idempotent-Replayed").value_or(""), "true");
}

// A plan of 600 intents takes the journal's writer thread several commits. It used to release
// its hold on the CLI's event loop after the plan's last completion, and the loop then stopped
// before the run began: the load printed "succeeded":0 for a fully planned journal (5 runs in 6
// at 1,000 orders). Each run of this test repeats it three times.
TEST_F(CliJournal, ALargePlanIsRunToTheEndRightAfterItIsWrittenDown) {
  for (int round = 0; round < 3; ++round) {
    journal_ = dir_.file("big-" + std::to_string(round) + ".journal");
    const cli_result r = run(load_args(300));
    ASSERT_EQ(r.exit_code(), 0) << r.dump();
    const auto summary = last_json_line(r.out);
    EXPECT_EQ(summary.value("succeeded", -1), 600) << summary.dump();
    EXPECT_EQ(journal_counts().value("succeeded", -1), 600);
  }
  EXPECT_EQ(stat("orders"), 900);
  EXPECT_EQ(stat("payments"), 900);
}

}  // namespace
}  // namespace idem::test::cli_journal
