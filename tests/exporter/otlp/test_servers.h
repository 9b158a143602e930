#pragma once
// Recording OTLP endpoints for the exporter and generator tests: an HTTP server (on
// tern_net's Beast server) and an async generic gRPC server, both on 127.0.0.1 ephemeral
// ports, that keep every request (path/method, headers, uncompressed body) and answer
// with scripted statuses. Independent of src/receiver/otlp, which is written elsewhere.
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compression/gzip.h"
#include "gen/workload.h"
#include "net/http_server.h"
#include "otlp/proto_codec.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::test {

struct RecordedRequest {
  std::string path;                            // HTTP target or gRPC method
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;                            // uncompressed
  bool was_gzip = false;
};

class RecordingStore {
 public:
  void add(RecordedRequest r) {
    std::lock_guard lock(mu_);
    requests_.push_back(std::move(r));
  }
  std::vector<RecordedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return requests_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<RecordedRequest> requests_;
};

// An encoded ExportLogsServiceRequest of the benchmark workload's `n` records.
inline std::string logs_request(std::size_t n) {
  pdata::LogsData d;
  gen::build_logs_workload(n, d, 1'700'000'000'000'000'000ULL);
  std::string out;
  otlp::encode_logs_proto(d, out);
  return out;
}

// How many log records a recorded request body holds (0 and a failure if it does not decode).
inline std::size_t decoded_logs(const std::string& body) {
  pdata::LogsData d;
  if (otlp::decode_logs_proto(body, d).has_value()) {
    ADD_FAILURE() << "the request does not decode";
    return 0;
  }
  return d.record_count();
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

class RecordingHttpServer {
 public:
  struct Answer {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    std::chrono::milliseconds delay{0};  // how long the server takes to answer
  };

  explicit RecordingHttpServer(net::TlsServerOptions tls = {}, std::string host = "127.0.0.1") {
    net::HttpServerOptions opt;
    opt.host = std::move(host);
    opt.threads = 2;
    opt.tls = std::move(tls);
    server_ = std::make_unique<net::HttpServer>(opt, [this](net::HttpRequest& req) { return handle(req); });
    port_ = server_->start();
  }
  ~RecordingHttpServer() { server_->shutdown(); }

  std::uint16_t port() const { return port_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  RecordingStore& store() { return store_; }
  // The next requests get these answers (in order); later ones 200 with `default_answer`.
  void script(std::vector<Answer> answers) {
    std::lock_guard lock(mu_);
    for (auto& a : answers) script_.push_back(std::move(a));
  }
  void set_default(Answer a) {
    std::lock_guard lock(mu_);
    default_ = std::move(a);
  }

 private:
  net::HttpResponse handle(net::HttpRequest& req) {
    RecordedRequest r;
    r.path = std::string(req.target);
    for (const char* h :
         {"content-type", "content-encoding", "x-test", "authorization", "user-agent", "host"}) {
      auto v = req.header(h);
      if (!v.empty()) r.headers[h] = std::string(v);
    }
    if (compression::looks_gzipped(req.body)) {
      compression::GzipDecompressor d;
      d.decompress(req.body, r.body, 64 << 20);
      r.was_gzip = true;
    } else {
      r.body = std::move(req.body);
    }
    store_.add(std::move(r));
    Answer a;
    {
      std::lock_guard lock(mu_);
      if (!script_.empty()) {
        a = std::move(script_.front());
        script_.pop_front();
      } else {
        a = default_;
      }
    }
    if (a.delay.count() > 0) std::this_thread::sleep_for(a.delay);
    net::HttpResponse res;
    res.status = a.status;
    res.content_type = "application/x-protobuf";  // unless the answer names its own
    res.body = a.body;
    for (auto& [name, value] : a.headers) {
      if (name == "Content-Type")
        res.content_type = value;
      else
        res.headers.emplace_back(name, value);
    }
    return res;
  }

  RecordingStore store_;
  std::mutex mu_;
  std::deque<Answer> script_;
  Answer default_;
  std::unique_ptr<net::HttpServer> server_;
  std::uint16_t port_ = 0;
};

class RecordingGrpcServer {
 public:
  // `details`: the failure's serialized google.rpc.Status (e.g. with a RetryInfo).
  explicit RecordingGrpcServer(grpc::StatusCode answer = grpc::StatusCode::OK,
                               std::shared_ptr<grpc::ServerCredentials> credentials = nullptr,
                               std::string details = "")
      : answer_(answer), details_(std::move(details)) {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", credentials ? credentials : grpc::InsecureServerCredentials(), &port_);
    b.RegisterAsyncGenericService(&service_);
    b.SetMaxReceiveMessageSize(-1);
    cq_ = b.AddCompletionQueue();
    server_ = b.BuildAndStart();
    new Call(this);
    thread_ = std::thread([this] { loop(); });
  }
  ~RecordingGrpcServer() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    cq_->Shutdown();
    thread_.join();
  }
  int port() const { return port_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  RecordingStore& store() { return store_; }

 private:
  struct Call {
    explicit Call(RecordingGrpcServer* s) : server(s) {
      s->service_.RequestCall(&ctx, &stream, s->cq_.get(), s->cq_.get(), this);
    }
    enum class State { Requested, Reading, Finishing } state = State::Requested;
    RecordingGrpcServer* server;
    grpc::GenericServerContext ctx;
    grpc::GenericServerAsyncReaderWriter stream{&ctx};
    grpc::ByteBuffer buf;

    // Returns false when the call is done and can be deleted.
    bool proceed(bool ok) {
      switch (state) {
        case State::Requested:
          if (!ok) return false;  // shutting down
          new Call(server);
          state = State::Reading;
          stream.Read(&buf, this);
          return true;
        case State::Reading: {
          RecordedRequest r;
          r.path = ctx.method();
          for (const auto& [k, v] : ctx.client_metadata())
            r.headers[lower(std::string(k.data(), k.size()))] = std::string(v.data(), v.size());
          std::vector<grpc::Slice> slices;
          if (ok && buf.Dump(&slices).ok())
            for (const auto& s : slices) r.body.append(reinterpret_cast<const char*>(s.begin()), s.size());
          server->store_.add(std::move(r));
          state = State::Finishing;
          if (server->answer_ == grpc::StatusCode::OK) {
            grpc::ByteBuffer empty;
            stream.WriteAndFinish(empty, grpc::WriteOptions(), grpc::Status::OK, this);
          } else {
            stream.Finish(grpc::Status(server->answer_, "scripted failure", server->details_), this);
          }
          return true;
        }
        case State::Finishing:
          return false;
      }
      return false;
    }
  };

  void loop() {
    void* tag = nullptr;
    bool ok = false;
    while (cq_->Next(&tag, &ok)) {
      auto* call = static_cast<Call*>(tag);
      if (!call->proceed(ok)) delete call;
    }
  }

  grpc::StatusCode answer_;
  std::string details_;
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::thread thread_;
  RecordingStore store_;
};

}  // namespace tern::test
