// A small HTTP/1.0 GET for presplitctl's commands that read the daemon's endpoint (top): plain
// TCP, one request, the whole body, bounded by a timeout. Not a general HTTP client.
#pragma once

#include <chrono>
#include <string>

#include "presplit/status.h"

namespace presplit::ctl {

// GET http://host:port/path. The body on a 200; an error naming the address and the status line
// (or the socket error) otherwise.
Result<std::string> HttpGet(const std::string& host_port, const std::string& path,
                            std::chrono::milliseconds timeout);

// The same GET, any status: its code and body (a JSON error's message is in the body). An error
// only when no HTTP response came.
struct HttpReply {
  int code = 0;
  std::string status_line;  // "HTTP/1.0 404 Not Found"
  std::string body;
};
Result<HttpReply> HttpGetAny(const std::string& host_port, const std::string& path,
                             std::chrono::milliseconds timeout);

}  // namespace presplit::ctl
