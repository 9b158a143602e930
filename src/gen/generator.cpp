#include "gen/generator.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <mutex>
#include <thread>

#include "gen/workload.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "pdata/logs.h"
#include "pdata/metrics.h"
#include "pdata/trace.h"
#include "text/ascii.h"
#include "text/numbers.h"

namespace tern::gen {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- flag value parsing

namespace {
std::optional<AttrValue> parse_scalar(std::string_view v, std::string& error) {
  AttrValue out;
  if (v == "true" || v == "false") {
    out.kind = AttrValue::Kind::Bool;
    out.b = v == "true";
    return out;
  }
  // Go's strconv.Atoi, which telemetrygen uses, takes a leading '+'.
  const std::string_view digits = v.size() > 1 && v.front() == '+' && v[1] != '-' ? v.substr(1) : v;
  if (const std::optional<std::int64_t> i = tern::text::parse_whole<std::int64_t>(digits)) {
    out.kind = AttrValue::Kind::Int;
    out.i = *i;
    return out;
  }
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') {
    error = "value should be a string wrapped in double quotes";
    return std::nullopt;
  }
  out.kind = AttrValue::Kind::String;
  out.s = std::string(v.substr(1, v.size() - 2));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<Attr> parse_attribute(std::string_view text, std::string& error) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    error =
        "value should be in one of the following formats: key=\"value\", key=true, key=false, key=<integer>, "
        "or key=[<value1>, <value2>, ...]";
    return std::nullopt;
  }
  Attr out;
  out.first = std::string(text.substr(0, eq));
  std::string_view v = text.substr(eq + 1);
  if (v.size() >= 2 && v.front() == '[' && v.back() == ']') {
    std::string_view content = trim(v.substr(1, v.size() - 2));
    if (content.empty()) {
      error = "slice should not be empty";
      return std::nullopt;
    }
    out.second.kind = AttrValue::Kind::Array;
    // Split on commas outside quotes, as telemetrygen does.
    bool in_quotes = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= content.size(); ++i) {
      if (i < content.size() && content[i] == '"') in_quotes = !in_quotes;
      if (i == content.size() || (content[i] == ',' && !in_quotes)) {
        std::string_view item = trim(content.substr(start, i - start));
        start = i + 1;
        if (item.empty()) continue;
        auto parsed = parse_scalar(item, error);
        if (!parsed) return std::nullopt;
        if (!out.second.items.empty() && out.second.items.front().kind != parsed->kind) {
          error = "all items in a slice should be of the same type";
          return std::nullopt;
        }
        out.second.items.push_back(std::move(*parsed));
      }
    }
    return out;
  }
  auto parsed = parse_scalar(v, error);
  if (!parsed) return std::nullopt;
  out.second = std::move(*parsed);
  return out;
}

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text, std::string& error) {
  error.clear();
  if (tern::text::ascii_iequals(text, "inf") || text == "infinite")
    return std::nullopt;  // telemetrygen: "inf" in any case
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) {
    error = "empty duration";
    return std::nullopt;
  }
  double total_ns = 0;
  std::string_view s = text;
  // Go's sign: a negative duration is not a duration to run for (the count decides).
  const bool negative = s.front() == '-';
  if (s.front() == '-' || s.front() == '+') s.remove_prefix(1);
  if (s.empty()) {
    error = "invalid duration \"" + std::string(text) + "\"";
    return std::nullopt;
  }
  while (!s.empty()) {
    std::size_t n = 0;
    while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.')) ++n;
    if (n == 0) {
      error = "invalid duration \"" + std::string(text) + "\"";
      return std::nullopt;
    }
    // The whole run of digits and dots: "1.2.3s" is an error, not 1.2 seconds.
    const std::optional<double> value = tern::text::parse_whole<double>(s.substr(0, n));
    if (!value) {
      error = "invalid duration \"" + std::string(text) + "\"";
      return std::nullopt;
    }
    s.remove_prefix(n);
    std::size_t u = 0;
    while (u < s.size() && !((s[u] >= '0' && s[u] <= '9') || s[u] == '.')) ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    double mult = 0;
    if (unit == "ns")
      mult = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
      mult = 1e3;
    else if (unit == "ms")
      mult = 1e6;
    else if (unit == "s")
      mult = 1e9;
    else if (unit == "m")
      mult = 60e9;
    else if (unit == "h")
      mult = 3600e9;
    else {
      error = unit.empty()
                  ? "missing unit in duration \"" + std::string(text) + "\""
                  : "unknown unit \"" + std::string(unit) + "\" in duration \"" + std::string(text) + "\"";
      return std::nullopt;
    }
    total_ns += *value * mult;
  }
  // As Go's time.ParseDuration: beyond an int64 of nanoseconds (~292 years) is invalid (the
  // cast overflowed, and ran for a moment or not at all).
  if (!(total_ns < 9.2233720368547758e18)) {
    error = "invalid duration \"" + std::string(text) + "\": too large";
    return std::nullopt;
  }
  const auto ns = static_cast<std::int64_t>(total_ns);
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

