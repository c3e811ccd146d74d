#pragma once
// A memory store whose flush fails as a full disk would (journal_errc::full), counting flushes:
// what client::async_flush and async_shutdown report when the store cannot make its events
// durable. Its writes go to an ordinary memory store.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>
#include <optional>
#include <vector>

#include "idem/intent_store.hpp"
#include "idem/journal_error.hpp"
#include "idem/memory_intent_store.hpp"

namespace idem::test {

class unflushable_store final : public intent_store {
 public:
  void async_write(intent_event e, boost::asio::any_io_executor ex,
                   write_handler handler) override {
    inner.async_write(std::move(e), std::move(ex), std::move(handler));
  }
  void write(intent_event e) override { inner.write(std::move(e)); }
  bool durable_on_write() const noexcept override { return false; }
  void async_flush(boost::asio::any_io_executor ex, write_handler handler) override {
    ++flushes;
    boost::asio::post(ex,
                      boost::asio::append(std::move(handler), make_error_code(journal_errc::full)));
  }
  std::optional<intent_record> find(const idempotency_key& k) const override {
    return inner.find(k);
  }
  std::vector<intent_record> open_intents() const override { return inner.open_intents(); }
  std::vector<timeline_entry> timeline(const idempotency_key& k) const override {
    return inner.timeline(k);
  }

  memory_intent_store inner;
  int flushes = 0;
};

}  // namespace idem::test
