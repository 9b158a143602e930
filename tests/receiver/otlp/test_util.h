#pragma once
// Shared by the OTLP receiver tests: a Consumer that records batches and can be told to
// refuse, small batches of each signal, and a minimal protobuf reader for responses.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "component/consumer.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"

namespace tern::receiver::otlp::test {

// Whether this process has a TCP socket listening on `port` (IPv4 or IPv6). Asked instead of "does
// a connect fail": under parallel ctest another test may bind the freed port at once.
inline bool this_process_listens_on(std::uint16_t port) {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {  // gRPC may listen dual-stack
    std::ifstream tcp_table(table);
    std::string line;
    std::getline(tcp_table, line);  // header
    while (std::getline(tcp_table, line)) {
      std::istringstream in(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
      in >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
      const auto colon = local.find(':');
      if (state != "0A" || colon == std::string::npos) continue;  // 0A: LISTEN
      if (std::stoul(local.substr(colon + 1), nullptr, 16) == port) inodes.insert(inode);
    }
  }
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0 && inodes.count(target.substr(8, target.size() - 9)))
      return true;
  }
  return false;
}

class RecordingConsumer : public component::Consumer {
 public:
  enum class Mode { kOk, kRetryLater, kInvalid, kPartial, kTooLarge };
  std::atomic<Mode> mode{Mode::kOk};
  std::atomic<std::uint64_t> partial_rejected{1};

  component::ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    std::lock_guard lock(mu);
    auto r = result();
    if (r.accepted()) logs.push_back(std::move(b));
    return r;
  }
  component::ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData> b) override {
    std::lock_guard lock(mu);
    auto r = result();
    if (r.accepted()) traces.push_back(std::move(b));
    return r;
  }
  component::ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData> b) override {
    std::lock_guard lock(mu);
    auto r = result();
    if (r.accepted()) metrics.push_back(std::move(b));
    return r;
  }

  std::mutex mu;
  std::vector<std::shared_ptr<pdata::LogsData>> logs;
  std::vector<std::shared_ptr<pdata::TracesData>> traces;
  std::vector<std::shared_ptr<pdata::MetricsData>> metrics;

 private:
  component::ConsumeResult result() {
    switch (mode.load()) {
      case Mode::kOk:
        return component::ConsumeResult::ok();
      case Mode::kRetryLater:
        return component::ConsumeResult::retry_later("queue is full", std::chrono::milliseconds(2500));
      case Mode::kInvalid:
        return {component::ConsumeCode::kInvalid, "no thanks", {}, 0};
      case Mode::kPartial:
        return {component::ConsumeCode::kOk, "dropped some", {}, partial_rejected.load()};
      case Mode::kTooLarge:
        return {component::ConsumeCode::kTooLarge, "can never fit", {}, 0};
    }
    return {};
  }
};

// Blocks in consume_logs until released: a request "in flight" for shutdown tests.
class BlockingConsumer : public component::Consumer {
 public:
  std::promise<void> entered;
  std::promise<void> release;
  std::atomic<int> consumed{0};

  component::ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData>) override {
    entered.set_value();
    release_future.wait();
    ++consumed;
    return component::ConsumeResult::ok();
  }
  component::ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData>) override { return {}; }
  component::ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData>) override { return {}; }

 private:
  std::shared_future<void> release_future = release.get_future().share();
};

// Two log records ("hello", "world") under resource service.name=svc, scope "scope".
inline std::shared_ptr<pdata::LogsData> make_logs() {
  auto d = std::make_shared<pdata::LogsData>();
  auto& a = d->arena;
  auto& rl = d->resource_logs.emplace_back(a);
  rl.resource.attributes.push_back({a.copy("service.name"), pdata::AnyValue::string(a.copy("svc"))});
  auto& sl = rl.scope_logs.emplace_back(a);
  sl.scope.name = a.copy("scope");
  for (std::string_view body : {"hello", "world"}) {
    auto& r = sl.log_records.emplace_back(a);
    r.time_unix_nano = 1700000000000000000ull;
    r.severity_number = 9;
    r.severity_text = a.copy("INFO");
    r.body = pdata::AnyValue::string(a.copy(body));
    r.attributes.push_back({a.copy("n"), pdata::AnyValue::integer(42)});
    r.trace_id[0] = 0xab;
    r.trace_id[15] = 0x01;
  }
  return d;
}