// ---------------------------------------------------------------- latency histogram

namespace {
// Bucket of a value: values below 16 ns are exact; above, 16 linear sub-buckets per
// power of two.
int bucket_of(std::uint64_t v) {
  if (v < 16) return static_cast<int>(v);
  const int msb = 63 - std::countl_zero(v);  // >= 4
  const int sub = static_cast<int>((v >> (msb - 4)) & 15);
  return (msb - 3) * 16 + sub;
}
std::uint64_t bucket_upper(int b) {
  if (b < 16) return static_cast<std::uint64_t>(b);
  const int msb = b / 16 + 3;
  const std::uint64_t sub = static_cast<std::uint64_t>(b % 16);
  return ((16 + sub + 1) << (msb - 4)) - 1;
}
}  // namespace

void LatencyHistogram::record(std::uint64_t ns) {
  ++buckets_[static_cast<std::size_t>(bucket_of(ns))];
  ++count_;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
}

std::uint64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return bucket_upper(static_cast<int>(i));
  }
  return bucket_upper(static_cast<int>(buckets_.size() - 1));
}

// ---------------------------------------------------------------- request templates

namespace {

bool parse_hex(std::string_view hex, std::uint8_t* out, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned v = 0;
    auto r = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16);
    if (r.ec != std::errc{} || r.ptr != hex.data() + 2 * i + 2) return false;
    out[i] = static_cast<std::uint8_t>(v);
  }
  return true;
}

pdata::AnyValue to_any(const AttrValue& v, const pdata::Arena& arena) {
  switch (v.kind) {
    case AttrValue::Kind::String:
      return pdata::AnyValue::string(arena.copy(v.s));
    case AttrValue::Kind::Bool:
      return pdata::AnyValue::boolean(v.b);
    case AttrValue::Kind::Int:
      return pdata::AnyValue::integer(v.i);
    case AttrValue::Kind::Array: {
      auto* items = arena.make<pdata::Vec<pdata::AnyValue>>(arena.vec<pdata::AnyValue>());
      for (const auto& item : v.items) items->push_back(to_any(item, arena));
      return pdata::AnyValue::make_array(items);
    }
  }
  return {};
}

void add_attributes(pdata::Attributes& out, const std::vector<Attr>& attrs, const pdata::Arena& arena) {
  for (const auto& [k, v] : attrs) {
    pdata::Str key = arena.copy(k);
    auto it = std::find_if(out.begin(), out.end(), [&](const pdata::KeyValue& kv) { return kv.key == key; });
    if (it != out.end())
      it->value = to_any(v, arena);  // a later flag wins, as in telemetrygen's map
    else
      out.push_back({key, to_any(v, arena)});
  }
}

// --size: telemetrygen's `load-<j>` attributes, each 1 MiB of NUL characters. One string in
// the arena serves them all (the template is built once; the bytes are only encoded).
void add_load(pdata::Attributes& out, const GenOptions& o, const pdata::Arena& arena, pdata::Str& load) {
  if (o.load_size_mib == 0) return;
  if (load.empty()) load = arena.copy(std::string(std::size_t{1} << 20, '\0'));
  for (std::uint32_t j = 0; j < o.load_size_mib; ++j)
    out.push_back({arena.copy("load-" + std::to_string(j)), pdata::AnyValue::string(load)});
}

