#include "mock_server/storage/record_store.hpp"
#include "tests/support/temp_db_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "mock_server/storage/schema.hpp"

namespace idem::mock {
namespace {

constexpr std::int64_t record_t0 = 1'795'989'600'000;  // 2026-11-29T22:00:00Z
constexpr std::int64_t lease_ms = 30'000;
constexpr std::int64_t ttl_ms = 24 * 3600 * 1000;

const record_scope scope_a{.principal = "alice", .operation = "POST /v1/orders", .key = "k-1"};

using kit::temp_db_file;

claim_request claim_for(const record_scope& scope, const std::string& owner,
                        const std::string& request_id, std::int64_t now = record_t0) {
  return {.scope = scope,
          .fingerprint = "fp-" + scope.key,
          .request_id = request_id,
          .lease_owner = owner,
          .now_ms = now,
          .lease_now_ms = now,
          .lease_expires_at_ms = now + lease_ms,
          .request = R"({"path":"/v1/orders","body":{}})"};
}

stored_response created_response() {
  return {.status = 201,
          .headers = {{"Location", "/v1/orders/ord_1"}, {"Content-Type", "application/json"}},
          .body = R"({"id":"ord_1"})"};
}

class record_store_test : public ::testing::Test {
 protected:
  void SetUp() override { create_schema(db); }

  // Claims scope_a for "owner-1" and returns the record.
  idempotency_record claim_a() {
    EXPECT_TRUE(records.try_claim(claim_for(scope_a, "owner-1", "req_1")));
    auto r = records.find(scope_a);
    EXPECT_TRUE(r.has_value());
    return r.value_or(idempotency_record{});
  }

  // Claims and completes a record for `key`, expiring at `expires_at`.
  idempotency_record completed(const std::string& key, std::int64_t expires_at) {
    record_scope scope{.principal = "alice", .operation = "POST /v1/orders", .key = key};
    EXPECT_TRUE(records.try_claim(claim_for(scope, "owner", "req_" + key)));
    auto r = *records.find(scope);
    EXPECT_TRUE(records.complete(r.id, "owner", created_response(), record_t0, expires_at));
    return *records.find(scope);
  }

  database db{":memory:"};
  record_store records{db};
};

TEST_F(record_store_test, FirstClaimCreatesAProcessingRecordOwnedByTheClaimer) {
  auto r = claim_a();
  EXPECT_GT(r.id, 0);
  EXPECT_EQ(r.scope.principal, "alice");
  EXPECT_EQ(r.scope.operation, "POST /v1/orders");
  EXPECT_EQ(r.scope.key, "k-1");
  EXPECT_EQ(r.fingerprint, "fp-k-1");
  EXPECT_EQ(r.state, record_state::processing);
  EXPECT_EQ(r.recovery_point, "");
  EXPECT_EQ(r.resource_id, "");
  EXPECT_FALSE(r.response.has_value());
  EXPECT_EQ(r.lease_owner, "owner-1");
  EXPECT_EQ(r.lease_expires_at_ms, record_t0 + lease_ms);
  EXPECT_EQ(r.created_at_ms, record_t0);
  EXPECT_FALSE(r.expires_at_ms.has_value());
  EXPECT_EQ(r.request_id, "req_1");
}

TEST_F(record_store_test, SecondClaimOfTheSameScopeLosesAndChangesNothing) {
  auto first = claim_a();
  auto second = claim_for(scope_a, "owner-2", "req_2", record_t0 + 1);
  second.fingerprint = "another-fingerprint";
  EXPECT_FALSE(records.try_claim(second));

  auto r = records.find(scope_a);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, first.id);
  EXPECT_EQ(r->lease_owner, "owner-1");
  EXPECT_EQ(r->fingerprint, "fp-k-1");
  EXPECT_EQ(r->request_id, "req_1");
  EXPECT_EQ(records.count(), 1);
}

TEST_F(record_store_test, SecondClaimLosesEvenAfterTheFirstCompleted) {
  auto first = claim_a();
  ASSERT_TRUE(
      records.complete(first.id, "owner-1", created_response(), record_t0, record_t0 + ttl_ms));
  EXPECT_FALSE(records.try_claim(claim_for(scope_a, "owner-2", "req_2")));
}

TEST_F(record_store_test, SameKeyUnderAnotherPrincipalIsASeparateRecord) {
  claim_a();
  record_scope bob = scope_a;
  bob.principal = "bob";
  EXPECT_TRUE(records.try_claim(claim_for(bob, "owner-2", "req_2")));
  EXPECT_EQ(records.find(bob)->lease_owner, "owner-2");
  EXPECT_EQ(records.find(scope_a)->lease_owner, "owner-1");
  EXPECT_EQ(records.count(), 2);
}

TEST_F(record_store_test, SameKeyUnderAnotherOperationIsASeparateRecord) {
  claim_a();
  record_scope pay = scope_a;
  pay.operation = "POST /v1/orders/{id}/payments";
  EXPECT_TRUE(records.try_claim(claim_for(pay, "owner-2", "req_2")));
  EXPECT_EQ(records.find(pay)->lease_owner, "owner-2");
  EXPECT_EQ(records.count(), 2);
}

TEST_F(record_store_test, ClaimWithARequestIdAlreadyInUseThrowsInsteadOfLosing) {
  claim_a();
  record_scope other = scope_a;
  other.key = "k-2";
  EXPECT_THROW(records.try_claim(claim_for(other, "owner-2", "req_1")), sqlite_error);
  EXPECT_FALSE(records.find(other));
}

TEST_F(record_store_test, ClaimInATransactionThatRollsBackLeavesTheKeyFree) {
  {
    transaction txn{db};
    EXPECT_TRUE(records.try_claim(claim_for(scope_a, "owner-1", "req_1")));
  }
  EXPECT_FALSE(records.find(scope_a));
  EXPECT_TRUE(records.try_claim(claim_for(scope_a, "owner-2", "req_2")));
}

TEST_F(record_store_test, FindOfAnUnknownScopeIsEmpty) {
  EXPECT_FALSE(records.find(scope_a));
}

TEST_F(record_store_test, FindByRequestIdIsScopedToThePrincipal) {
  auto r = claim_a();
  auto found = records.find_by_request_id("alice", "req_1");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, r.id);
  EXPECT_FALSE(records.find_by_request_id("bob", "req_1"));
  EXPECT_FALSE(records.find_by_request_id("alice", "req_unknown"));
}

