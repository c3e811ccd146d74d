#pragma once
// The value of header `f` in a Beast response, or "" when it has none.

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

namespace idem::mock::test {

[[nodiscard]] inline std::string header_of(
    const boost::beast::http::response<boost::beast::http::string_body>& res,
    boost::beast::http::field f) {
  auto it = res.find(f);
  return it == res.end() ? std::string{} : std::string(it->value());
}

}  // namespace idem::mock::test