void fill_resource(pdata::Resource& r, const GenOptions& o, const pdata::Arena& arena) {
  // service.name first; `--otlp-attributes service.name="x"` replaces it.
  r.attributes.push_back({"service.name", pdata::AnyValue::string(arena.copy(o.service))});
  add_attributes(r.attributes, o.resource_attributes, arena);
}

// splitmix64: ids must be unique per trace; a per-worker generator needs no shared state.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  template <std::size_t N>
  void fill(std::array<std::uint8_t, N>& id) {
    for (std::size_t i = 0; i < N; i += 8) {
      std::uint64_t v = next();
      if (v == 0) v = 1;  // all-zero ids are invalid
      for (std::size_t b = 0; b < 8 && i + b < N; ++b) id[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
    }
  }
};

// One signal's template: `prepare(n, now)` patches the batch for the next request of n
// items and encodes it into `buf` (reused); it returns the number of events it carries.
class Template {
 public:
  virtual ~Template() = default;
  virtual std::uint64_t prepare(std::size_t n, std::uint64_t now_ns, std::string& buf) = 0;
  virtual std::uint64_t events_per_item() const = 0;
};

void encode(const pdata::LogsData& d, bool json, std::string& buf) {
  buf.clear();
  json ? otlp::encode_logs_json(d, buf) : otlp::encode_logs_proto(d, buf);
}
void encode(const pdata::TracesData& d, bool json, std::string& buf) {
  buf.clear();
  json ? otlp::encode_traces_json(d, buf) : otlp::encode_traces_proto(d, buf);
}
void encode(const pdata::MetricsData& d, bool json, std::string& buf) {
  buf.clear();
  json ? otlp::encode_metrics_json(d, buf) : otlp::encode_metrics_proto(d, buf);
}

class LogsTemplate final : public Template {
 public:
  LogsTemplate(const GenOptions& o, std::size_t batch)
      : json_(o.client.encoding == exporter::otlp::Encoding::Json) {
    const auto& a = data_.arena;
    auto& rl = data_.resource_logs.emplace_back(a);
    fill_resource(rl.resource, o, a);
    auto& sl = rl.scope_logs.emplace_back(a);
    sl.scope.name = "telemetrygen";
    pdata::TraceId tid{};
    pdata::SpanId sid{};
    if (!o.trace_id_hex.empty()) parse_hex(o.trace_id_hex, tid.data(), tid.size());
    if (!o.span_id_hex.empty()) parse_hex(o.span_id_hex, sid.data(), sid.size());
    const pdata::Str body = a.copy(o.body);
    const pdata::Str sev = a.copy(o.severity_text);
    sl.log_records.reserve(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      auto& r = sl.log_records.emplace_back(a);
      r.severity_number = o.severity_number;
      r.severity_text = sev;
      r.body = pdata::AnyValue::string(body);
      r.trace_id = tid;
      r.span_id = sid;
      r.attributes.push_back({"app", pdata::AnyValue::string("server")});  // as telemetrygen's records
      add_attributes(r.attributes, o.telemetry_attributes, a);
      add_load(r.attributes, o, a, load_);
    }
    records_ = &sl.log_records;
  }
  std::uint64_t prepare(std::size_t n, std::uint64_t now_ns, std::string& buf) override {
    if (n < records_->size())
      records_->erase(records_->begin() + static_cast<std::ptrdiff_t>(n), records_->end());
    for (auto& r : *records_) r.time_unix_nano = r.observed_time_unix_nano = now_ns;
    encode(data_, json_, buf);
    return records_->size();
  }
  std::uint64_t events_per_item() const override { return 1; }

 private:
  pdata::LogsData data_;
  pdata::Vec<pdata::LogRecord>* records_ = nullptr;
  pdata::Str load_;
  bool json_;
};

