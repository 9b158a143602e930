#pragma once
// Runs an io_context on the calling thread, as a server's io thread does: an exception out of
// a completion handler (memory short while reading a request, say) leaves run(); that
// handler's connection is then gone (closed with its last owner), and the thread logs it and
// goes back to serving the others instead of ending the process. Returns when the context
// is stopped or out of work.
#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <string_view>

namespace tern::net {

// `who` names the server in the log ("http server on port 4318", "tern sink").
inline void run_io_context(boost::asio::io_context& ioc, std::string_view who) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("{}: a connection failed and was closed: {}", who, e.what());
    } catch (...) {
      spdlog::error("{}: a connection failed and was closed", who);
    }
  }
}

}  // namespace tern::net