TEST_F(record_store_test, OnlyTheCurrentLeaseOwnerOwnsTheRecord) {
  auto r = claim_a();
  EXPECT_TRUE(records.is_owner(r.id, "owner-1"));
  EXPECT_FALSE(records.is_owner(r.id, "owner-2"));
  ASSERT_TRUE(records.take_over(r.id, "owner-1", "owner-2", record_t0 + lease_ms,
                                record_t0 + 2 * lease_ms));
  EXPECT_FALSE(records.is_owner(r.id, "owner-1"));
  EXPECT_TRUE(records.is_owner(r.id, "owner-2"));
  ASSERT_TRUE(records.complete(r.id, "owner-2", created_response(), record_t0, record_t0 + ttl_ms));
  EXPECT_FALSE(records.is_owner(r.id, "owner-2"));  // nothing left to own once COMPLETED
}

TEST_F(record_store_test, TakeOverFailsWhileTheLeaseIsLive) {
  auto r = claim_a();
  EXPECT_FALSE(records.take_over(r.id, "owner-1", "owner-2", r.lease_expires_at_ms - 1,
                                 record_t0 + 2 * lease_ms));
  EXPECT_EQ(records.find(scope_a)->lease_owner, "owner-1");
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, record_t0 + lease_ms);
}

TEST_F(record_store_test, TakeOverSucceedsWhenTheLeaseExpiresExactlyNow) {
  auto r = claim_a();
  EXPECT_TRUE(records.take_over(r.id, "owner-1", "owner-2", r.lease_expires_at_ms,
                                r.lease_expires_at_ms + lease_ms));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->lease_owner, "owner-2");
  EXPECT_EQ(after->lease_expires_at_ms, r.lease_expires_at_ms + lease_ms);
}

TEST_F(record_store_test, TakeOverAfterExpirySucceedsOnceAndTheCasLoserFails) {
  auto r = claim_a();
  const auto later = r.lease_expires_at_ms + 1;
  // Both contenders read the same expired record (owner-1) before either acted.
  EXPECT_TRUE(records.take_over(r.id, "owner-1", "owner-2", later, later + lease_ms));
  EXPECT_FALSE(records.take_over(r.id, "owner-1", "owner-3", later, later + lease_ms));
  EXPECT_EQ(records.find(scope_a)->lease_owner, "owner-2");
}