class TracesTemplate final : public Template {
 public:
  TracesTemplate(const GenOptions& o, std::size_t batch, std::uint64_t seed)
      : json_(o.client.encoding == exporter::otlp::Encoding::Json),
        per_trace_(1 + std::max(1u, o.child_spans)),  // telemetrygen: at least one child
        span_ns_(static_cast<std::uint64_t>(o.span_duration.count())),
        rng_{seed} {
    const auto& a = data_.arena;
    auto& rs = data_.resource_spans.emplace_back(a);
    fill_resource(rs.resource, o, a);
    auto& ss = rs.scope_spans.emplace_back(a);
    ss.scope.name = "telemetrygen";
    ss.spans.reserve(batch * per_trace_);
    const auto status = static_cast<pdata::StatusCode>(o.status_code);
    for (std::size_t t = 0; t < batch; ++t) {
      // The shape of telemetrygen's traces: a client root "lets-go" and server children
      // "okey-dokey-<i>", each child's parent the root.
      auto& root = ss.spans.emplace_back(a);
      root.name = "lets-go";
      root.kind = pdata::SpanKind::Client;
      root.status.code = status;
      root.attributes.push_back({"network.peer.address", pdata::AnyValue::string("1.2.3.4")});
      root.attributes.push_back({"peer.service", pdata::AnyValue::string("telemetrygen-server")});
      add_attributes(root.attributes, o.telemetry_attributes, a);
      add_load(root.attributes, o, a, load_);  // telemetrygen loads the root span only
      for (std::size_t c = 0; c + 1 < per_trace_; ++c) {
        auto& child = ss.spans.emplace_back(a);
        child.name = a.copy("okey-dokey-" + std::to_string(c));
        child.kind = pdata::SpanKind::Server;
        child.status.code = status;
        child.attributes.push_back({"network.peer.address", pdata::AnyValue::string("1.2.3.4")});
        child.attributes.push_back({"peer.service", pdata::AnyValue::string("telemetrygen-client")});
        add_attributes(child.attributes, o.telemetry_attributes, a);
      }
    }
    spans_ = &ss.spans;
  }
  std::uint64_t prepare(std::size_t n, std::uint64_t now_ns, std::string& buf) override {
    const std::size_t spans = n * per_trace_;
    if (spans < spans_->size())
      spans_->erase(spans_->begin() + static_cast<std::ptrdiff_t>(spans), spans_->end());
    for (std::size_t t = 0; t < n; ++t) {
      pdata::Span* trace = spans_->data() + t * per_trace_;
      pdata::TraceId tid;
      rng_.fill(tid);
      for (std::size_t s = 0; s < per_trace_; ++s) {
        pdata::Span& sp = trace[s];
        sp.trace_id = tid;
        rng_.fill(sp.span_id);
        // telemetrygen's timing: child i runs [now + i d, now + (i+1) d], one after another,
        // and the root spans them all.
        if (s > 0) {
          sp.parent_span_id = trace[0].span_id;
          sp.start_time_unix_nano = now_ns + (s - 1) * span_ns_;
          sp.end_time_unix_nano = sp.start_time_unix_nano + span_ns_;
        } else {
          sp.start_time_unix_nano = now_ns;
          sp.end_time_unix_nano = now_ns + (per_trace_ - 1) * span_ns_;
        }
      }
    }
    encode(data_, json_, buf);
    return spans_->size();
  }
  std::uint64_t events_per_item() const override { return per_trace_; }

 private:
  pdata::TracesData data_;
  pdata::Vec<pdata::Span>* spans_ = nullptr;
  pdata::Str load_;
  bool json_;
  std::size_t per_trace_;
  std::uint64_t span_ns_;
  Rng rng_;
};

