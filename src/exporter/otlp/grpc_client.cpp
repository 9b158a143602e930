// OTLP/gRPC client on the generic stub: the request is already protobuf, so no generated
// code. The only grpc++ translation unit of the exporter.
//
// Each client has its own channel with GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL: without it,
// channels to the same target with the same arguments share one subchannel (one TCP
// connection) process-wide, and the generator's workers would contend on it. Calls are
// made synchronous on a private completion queue so a call needs no gRPC thread handoff.
#include <grpc/compression.h>
#include <grpc/grpc.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exporter/otlp/otlp_client.h"
#include "text/ascii.h"
#include "text/endpoint.h"

namespace tern::exporter::otlp {
namespace {

std::string grpc_target(std::string_view endpoint) {
  // telemetrygen accepts "host:port"; tolerate a scheme users copy from HTTP configs.
  if (endpoint.substr(0, 7) == "http://") endpoint.remove_prefix(7);
  if (endpoint.substr(0, 8) == "https://") endpoint.remove_prefix(8);
  if (const std::string why = text::grpc_endpoint_error(endpoint); !why.empty())
    throw std::invalid_argument("bad OTLP/gRPC endpoint \"" + std::string(endpoint) + "\": " + why);
  return std::string(endpoint);
}

// Plaintext without TLS options (as before: `tls.insecure` / --otlp-insecure); otherwise
// TLS. The files are read here, so a missing one fails when the client is made.
std::shared_ptr<grpc::ChannelCredentials> credentials(const OtlpClientOptions& o) {
  // An https:// endpoint asks for TLS even without options (the system's CAs).
  if (!o.tls && o.endpoint.substr(0, 8) != "https://") return grpc::InsecureChannelCredentials();
  const net::TlsClientOptions t = o.tls.value_or(net::TlsClientOptions{});
  std::string ca = t.ca_file.empty() ? std::string() : net::read_pem_file(t.ca_file, "tls.ca_file");
  std::string cert = t.cert_file.empty() ? std::string() : net::read_pem_file(t.cert_file, "tls.cert_file");
  std::string key = t.cert_file.empty()
                        ? std::string()
                        : net::read_pem_file(t.key_file.empty() ? t.cert_file : t.key_file, "tls.key_file");
  if (!t.insecure_skip_verify) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = std::move(ca);  // empty: gRPC's default roots
    ssl.pem_cert_chain = std::move(cert);
    ssl.pem_private_key = std::move(key);
    return grpc::SslCredentials(ssl);
  }
  // Encrypted, but any server certificate is accepted (tests, self-signed dev servers):
  // only gRPC's TLS credentials API can switch verification off.
  namespace ex = grpc::experimental;
  ex::TlsChannelCredentialsOptions opts;
  if (!cert.empty()) {
    opts.set_certificate_provider(std::make_shared<ex::StaticDataCertificateProvider>(
        std::vector<ex::IdentityKeyCertPair>{{std::move(key), std::move(cert)}}));
    opts.watch_identity_key_cert_pairs();
  }
  opts.set_verify_server_certs(false);
  opts.set_check_call_host(false);
  opts.set_certificate_verifier(std::make_shared<ex::NoOpCertificateVerifier>());
  return ex::TlsCredentials(opts);
}

class GrpcClient final : public OtlpClient {
 public:
  explicit GrpcClient(const OtlpClientOptions& o) : options_(o) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    if (o.gzip) args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
    if (o.tls && !o.tls->server_name_override.empty())
      args.SetSslTargetNameOverride(o.tls->server_name_override);
    channel_ = grpc::CreateCustomChannel(grpc_target(o.endpoint), credentials(o), args);
    stub_ = std::make_unique<grpc::GenericStub>(channel_);
    // gRPC metadata keys must be lowercase.
    for (const auto& [k, v] : o.headers) {
      metadata_.emplace_back(tern::text::ascii_lower(k), v);
    }
  }