TEST_F(record_store_test, TakeOverBasedOnAStaleReadOfTheOwnerFails) {
  auto r = claim_a();
  ASSERT_TRUE(records.take_over(r.id, "owner-1", "owner-2", record_t0 + lease_ms,
                                record_t0 + 2 * lease_ms));
  // owner-2's lease has run out too, but this contender still believes owner-1 holds it.
  const auto much_later = record_t0 + 10 * lease_ms;
  EXPECT_FALSE(records.take_over(r.id, "owner-1", "owner-3", much_later, much_later + lease_ms));
  EXPECT_EQ(records.find(scope_a)->lease_owner, "owner-2");
  EXPECT_TRUE(records.take_over(r.id, "owner-2", "owner-3", much_later, much_later + lease_ms));
}

TEST_F(record_store_test, TakeOverKeepsTheRequestIdAndTheRecoveryPoint) {
  auto r = claim_a();
  ASSERT_TRUE(records.set_recovery_point(r.id, "owner-1", "charged", "ord_1"));
  ASSERT_TRUE(records.take_over(r.id, "owner-1", "owner-2", record_t0 + lease_ms,
                                record_t0 + 2 * lease_ms));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->request_id, "req_1");
  EXPECT_EQ(after->recovery_point, "charged");
  EXPECT_EQ(after->resource_id, "ord_1");
  EXPECT_EQ(after->id, r.id);
}

TEST_F(record_store_test, TakeOverOfACompletedRecordFails) {
  auto r = claim_a();
  ASSERT_TRUE(records.complete(r.id, "owner-1", created_response(), record_t0, record_t0 + ttl_ms));
  EXPECT_FALSE(records.take_over(r.id, "owner-1", "owner-2", record_t0 + 10 * lease_ms,
                                 record_t0 + 11 * lease_ms));
  EXPECT_EQ(records.find(scope_a)->state, record_state::completed);
}

TEST_F(record_store_test, OwnerRecordsARecoveryPoint) {
  auto r = claim_a();
  EXPECT_TRUE(records.set_recovery_point(r.id, "owner-1", "order_inserted", "ord_1"));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->recovery_point, "order_inserted");
  EXPECT_EQ(after->resource_id, "ord_1");
}

TEST_F(record_store_test, RecoveryPointByANonOwnerFailsAndChangesNothing) {
  auto r = claim_a();
  ASSERT_TRUE(records.set_recovery_point(r.id, "owner-1", "step-1", "ord_1"));
  EXPECT_FALSE(records.set_recovery_point(r.id, "intruder", "step-2", "ord_2"));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->recovery_point, "step-1");
  EXPECT_EQ(after->resource_id, "ord_1");
}

TEST_F(record_store_test, ExecutorThatLostItsLeaseCanNeitherRecordProgressNorComplete) {
  auto r = claim_a();
  ASSERT_TRUE(records.take_over(r.id, "owner-1", "owner-2", record_t0 + lease_ms,
                                record_t0 + 2 * lease_ms));
  EXPECT_FALSE(records.set_recovery_point(r.id, "owner-1", "late", "ord_late"));
  EXPECT_FALSE(
      records.complete(r.id, "owner-1", created_response(), record_t0, record_t0 + ttl_ms));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->state, record_state::processing);
  EXPECT_EQ(after->recovery_point, "");
  EXPECT_FALSE(after->response);
}

TEST_F(record_store_test, OwnerCompletesWithTheResponseAndExpiry) {
  auto r = claim_a();
  const auto done_at = record_t0 + 500;
  EXPECT_TRUE(records.complete(r.id, "owner-1", created_response(), done_at, done_at + ttl_ms));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->state, record_state::completed);
  ASSERT_TRUE(after->response);
  EXPECT_EQ(after->response->status, 201);
  EXPECT_EQ(after->response->headers, created_response().headers);  // order kept
  EXPECT_EQ(after->response->body, R"({"id":"ord_1"})");
  EXPECT_EQ(after->expires_at_ms, done_at + ttl_ms);
  EXPECT_EQ(after->created_at_ms, record_t0);
  EXPECT_EQ(after->request_id, "req_1");
}

TEST_F(record_store_test, CompletionWithoutHeadersOrBodyRoundTrips) {
  auto r = claim_a();
  ASSERT_TRUE(records.complete(r.id, "owner-1",
                               stored_response{.status = 204, .headers = {}, .body = ""}, record_t0,
                               record_t0 + ttl_ms));
  auto after = records.find(scope_a);
  ASSERT_TRUE(after->response);
  EXPECT_EQ(after->response->status, 204);
  EXPECT_TRUE(after->response->headers.empty());
  EXPECT_EQ(after->response->body, "");
}