class MetricsTemplate final : public Template {
 public:
  MetricsTemplate(const GenOptions& o, std::size_t batch, std::uint64_t start_ns)
      : json_(o.client.encoding == exporter::otlp::Encoding::Json), delta_(o.delta_temporality) {
    const auto& a = data_.arena;
    const auto temporality =
        delta_ ? pdata::AggregationTemporality::Delta : pdata::AggregationTemporality::Cumulative;
    // --trace-id / --span-id: one exemplar (value 1, taken at the start) on every point.
    pdata::Exemplar exemplar(a);
    const bool with_exemplar = !o.trace_id_hex.empty() || !o.span_id_hex.empty();
    if (with_exemplar) {
      exemplar.time_unix_nano = start_ns;
      exemplar.value_type = pdata::NumberType::Int;
      exemplar.as_int = 1;
      if (!o.trace_id_hex.empty())
        parse_hex(o.trace_id_hex, exemplar.trace_id.data(), exemplar.trace_id.size());
      if (!o.span_id_hex.empty()) parse_hex(o.span_id_hex, exemplar.span_id.data(), exemplar.span_id.size());
    }
    const auto add_exemplar = [&](pdata::Vec<pdata::Exemplar>& list) {
      if (with_exemplar) list.push_back(exemplar);
    };
    auto& rm = data_.resource_metrics.emplace_back(a);
    fill_resource(rm.resource, o, a);
    auto& sm = rm.scope_metrics.emplace_back(a);
    sm.scope.name = "telemetrygen";
    const pdata::Str name = a.copy(o.metric_name);
    sm.metrics.reserve(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      auto& m = sm.metrics.emplace_back(a);
      m.name = name;
      switch (o.metric_type) {
        case MetricKind::Gauge:
        case MetricKind::Sum: {
          m.type = o.metric_type == MetricKind::Gauge ? pdata::MetricType::Gauge : pdata::MetricType::Sum;
          if (o.metric_type == MetricKind::Sum) {
            m.temporality = temporality;
            m.is_monotonic = true;
          }
          auto& dp = m.number_points.emplace_back(a);
          dp.value_type = pdata::NumberType::Int;
          dp.start_time_unix_nano = start_ns;
          add_attributes(dp.attributes, o.telemetry_attributes, a);
          add_load(dp.attributes, o, a, load_);
          add_exemplar(dp.exemplars);
          break;
        }
        case MetricKind::Histogram: {
          m.type = pdata::MetricType::Histogram;
          m.temporality = temporality;
          auto& dp = m.histogram_points.emplace_back(a);
          dp.start_time_unix_nano = start_ns;
          for (double b : {0.0, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 1000.0})
            dp.explicit_bounds.push_back(b);
          for (std::uint64_t c : {0, 1, 1, 2, 2, 1, 1, 1, 1, 0, 0}) dp.bucket_counts.push_back(c);
          dp.count = 10;
          dp.has_sum = true;
          dp.sum = 1000;
          dp.has_min = dp.has_max = true;
          dp.min = 1;
          dp.max = 900;
          add_attributes(dp.attributes, o.telemetry_attributes, a);
          add_load(dp.attributes, o, a, load_);
          add_exemplar(dp.exemplars);
          break;
        }
        case MetricKind::ExponentialHistogram: {
          m.type = pdata::MetricType::ExponentialHistogram;
          m.temporality = temporality;
          auto& dp = m.exponential_histogram_points.emplace_back(a);
          dp.start_time_unix_nano = start_ns;
          dp.scale = 1;
          dp.positive.offset = 0;
          for (std::uint64_t c : {1, 2, 3, 4}) dp.positive.bucket_counts.push_back(c);
          dp.count = 10;
          dp.has_sum = true;
          dp.sum = 20;
          add_attributes(dp.attributes, o.telemetry_attributes, a);
          add_load(dp.attributes, o, a, load_);
          add_exemplar(dp.exemplars);
          break;
        }
      }
    }
    metrics_ = &sm.metrics;
  }
  std::uint64_t prepare(std::size_t n, std::uint64_t now_ns, std::string& buf) override {
    if (n < metrics_->size())
      metrics_->erase(metrics_->begin() + static_cast<std::ptrdiff_t>(n), metrics_->end());
    for (auto& m : *metrics_) {
      // Delta points cover the second before now (as telemetrygen); gauges have no window.
      const bool window = delta_ && m.type != pdata::MetricType::Gauge;
      const std::uint64_t start_ns = now_ns > kDeltaWindowNs ? now_ns - kDeltaWindowNs : 0;
      for (auto& dp : m.number_points) {
        dp.time_unix_nano = now_ns;
        if (window) dp.start_time_unix_nano = start_ns;
        dp.as_int = static_cast<std::int64_t>(counter_++);  // a counter, as telemetrygen's values
      }
      for (auto& dp : m.histogram_points) {
        dp.time_unix_nano = now_ns;
        if (window) dp.start_time_unix_nano = start_ns;
      }
      for (auto& dp : m.exponential_histogram_points) {
        dp.time_unix_nano = now_ns;
        if (window) dp.start_time_unix_nano = start_ns;
      }
    }
    encode(data_, json_, buf);
    return metrics_->size();
  }
  std::uint64_t events_per_item() const override { return 1; }

