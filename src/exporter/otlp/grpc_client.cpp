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
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "exporter/otlp/otlp_client.h"

namespace tern::exporter::otlp {
namespace {

std::string grpc_target(std::string_view endpoint) {
  // telemetrygen accepts "host:port"; tolerate a scheme users copy from HTTP configs.
  if (endpoint.substr(0, 7) == "http://") endpoint.remove_prefix(7);
  if (endpoint.empty()) throw std::invalid_argument("empty OTLP/gRPC endpoint");
  return std::string(endpoint);
}

class GrpcClient final : public OtlpClient {
 public:
  explicit GrpcClient(const OtlpClientOptions& o) : options_(o) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    if (o.gzip) args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
    channel_ = grpc::CreateCustomChannel(grpc_target(o.endpoint), grpc::InsecureChannelCredentials(), args);
    stub_ = std::make_unique<grpc::GenericStub>(channel_);
    // gRPC metadata keys must be lowercase.
    for (const auto& [k, v] : o.headers) {
      std::string key = k;
      std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
      metadata_.emplace_back(std::move(key), v);
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
      ctx.set_deadline(std::chrono::system_clock::now() + options_.timeout);
      for (const auto& [k, v] : metadata_) ctx.AddMetadata(k, v);
      // The call completes before we return, so the slice can borrow `body` (no copy).
      grpc::Slice slice(body.data(), body.size(), grpc::Slice::STATIC_SLICE);
      grpc::ByteBuffer request(&slice, 1);
      grpc::ByteBuffer response;
      grpc::Status status;
      auto call = stub_->PrepareUnaryCall(&ctx, method, request, &cq_);
      call->StartCall();
      call->Finish(&response, &status, this);
      void* tag = nullptr;
      bool ok = false;
      cq_.Next(&tag, &ok);
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
      if (retryable && retries_left > 0) {
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, options_.max_retry_wait);
        continue;
      }
      st.ok = false;
      st.retry_after = parse_retry_info(status.error_details());
      st.message = "gRPC " + method + " to " + options_.endpoint + ": code " + std::to_string(st.code) +
                   " (" + status.error_message() + ")";
      return st;
    }
  }

 private:
  OtlpClientOptions options_;
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