TEST_F(record_store_test, CompleteByANonOwnerFailsAndChangesNothing) {
  auto r = claim_a();
  EXPECT_FALSE(
      records.complete(r.id, "intruder", created_response(), record_t0, record_t0 + ttl_ms));
  auto after = records.find(scope_a);
  EXPECT_EQ(after->state, record_state::processing);
  EXPECT_FALSE(after->response);
  EXPECT_FALSE(after->expires_at_ms);
}

TEST_F(record_store_test, CompletedRecordCannotBeCompletedAgain) {
  auto r = claim_a();
  ASSERT_TRUE(records.complete(r.id, "owner-1", created_response(), record_t0, record_t0 + ttl_ms));
  stored_response other{.status = 500, .headers = {}, .body = "other"};
  EXPECT_FALSE(records.complete(r.id, "owner-1", other, record_t0 + 1, record_t0 + 1 + ttl_ms));
  EXPECT_EQ(records.find(scope_a)->response->status, 201);
}

TEST_F(record_store_test, ReleaseByTheOwnerFreesTheKey) {
  auto r = claim_a();
  EXPECT_TRUE(records.release(r.id, "owner-1"));
  EXPECT_FALSE(records.find(scope_a));
  EXPECT_TRUE(records.try_claim(claim_for(scope_a, "owner-2", "req_2")));
}

TEST_F(record_store_test, ReleaseByANonOwnerFailsAndKeepsTheRecord) {
  auto r = claim_a();
  EXPECT_FALSE(records.release(r.id, "intruder"));
  EXPECT_TRUE(records.find(scope_a));
}

TEST_F(record_store_test, ReleaseNeverDeletesACompletedRecord) {
  auto r = claim_a();
  ASSERT_TRUE(records.complete(r.id, "owner-1", created_response(), record_t0, record_t0 + ttl_ms));
  EXPECT_FALSE(records.release(r.id, "owner-1"));
  EXPECT_TRUE(records.find(scope_a));
}

TEST_F(record_store_test, ExpiredLeaseLetsTheNextRequestTakeOverAtOnce) {
  auto r = claim_a();
  const auto now = record_t0 + 10;
  EXPECT_TRUE(records.expire_lease(r.id, "owner-1", now));
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, now);
  EXPECT_TRUE(records.take_over(r.id, "owner-1", "owner-2", now, now + lease_ms));
}

TEST_F(record_store_test, ExpiringALeaseNeverLengthensIt) {
  auto r = claim_a();
  EXPECT_TRUE(records.expire_lease(r.id, "owner-1", r.lease_expires_at_ms + 1000));
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, r.lease_expires_at_ms);
}

TEST_F(record_store_test, ExpireLeaseByANonOwnerFailsAndKeepsTheLease) {
  auto r = claim_a();
  EXPECT_FALSE(records.expire_lease(r.id, "intruder", record_t0));
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, record_t0 + lease_ms);
}

TEST_F(record_store_test, ExtendingALeaseLengthensItAndKeepsOthersOut) {
  auto r = claim_a();
  const auto later = r.lease_expires_at_ms + 5000;
  EXPECT_TRUE(records.extend_lease(r.id, "owner-1", later));
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, later);
  // Past the claimed lease, inside the extended one: nobody takes it over.
  EXPECT_FALSE(records.take_over(r.id, "owner-1", "owner-2", r.lease_expires_at_ms + 1, later));
}

TEST_F(record_store_test, ExtendingALeaseNeverShortensItAndOnlyTheOwnerMay) {
  auto r = claim_a();
  EXPECT_TRUE(records.extend_lease(r.id, "owner-1", record_t0));
  EXPECT_FALSE(records.extend_lease(r.id, "intruder", r.lease_expires_at_ms + 5000));
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, r.lease_expires_at_ms);
  const auto done = completed("k-done", record_t0 + ttl_ms);
  EXPECT_FALSE(records.extend_lease(done.id, "owner", record_t0 + ttl_ms));
}

TEST_F(record_store_test, DeleteIfExpiredRemovesACompletedRecordOnlyOnceItExpired) {
  auto r = completed("k-1", record_t0 + ttl_ms);
  EXPECT_FALSE(records.delete_if_expired(r.id, record_t0 + ttl_ms - 1));
  EXPECT_TRUE(records.find(scope_a));
  EXPECT_TRUE(records.delete_if_expired(r.id, record_t0 + ttl_ms));
  EXPECT_FALSE(records.find(scope_a));
}