 private:
  static constexpr std::uint64_t kDeltaWindowNs = 1'000'000'000;
  pdata::MetricsData data_;
  pdata::Vec<pdata::Metric>* metrics_ = nullptr;
  pdata::Str load_;
  bool json_;
  bool delta_;
  std::uint64_t counter_ = 0;
};

// A token bucket of `burst` tokens refilled at `rate` per second.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst), last_(Clock::now()) {}
  // Waits for n tokens and takes them; false, taking none, when `stop()` turns true or the
  // deadline comes first. The wait goes in slices: one sleep for the whole wait ignored
  // SIGINT (up to 1 / rate seconds) and ran past --duration.
  template <class Stop>
  bool acquire(double n, Clock::time_point deadline, Stop&& stop) {
    if (rate_ <= 0) return true;
    refill();
    while (tokens_ < n) {
      if (stop()) return false;
      const auto now = Clock::now();
      if (now >= deadline) return false;
      const double wait = std::min((n - tokens_) / rate_, kSlice);
      std::this_thread::sleep_until(std::min(
          deadline, now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait))));
      refill();
    }
    tokens_ -= n;
    return true;
  }

 private:
  void refill() {
    auto now = Clock::now();
    tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * rate_);
    last_ = now;
  }
  static constexpr double kSlice = 0.05;  // seconds: how late a stop may be noticed
  double rate_, burst_, tokens_;
  Clock::time_point last_;
};

// Written by its worker only, read by the progress thread: one cache line each.
struct alignas(64) Progress {
  std::atomic<std::uint64_t> items{0};
  std::atomic<std::uint64_t> failures{0};
};

struct Shared {
  std::atomic<bool> stop{false};
  std::atomic<int> first_failure{-1};
  const std::atomic<bool>* external_stop = nullptr;
  bool stopped() const {
    return stop.load(std::memory_order_relaxed) ||
           (external_stop && external_stop->load(std::memory_order_relaxed));
  }
};

std::unique_ptr<Template> make_template(const GenOptions& o, unsigned worker, std::uint64_t now_ns) {
  switch (o.signal) {
    case pdata::Signal::Logs:
      return std::make_unique<LogsTemplate>(o, o.batch_size);
    case pdata::Signal::Traces:
      return std::make_unique<TracesTemplate>(o, o.batch_size,
                                              now_ns ^ (0x5851f42d4c957f2dULL * (worker + 1)));
    case pdata::Signal::Metrics:
      return std::make_unique<MetricsTemplate>(o, o.batch_size, now_ns);
  }
  return nullptr;
}

