#include "play/web_server.h"

#include <httplib.h>

#include "core/error.h"

namespace othello::play {

namespace {
constexpr std::size_t kWorkers = 96;  // threads serving connections (idle ones sleep)
}  // namespace

struct WebServer::Impl {
  explicit Impl(WebApi& a) : api(a) {}
  WebApi& api;
  httplib::Server server;
};

WebServer::WebServer(WebApi& api) : impl_(std::make_unique<Impl>(api)) {
  httplib::Server& server = impl_->server;
  server.set_payload_max_length(64 * 1024);
  // Connections that open and then send nothing (or trickle) hold a worker thread each
  // until the read timeout: enough workers, and short timeouts, keep the page answering
  // while dozens of them are open (tests/play/web_fuzz.py).
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  server.set_read_timeout(2, 0);
  server.set_keep_alive_timeout(2);
  auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    const HttpReply reply = impl_->api.Handle(request.method, request.path, request.body);
    response.status = reply.status;
    response.set_content(reply.body, reply.content_type.c_str());
  };
  for (const char* path : {"/", "/index.html", R"(/api/.*)", R"(/.*)"}) {
    server.Get(path, handler);
    server.Post(path, handler);
    server.Put(path, handler);
    server.Delete(path, handler);
  }
  // httplib's own refusals (e.g. a POST without a length) get a JSON error body too.
  server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) {
      response.set_content("{\"error\":\"bad request (HTTP status " + std::to_string(response.status) +
                               ")\"}",
                           "application/json");
    }
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& response,
                                  std::exception_ptr) {
    response.status = 500;
    response.set_content(R"({"error":"internal error"})", "application/json");
  });
}

WebServer::~WebServer() = default;

void WebServer::Run(const std::string& host, int port) {
  if (!impl_->server.bind_to_port(host.c_str(), port)) {
    throw core::InputError("cannot listen on " + host + ":" + std::to_string(port) +
                           " (in use, or not a local address)");
  }
  impl_->server.listen_after_bind();
}

void WebServer::Stop() { impl_->server.stop(); }

}  // namespace othello::play