// One span "GET /" (kind server) with a parent and an attribute.
inline std::shared_ptr<pdata::TracesData> make_traces() {
  auto d = std::make_shared<pdata::TracesData>();
  auto& a = d->arena;
  auto& rs = d->resource_spans.emplace_back(a);
  rs.resource.attributes.push_back({a.copy("service.name"), pdata::AnyValue::string(a.copy("svc"))});
  auto& ss = rs.scope_spans.emplace_back(a);
  auto& s = ss.spans.emplace_back(a);
  s.trace_id.fill(0x11);
  s.span_id.fill(0x22);
  s.parent_span_id.fill(0x33);
  s.name = a.copy("GET /");
  s.kind = pdata::SpanKind::Server;
  s.start_time_unix_nano = 1000;
  s.end_time_unix_nano = 2000;
  s.attributes.push_back({a.copy("http.method"), pdata::AnyValue::string(a.copy("GET"))});
  return d;
}

// A gauge "temperature" with three int points 1, 2, 3.
inline std::shared_ptr<pdata::MetricsData> make_metrics() {
  auto d = std::make_shared<pdata::MetricsData>();
  auto& a = d->arena;
  auto& rm = d->resource_metrics.emplace_back(a);
  auto& sm = rm.scope_metrics.emplace_back(a);
  auto& m = sm.metrics.emplace_back(a);
  m.name = a.copy("temperature");
  m.unit = a.copy("Cel");
  m.type = pdata::MetricType::Gauge;
  for (int i = 1; i <= 3; ++i) {
    auto& p = m.number_points.emplace_back(a);
    p.time_unix_nano = 5000 + i;
    p.value_type = pdata::NumberType::Int;
    p.as_int = i;
  }
  return d;
}

// A protobuf ExportLogsServiceRequest written by hand (independent of Tern's encoder):
// resource_logs { scope_logs { log_records { time_unix_nano: 7, body { string_value: "hand" } } } }
inline std::string hand_written_logs_proto() {
  auto len = [](std::string s) { return std::string(1, static_cast<char>(s.size())) + s; };
  std::string any_value = "\x0a" + len("hand");  // string_value = 1
  std::string record =
      std::string("\x09\x07\0\0\0\0\0\0\0", 9) + "\x2a" + len(any_value);  // fixed64 1, body = 5
  std::string scope_logs = "\x12" + len(record);                           // log_records = 2
  std::string resource_logs = "\x12" + len(scope_logs);                    // scope_logs = 2
  return "\x0a" + len(resource_logs);                                      // resource_logs = 1
}

// Minimal protobuf reader for the responses under test (top-level fields only).
struct ProtoField {
  std::uint32_t number = 0;
  std::uint32_t wire_type = 0;
  std::uint64_t varint = 0;
  std::string bytes;
};

inline std::optional<std::uint64_t> read_varint(std::string_view& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= std::uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  return std::nullopt;
}

inline std::optional<std::vector<ProtoField>> parse_proto(std::string_view in) {
  std::vector<ProtoField> out;
  while (!in.empty()) {
    auto key = read_varint(in);
    if (!key) return std::nullopt;
    ProtoField f;
    f.number = static_cast<std::uint32_t>(*key >> 3);
    f.wire_type = static_cast<std::uint32_t>(*key & 7);
    if (f.wire_type == 0) {
      auto v = read_varint(in);
      if (!v) return std::nullopt;
      f.varint = *v;
    } else if (f.wire_type == 2) {
      auto n = read_varint(in);
      if (!n || *n > in.size()) return std::nullopt;
      f.bytes = std::string(in.substr(0, *n));
      in.remove_prefix(*n);
    } else {
      return std::nullopt;  // not used by the messages under test
    }
    out.push_back(std::move(f));
  }
  return out;
}

inline const ProtoField* find_field(const std::vector<ProtoField>& fields, std::uint32_t number) {
  for (const auto& f : fields)
    if (f.number == number) return &f;
  return nullptr;
}

}  // namespace tern::receiver::otlp::test