  ~GrpcClient() override {
    cq_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
    }
  }

  ExportStatus export_request(pdata::Signal signal, std::string_view body) override {
    ExportStatus st;
    const std::string& method = methods_[static_cast<std::size_t>(signal)];
    std::chrono::milliseconds backoff{100};
    for (int retries_left = options_.max_retries;; --retries_left) {
      ++st.attempts;
      grpc::ClientContext ctx;  // one per call, by gRPC's rules
      if (options_.timeout.count() > 0)  // 0: no deadline, as in the Collector
        ctx.set_deadline(std::chrono::system_clock::now() + options_.timeout);
      for (const auto& [k, v] : metadata_) ctx.AddMetadata(k, v);
      // The call completes before we return, so the slice can borrow `body` (no copy).
      grpc::Slice slice(body.data(), body.size(), grpc::Slice::STATIC_SLICE);
      grpc::ByteBuffer request(&slice, 1);
      grpc::ByteBuffer response;
      grpc::Status status;
      {
        // Published before the call starts, so cancel() from another thread reaches it;
        // cancelled before: not started at all.
        std::lock_guard l(cancel_mu_);
        if (cancelled_) {
          st.ok = false;
          st.code = grpc::StatusCode::CANCELLED;
          st.message = "gRPC " + method + " to " + options_.endpoint + ": cancelled (shutting down)";
          return st;
        }
        current_ = &ctx;
      }
      auto call = stub_->PrepareUnaryCall(&ctx, method, request, &cq_);
      call->StartCall();
      call->Finish(&response, &status, this);
      void* tag = nullptr;
      bool ok = false;
      cq_.Next(&tag, &ok);
      {
        std::lock_guard l(cancel_mu_);
        current_ = nullptr;
      }
      st.code = status.error_code();
      if (status.ok()) {
        st.ok = true;
        std::vector<grpc::Slice> slices;
        if (response.Length() > 0 && response.Dump(&slices).ok()) {
          response_.clear();
          for (const auto& s : slices) response_.append(reinterpret_cast<const char*>(s.begin()), s.size());
          parse_export_response(response_, st.rejected, st.message);
        }
        return st;
      }
      const bool retryable = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                             status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
      const std::optional<std::chrono::milliseconds> hint = parse_retry_info(status.error_details());
      if (retryable && retries_left > 0) {
        // The server's RetryInfo delay when it gave one, as the HTTP client obeys Retry-After.
        const std::chrono::milliseconds wait = hint && hint->count() > 0 ? *hint : backoff;
        backoff = std::min(backoff * 2, options_.max_retry_wait);
        if (!wait_unless_cancelled(std::min(wait, options_.max_retry_wait))) {
          st.ok = false;
          st.code = grpc::StatusCode::CANCELLED;
          st.message = "gRPC " + method + " to " + options_.endpoint + ": cancelled (shutting down)";
          return st;
        }
        continue;
      }
      st.ok = false;
      if (hint) {
        st.retry_info = true;
        st.retry_after = *hint;
      }
      st.message = "gRPC " + method + " to " + options_.endpoint + ": code " + std::to_string(st.code) +
                   " (" + status.error_message() + ")";
      return st;
    }
  }

  void cancel() override {
    std::lock_guard l(cancel_mu_);
    cancelled_ = true;
    // The only way to end a call that waits for a connection or an answer before its
    // deadline (or forever, with timeout 0): it then completes with CANCELLED.
    if (current_) current_->TryCancel();
    cancelled_cv_.notify_all();  // and a retry's back-off ends at once
  }

 private:
  // A retry's back-off: false (cut short) once cancel() was called, so that a shutdown does
  // not wait out a server's RetryInfo delay.
  bool wait_unless_cancelled(std::chrono::milliseconds wait) {
    std::unique_lock l(cancel_mu_);
    return !cancelled_cv_.wait_for(l, wait, [this] { return cancelled_; });
  }

  OtlpClientOptions options_;
  std::mutex cancel_mu_;
  std::condition_variable cancelled_cv_;    // with cancel_mu_: cancel() ends a back-off
  grpc::ClientContext* current_ = nullptr;  // the call in progress (under cancel_mu_)
  bool cancelled_ = false;                  // under cancel_mu_
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
  grpc::CompletionQueue cq_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::string response_;
  // Built once: PrepareUnaryCall takes a std::string, and a per-call one would allocate.
  const std::string methods_[3] = {std::string(grpc_method(pdata::Signal::Logs)),
                                   std::string(grpc_method(pdata::Signal::Traces)),
                                   std::string(grpc_method(pdata::Signal::Metrics))};
};

}  // namespace

std::unique_ptr<OtlpClient> make_grpc_client(const OtlpClientOptions& options) {
  return std::make_unique<GrpcClient>(options);
}

}  // namespace tern::exporter::otlp