void run_worker(const GenOptions& o, unsigned index, exporter::otlp::OtlpClient& client,
                Clock::time_point deadline, Shared& shared, Progress& progress, WorkerResult& res) {
  auto tmpl = make_template(o, index, now_unix_nano());
  // --rate counts what telemetrygen's limiter counts: log records, data points, and spans
  // (it waits once for a trace's root and once per child).
  const double tokens_per_item = static_cast<double>(tmpl->events_per_item());
  // Capacity: one request plus 50 ms of rate. The 50 ms absorb sleep overshoot (without
  // them a loaded machine runs ~10 % under --rate), yet a worker that fell behind by more
  // (a slow export) does not burst to catch up.
  TokenBucket bucket(
      o.rate, static_cast<double>(std::max<std::size_t>(o.batch_size, 1)) * tokens_per_item + o.rate * 0.05);
  std::string buf;
  const bool timed = o.duration.count() > 0 || o.infinite;
  const Clock::time_point until = timed && !o.infinite ? deadline : Clock::time_point::max();
  std::uint64_t attempted = 0;
  while (!shared.stopped()) {
    std::size_t n = o.batch_size;
    if (!timed) {
      if (attempted >= o.count) break;
      n = static_cast<std::size_t>(std::min<std::uint64_t>(n, o.count - attempted));
    }
    if (!bucket.acquire(static_cast<double>(n) * tokens_per_item, until, [&] { return shared.stopped(); }))
      break;
    if (shared.stopped() || Clock::now() >= until) break;
    const std::uint64_t events = tmpl->prepare(n, now_unix_nano(), buf);
    const auto t0 = Clock::now();
    auto status = client.export_request(o.signal, buf);
    res.latency.record(static_cast<std::uint64_t>(std::chrono::nanoseconds(Clock::now() - t0).count()));
    ++res.requests;
    attempted += n;
    if (status.ok) {
      res.items += n;
      res.events += events;
      res.rejected += static_cast<std::uint64_t>(std::max<std::int64_t>(status.rejected, 0));
      progress.items.store(res.items, std::memory_order_relaxed);
      continue;
    }
    ++res.failures;
    res.failed_items += n;
    progress.failures.store(res.failures, std::memory_order_relaxed);
    if (res.first_error.empty()) res.first_error = status.message;
    if (!o.allow_export_failures) {
      int expected = -1;
      shared.first_failure.compare_exchange_strong(expected, static_cast<int>(index));
      shared.stop.store(true);
      break;
    }
  }
}

}  // namespace

namespace {
// telemetrygen's parseSeverity: a well-known severity text must name its number's range.
std::string check_severity(const std::string& text, std::int32_t number) {
  if (number < 1 || number > 24) return "severity-number is out of range, the valid range is [1,24]";
  static constexpr std::pair<const char*, std::int32_t> kRanges[] = {
      {"Trace", 1}, {"Debug", 5}, {"Info", 9}, {"Warn", 13}, {"Error", 17}, {"Fatal", 21}};
  for (const auto& [name, low] : kRanges) {
    if (text != name) continue;
    if (number < low || number > low + 3)
      return "severity text \"" + text + "\" does not match severity number " + std::to_string(number) +
             ", the valid range is [" + std::to_string(low) + "," + std::to_string(low + 3) + "]";
  }
  return {};
}
}  // namespace

std::string validate(const GenOptions& o) {
  if (o.workers == 0) return "--workers must be at least 1";
  // Each worker owns a client, a connection and a thread: beyond this the machine runs out
  // of memory before it runs out of load (100,000 workers took 24 GB).
  if (o.workers > kMaxWorkers) return "--workers must be at most " + std::to_string(kMaxWorkers);
  if (o.batch_size == 0) return "--batch-size must be at least 1";
  if (o.batch_size > kMaxBatchSize) return "--batch-size must be at most " + std::to_string(kMaxBatchSize);
  if (std::uint64_t{o.load_size_mib} * o.batch_size > kMaxLoadMibPerRequest)
    return "--size times --batch-size must be at most " + std::to_string(kMaxLoadMibPerRequest) +
           " (MiB of load attributes in one request)";
  if (!std::isfinite(o.rate) || o.rate < 0) return "--rate must be a number of items per second, 0 or more";
  if (o.signal == pdata::Signal::Logs)
    if (auto err = check_severity(o.severity_text, o.severity_number); !err.empty()) return err;
  if (o.duration.count() <= 0 && !o.infinite && o.count == 0)
    return std::string("either `") + std::string(pdata::to_string(o.signal)) +
           "` or `duration` must be greater than 0";
  std::uint8_t scratch[16];
  if (!o.trace_id_hex.empty() && !parse_hex(o.trace_id_hex, scratch, 16))
    return "--trace-id must be 32 hex digits, got \"" + o.trace_id_hex + "\"";
  if (!o.span_id_hex.empty() && !parse_hex(o.span_id_hex, scratch, 8))
    return "--span-id must be 16 hex digits, got \"" + o.span_id_hex + "\"";
  if (o.status_code < 0 || o.status_code > 2) return "--status-code must be Unset, Error, Ok or 0, 1, 2";
  return {};
}