TEST_F(record_store_test, DeleteIfExpiredNeverRemovesAProcessingRecord) {
  auto r = claim_a();
  EXPECT_FALSE(records.delete_if_expired(r.id, record_t0 + 100 * ttl_ms));
  EXPECT_TRUE(records.find(scope_a));
}

TEST_F(record_store_test, PurgeRemovesOnlyExpiredCompletedRecords) {
  completed("expired-long-ago", record_t0 + 1);
  completed("expires-exactly-now", record_t0 + ttl_ms);
  completed("still-valid", record_t0 + ttl_ms + 1);
  claim_a();  // PROCESSING, lease long gone by then
  EXPECT_EQ(records.purge_expired(record_t0 + ttl_ms), 2);

  auto key_exists = [&](const std::string& key) {
    return records.find({.principal = "alice", .operation = "POST /v1/orders", .key = key})
        .has_value();
  };
  EXPECT_FALSE(key_exists("expired-long-ago"));
  EXPECT_FALSE(key_exists("expires-exactly-now"));
  EXPECT_TRUE(key_exists("still-valid"));
  EXPECT_TRUE(key_exists("k-1"));
  EXPECT_EQ(records.count(), 2);
}

TEST_F(record_store_test, PurgeNeverRemovesProcessingRecordsHoweverOld) {
  auto r = claim_a();
  ASSERT_TRUE(records.expire_lease(r.id, "owner-1", record_t0));
  EXPECT_EQ(records.purge_expired(record_t0 + 1000 * ttl_ms), 0);
  EXPECT_EQ(records.find(scope_a)->state, record_state::processing);
}

TEST_F(record_store_test, PurgedKeyCanBeClaimedAgainWithANewRequestId) {
  auto r = completed("k-1", record_t0 + ttl_ms);
  ASSERT_EQ(records.purge_expired(record_t0 + ttl_ms), 1);
  EXPECT_TRUE(records.try_claim(claim_for(scope_a, "owner-2", "req_again", record_t0 + ttl_ms)));
  auto again = records.find(scope_a);
  EXPECT_NE(again->id, r.id);
  EXPECT_EQ(again->request_id, "req_again");
}

TEST_F(record_store_test, ExpireAllLeasesExpiresEveryProcessingRecordAndNothingElse) {
  auto r = claim_a();
  record_scope other = scope_a;
  other.key = "k-2";
  ASSERT_TRUE(records.try_claim(claim_for(other, "owner-9", "req_9")));
  auto done = completed("k-3", record_t0 + ttl_ms);

  EXPECT_EQ(records.expire_all_leases(), 2);
  EXPECT_EQ(records.find(scope_a)->lease_expires_at_ms, 0);
  EXPECT_EQ(records.find(other)->lease_expires_at_ms, 0);
  EXPECT_EQ(records.find(done.scope)->lease_expires_at_ms, done.lease_expires_at_ms);
  // The first request after the restart takes over at once, whatever the time.
  EXPECT_TRUE(records.take_over(r.id, "owner-1", "owner-new", record_t0, record_t0 + lease_ms));
}

TEST_F(record_store_test, CountCountsRecordsInEveryState) {
  EXPECT_EQ(records.count(), 0);
  claim_a();
  completed("k-2", record_t0 + ttl_ms);
  EXPECT_EQ(records.count(), 2);
}

TEST(record_store_file, ProcessingRecordLeftByACrashedRunIsTakenOverAfterReopening) {
  temp_db_file file;
  std::int64_t id = 0;
  {
    database db{file.path()};
    create_schema(db);
    record_store records{db};
    ASSERT_TRUE(records.try_claim(claim_for(scope_a, "run-1:1", "req_1")));
    id = records.find(scope_a)->id;
    ASSERT_TRUE(records.set_recovery_point(id, "run-1:1", "charged", "ord_1"));
  }  // the "crash": the connection goes away with the record PROCESSING

  database db{file.path()};
  create_schema(db);
  record_store records{db};
  EXPECT_EQ(records.expire_all_leases(), 1);
  auto r = records.find(scope_a);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->recovery_point, "charged");
  EXPECT_TRUE(records.take_over(id, "run-1:1", "run-2:1", record_t0, record_t0 + lease_ms));
}

}  // namespace
}  // namespace idem::mock
