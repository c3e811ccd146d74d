// idem-mock-server: the bundled mock server (contract sections 1-7).
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "mock_server/admin/admin_token.hpp"
#include "mock_server/command_line.hpp"
#include "mock_server/http/http_server.hpp"
#include "mock_server/server.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  idem::mock::environment env;
  if (const char* token = std::getenv(idem::mock::admin_token_variable)) {
    env[idem::mock::admin_token_variable] = token;
  }
  auto parsed = idem::mock::parse_command_line(args, env);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "idem-mock-server: " << *error << '\n' << idem::mock::short_usage();
    return 2;
  }
  auto& cmd = std::get<idem::mock::command_line>(parsed);
  if (!cmd.print.empty()) {  // --help or --version
    std::cout << cmd.print;
    return 0;
  }
  std::signal(SIGPIPE, SIG_IGN);
  // As servers do: the soft descriptor limit up to the hard one, so that --max-connections is
  // not cut short by a low default (the server lowers it to what the limit holds, and says so).
  idem::mock::raise_descriptor_limit();

  try {
    boost::asio::io_context io{1};
    idem::mock::server server{io, cmd.options};
    server.start();
    // Before the address is printed: whoever reads it may send SIGTERM at once, and the
    // default action would end the server without its graceful stop.
    boost::asio::signal_set signals{io, SIGINT, SIGTERM};
    auto ep = server.local_endpoint();
    std::string host = ep.address().to_string();
    if (ep.address().is_v6()) {  // not "[" + host + "]": GCC 12 warns falsely (-Wrestrict)
      host.insert(host.begin(), '[');
      host.push_back(']');
    }
    std::cout << "listening on http://" << host << ':' << ep.port() << std::endl;

    signals.async_wait([&](boost::system::error_code ec, int signo) {
      if (ec) return;
      std::cerr << "idem-mock-server: signal " << signo << ", finishing in-flight requests\n";
      server.shutdown([&io] { io.stop(); });
    });
    io.run();
    std::cerr << "idem-mock-server: stopped\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "idem-mock-server: " << e.what() << '\n';
    return 1;
  }
}
