// The only grpc++ translation unit of the receiver.
//
// Model: the async generic service on one server completion queue polled by N threads of
// our own. Each call is a small state machine (requested -> read -> finished); the thread
// that completes the read decodes and consumes inline, which is fine because these are
// our threads, not gRPC's (the callback API forbids blocking in reactions).
#include "receiver/otlp/grpc_server.h"

#include <grpc/grpc.h>
#include <grpc/support/log.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/byte_buffer.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "compression/zstd.h"
#include "net/http_server.h"  // split_host_port
#include "net/tls.h"          // read_pem_file
#include "net/tls_context.h"  // make_server_context, to check the files

namespace tern::receiver::otlp {

namespace {

struct Call {
  enum class State { kRequested, kReading, kFinishing };
  State state = State::kRequested;
  grpc::GenericServerContext ctx;
  grpc::GenericServerAsyncReaderWriter stream{&ctx};
  grpc::ByteBuffer request;
  Signal signal = Signal::Logs;
};

// One contiguous copy of the message: the decoder wants a string_view, and the batch's
// arena keeps this string alive (the decoded views point into it).
std::string flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  out.reserve(buffer.Length());
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

// gRPC's C++ library (1.51) decompresses gzip and deflate only. A message compressed with zstd
// (`grpc-encoding: zstd`: the Collector's otlp exporter with `compression: zstd`, which the
// Collector's receiver takes) reaches the service as it came: gRPC drops the header it does
// not know ("Error parsing metadata ... grpc-encoding value=zstd") and hands over the
// compressed bytes, which the decoder refused (INVALID_ARGUMENT: the data was lost) or, for a
// small frame, misread. An Export*ServiceRequest never starts with zstd's frame magic (that
// would be an unknown field 5 followed by a field 31), so such a message is decompressed
// here, bounded like any other by max_recv_msg_size_mib.
bool is_zstd_frame(std::string_view bytes) {
  return bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4);
}

thread_local compression::ZstdDecompressor t_unzstd;  // one per completion-queue thread

// Insecure without tls.cert_file; else TLS, and mutual TLS with tls.client_ca_file. Throws
// std::runtime_error naming the setting and the file when one cannot be read or used.
std::shared_ptr<grpc::ServerCredentials> server_credentials(const config::TlsServerConfig& tls) {
  if (tls.cert_file.empty()) return grpc::InsecureServerCredentials();
  // Loaded once as the HTTP server does, for its precise errors: gRPC reports a key that
  // does not match the certificate only as a port it could not add.
  static_cast<void>(net::make_server_context(tls));
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back(
      {net::read_pem_file(tls.key_file, "tls.key_file"), net::read_pem_file(tls.cert_file, "tls.cert_file")});
  if (!tls.client_ca_file.empty()) {
    options.pem_root_certs = net::read_pem_file(tls.client_ca_file, "tls.client_ca_file");
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace

struct OtlpGrpcServer::Impl {
  receiver::otlp::OtlpReceiverConfig::Grpc config;
  ExportCore& core;
  unsigned thread_count;
  std::chrono::milliseconds grace;
  std::size_t max_message = 0;  // bytes, set by start()

  grpc::AsyncGenericService service;
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::unique_ptr<grpc::Server> server;
  std::vector<std::thread> threads;
  int port = 0;

  // Guards "may we still start operations on the queue" (RequestCall, Read, Finish): once
  // cq->Shutdown() is called it is illegal (gRPC aborts the process: "assertion failed:
  // grpc_cq_begin_op"). Calls that gRPC already ended (a message over the size limit, a
  // shutdown's cancellation) still bring their last tag out of the queue after that.
  std::mutex mu;
  bool accepting = false;
  bool stopped = false;

  Impl(const receiver::otlp::OtlpReceiverConfig::Grpc& c, ExportCore& core, unsigned threads,
       std::chrono::milliseconds grace)
      : config(c), core(core), thread_count(threads), grace(grace) {}

  void request_call() {
    std::lock_guard lock(mu);
    if (!accepting) return;
    auto* call = new Call;
    service.RequestCall(&call->ctx, &call->stream, cq.get(), cq.get(), call);
  }

  // Runs `op` (which starts an operation on `call`) unless the queue is shut down; then the
  // call, which has nothing pending, is deleted instead.
  template <class Op>
  void start(Call* call, Op&& op) {
    {
      std::lock_guard lock(mu);
      if (accepting) {
        op();
        return;
      }
    }
    delete call;
  }

  void finish_with(Call* call, const grpc::Status& status) {
    start(call, [&] { call->stream.Finish(status, call); });
  }

  void run() {
    void* tag = nullptr;
    bool ok = false;
    while (cq->Next(&tag, &ok)) step(static_cast<Call*>(tag), ok);
  }

  void step(Call* call, bool ok) {
    switch (call->state) {
      case Call::State::kRequested: {
        if (!ok) {  // the server is shutting down: the request was never matched
          delete call;
          return;
        }
        request_call();  // keep one request outstanding per matched call
        OtlpReceiverCounters::add(core.counters().grpc_requests, 1);
        auto signal = signal_for_grpc_method(call->ctx.method());
        if (!signal) {
          call->state = Call::State::kFinishing;
          finish_with(call,
                      grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "unknown method " + call->ctx.method()));
          return;
        }
        call->signal = *signal;
        call->state = Call::State::kReading;
        start(call, [call] { call->stream.Read(&call->request, call); });
        return;
      }
      case Call::State::kReading: {
        call->state = Call::State::kFinishing;
        if (!ok) {
          // No message: the client half-closed without one, or gRPC refused the message
          // (e.g. over max_recv_msg_size, in which case it already failed the call with
          // RESOURCE_EXHAUSTED and this status is not what the client sees).
          core.count_bad_request(call->signal);
          finish_with(call, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
          return;
        }
        finish(call);
        return;
      }
      case Call::State::kFinishing:
        delete call;
        return;
    }
  }

  void finish(Call* call) {
    std::string bytes = flatten(call->request);
    call->request.Clear();
    OtlpReceiverCounters::add(core.counters().bytes_received, bytes.size());
    if (is_zstd_frame(bytes)) {
      std::string plain, error;
      if (!t_unzstd.decompress(bytes, plain, max_message, &error)) {
        core.count_bad_request(call->signal);
        // Over the limit once decompressed: what gRPC answers a message over it.
        const bool too_large = error.find("exceeds") != std::string::npos;
        finish_with(call, grpc::Status(too_large ? grpc::StatusCode::RESOURCE_EXHAUSTED
                                                 : grpc::StatusCode::INVALID_ARGUMENT,
                                       "zstd: " + error + (too_large ? " (max_recv_msg_size_mib)" : "")));
        return;
      }
      bytes = std::move(plain);
    }
    ExportOutcome out = core.export_request(call->signal, Encoding::kProto, std::move(bytes));
    using Kind = ExportOutcome::Kind;
    switch (out.kind) {
      case Kind::kOk: {
        std::string body = export_response_proto(out.rejected, out.message);
        grpc::Slice slice(body);
        grpc::ByteBuffer response(&slice, 1);
        start(call,
              [&] { call->stream.WriteAndFinish(response, grpc::WriteOptions(), grpc::Status::OK, call); });
        return;
      }
      case Kind::kBadData:
      case Kind::kTooLarge:  // not retryable
        finish_with(call, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, out.message));
        return;
      case Kind::kRetryLater:
        // Back-pressure: RESOURCE_EXHAUSTED with RetryInfo, as shared/spec/queues.md fixes
        // (the gRPC twin of HTTP 429). The OTLP spec makes RESOURCE_EXHAUSTED retryable
        // exactly when RetryInfo is present, so clients back off by our hint instead of
        // treating a full queue as an outage. The details travel as grpc-status-details-bin
        // (a serialized google.rpc.Status).
        finish_with(call,
                    grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, out.message,
                                 status_proto(rpc_code::kResourceExhausted, out.message, out.retry_after)));
        return;
      case Kind::kShutdown:
      case Kind::kUnavailable:
        finish_with(call, grpc::Status(grpc::StatusCode::UNAVAILABLE, out.message,
                                       status_proto(rpc_code::kUnavailable, out.message, out.retry_after)));
        return;
      case Kind::kInternal:
        finish_with(call, grpc::Status(grpc::StatusCode::INTERNAL, out.message));
        return;
    }
  }
};

OtlpGrpcServer::OtlpGrpcServer(const receiver::otlp::OtlpReceiverConfig::Grpc& config, ExportCore& core,
                               unsigned threads, std::chrono::milliseconds shutdown_grace)
    : impl_(std::make_unique<Impl>(config, core,
                                   threads ? threads : std::max(1u, std::thread::hardware_concurrency()),
                                   shutdown_grace)) {}

OtlpGrpcServer::~OtlpGrpcServer() { shutdown(); }

namespace {
// gRPC writes its own log lines to stderr, outside Tern's log (and its JSON encoding). They
// go through spdlog instead; a failed TLS handshake (a plaintext or untrusted client) is the
// client's problem and is logged at debug, as the OTLP/HTTP server does.
void log_through_spdlog(gpr_log_func_args* args) {
  const std::string_view message = args->message ? args->message : "";
  switch (args->severity) {
    case GPR_LOG_SEVERITY_ERROR:
      if (message.find("Handshake failed") != std::string_view::npos)
        spdlog::debug("grpc: {}", message);
      else
        spdlog::warn("grpc: {} ({}:{})", message, args->file ? args->file : "", args->line);
      break;
    case GPR_LOG_SEVERITY_INFO:
      spdlog::info("grpc: {}", message);
      break;
    default:
      spdlog::debug("grpc: {}", message);
  }
}
}  // namespace

std::uint16_t OtlpGrpcServer::start() {
  static std::once_flag route_logs;
  std::call_once(route_logs, [] { gpr_set_log_function(log_through_spdlog); });
  auto& im = *impl_;
  if (im.server) throw std::logic_error("OtlpGrpcServer::start called twice");
  auto [host, port] = net::split_host_port(im.config.endpoint);
  std::string address =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);

  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, server_credentials(im.config.tls), &im.port);
  // Without this, gRPC sets SO_REUSEPORT and a second process on the same port would
  // "bind" silently and steal half the connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::uint64_t max = im.config.max_recv_msg_size_mib * 1024 * 1024;
  builder.SetMaxReceiveMessageSize(max == 0 || max > INT_MAX ? INT_MAX : static_cast<int>(max));
  im.max_message = max == 0 || max > INT_MAX ? INT_MAX : static_cast<std::size_t>(max);
  // Message compression is gRPC's: gzip is enabled by default, say so explicitly.
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, true);
  builder.RegisterAsyncGenericService(&im.service);
  im.cq = builder.AddCompletionQueue();
  im.server = builder.BuildAndStart();
  if (!im.server || im.port == 0) {
    im.server.reset();
    if (im.cq) {
      im.cq->Shutdown();
      void* tag;
      bool ok;
      while (im.cq->Next(&tag, &ok)) {
      }
      im.cq.reset();
    }
    throw std::runtime_error("otlp grpc: cannot listen on " + im.config.endpoint);
  }
  {
    std::lock_guard lock(im.mu);
    im.accepting = true;
  }
  // One outstanding request per thread, so that as many calls can start at once.
  for (unsigned i = 0; i < im.thread_count; ++i) im.request_call();
  for (unsigned i = 0; i < im.thread_count; ++i) im.threads.emplace_back([&im] { im.run(); });
  return static_cast<std::uint16_t>(im.port);
}

std::uint16_t OtlpGrpcServer::port() const { return static_cast<std::uint16_t>(impl_->port); }

void OtlpGrpcServer::shutdown() {
  auto& im = *impl_;
  if (!im.server || im.stopped) return;
  im.stopped = true;
  // Waits for calls in progress (they need our threads, still running) until the deadline,
  // then cancels what is left; unmatched RequestCalls come back with ok = false.
  im.server->Shutdown(std::chrono::system_clock::now() + im.grace);
  {
    std::lock_guard lock(im.mu);
    im.accepting = false;
  }
  im.cq->Shutdown();
  for (auto& t : im.threads) t.join();  // Next() returns false once the queue is drained
  im.threads.clear();
}

}  // namespace tern::receiver::otlp