GenResult run_generator(const GenOptions& o, const ClientFactory& factory, const std::atomic<bool>* stop,
                        std::FILE* progress_out) {
  GenResult result;
  result.workers.resize(o.workers);
  Shared shared;
  shared.external_stop = stop;
  std::vector<Progress> progress(o.workers);
  // Clients are created up front so a bad endpoint fails before any thread starts.
  std::vector<std::unique_ptr<exporter::otlp::OtlpClient>> clients;
  clients.reserve(o.workers);
  for (unsigned i = 0; i < o.workers; ++i) clients.push_back(factory(i));

  const auto start = Clock::now();
  // Saturated: start + a duration of centuries overflowed into the past.
  const auto deadline = o.duration >= Clock::time_point::max() - start
                            ? Clock::time_point::max()
                            : start + std::chrono::duration_cast<Clock::duration>(o.duration);
  std::vector<std::thread> threads;
  threads.reserve(o.workers);
  for (unsigned i = 0; i < o.workers; ++i)
    threads.emplace_back(
        [&, i] { run_worker(o, i, *clients[i], deadline, shared, progress[i], result.workers[i]); });

  std::atomic<bool> done{false};
  std::thread progress_thread;
  if (o.progress && progress_out) {
    progress_thread = std::thread([&] {
      std::uint64_t last = 0;
      auto next = start + std::chrono::seconds(1);
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (Clock::now() < next) continue;
        std::uint64_t items = 0, failures = 0;
        for (auto& p : progress) {
          items += p.items.load(std::memory_order_relaxed);
          failures += p.failures.load(std::memory_order_relaxed);
        }
        const double t = std::chrono::duration<double>(Clock::now() - start).count();
        std::fprintf(
            progress_out,
            "{\"progress\": {\"seconds\": %.1f, \"%s\": %llu, \"per_second\": %llu, \"failures\": %llu}}\n",
            t, std::string(pdata::to_string(o.signal)).c_str(), static_cast<unsigned long long>(items),
            static_cast<unsigned long long>(items - last), static_cast<unsigned long long>(failures));
        std::fflush(progress_out);
        last = items;
        next += std::chrono::seconds(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  done.store(true);
  if (progress_thread.joinable()) progress_thread.join();
  clients.clear();

  const int failed = shared.first_failure.load();
  if (failed >= 0) {
    result.failed = true;
    result.error = "worker " + std::to_string(failed) + ": " +
                   result.workers[static_cast<std::size_t>(failed)].first_error;
  }
  return result;
}

std::string format_report(const GenOptions& o, const GenResult& r) {
  const std::string key(pdata::to_string(o.signal));
  std::string out;
  char line[512];
  LatencyHistogram lat;
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    std::snprintf(line, sizeof line, "{\"worker\": %zu, \"%s\": %llu}\n", i, key.c_str(),
                  static_cast<unsigned long long>(r.workers[i].items));
    out += line;
    lat.merge(r.workers[i].latency);
  }
  const auto items = r.total(&WorkerResult::items);
  const auto events = r.total(&WorkerResult::events);
  const double secs = r.seconds > 0 ? r.seconds : 1e-9;
  auto ms = [&](double q) { return static_cast<double>(lat.quantile(q)) / 1e6; };
  std::snprintf(
      line, sizeof line,
      "{\"total\": {\"%s\": %llu, \"events\": %llu, \"seconds\": %.3f, \"events_per_second\": %.0f, "
      "\"requests\": %llu, \"failures\": %llu, \"failed_%s\": %llu, \"rejected\": %llu, "
      "\"latency_ms\": {\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f}}}\n",
      key.c_str(), static_cast<unsigned long long>(items), static_cast<unsigned long long>(events), r.seconds,
      static_cast<double>(events) / secs, static_cast<unsigned long long>(r.total(&WorkerResult::requests)),
      static_cast<unsigned long long>(r.total(&WorkerResult::failures)), key.c_str(),
      static_cast<unsigned long long>(r.total(&WorkerResult::failed_items)),
      static_cast<unsigned long long>(r.total(&WorkerResult::rejected)), ms(0.5), ms(0.9), ms(0.99));
  out += line;
  return out;
}

}  // namespace tern::gen
