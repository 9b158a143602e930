// Hand-written OTLP/protobuf encoder (the generator, the SDK exporters and `tern convert`
// send through it). Field numbers follow the public opentelemetry-proto definitions, the
// same table the decoder in proto_decode*.cpp reads.
//
// Two passes over one description of each message: `Sizer` walks the batch and records the
// length of every nested message in pre-order; `Writer` walks it again in the same order,
// takes each length from that list and writes straight into the output, which was resized
// once to the exact total. Every byte is written once and nothing is back-patched, so the
// output is canonical protobuf (minimal varints) that any decoder accepts.
//
// proto3 rules: scalars equal to their default and empty strings are left out; oneof
// members (AnyValue, the number data point value, optional sum/min/max) are written whenever
// they are set, even with a default value, because their presence is the information.
#include <bit>
#include <cstring>
#include <vector>

#include "otlp/proto_codec.h"
#include "otlp/proto_wire.h"
#include "text/string_growth.h"

namespace tern::otlp {
namespace {

using namespace tern::otlp::wire;

constexpr std::size_t tag_size(std::uint32_t field) {
  return varint_size(static_cast<std::uint64_t>(field) << 3);
}

template <std::size_t N>
bool id_set(const std::array<std::uint8_t, N>& id) {
  return !pdata::is_zero(id);
}

// Counts bytes. `message()` records the length of each nested message for the Writer.
class Sizer {
 public:
  explicit Sizer(std::vector<std::uint32_t>& sizes) : sizes_(sizes) {}
  std::size_t total() const { return n_; }

  void varint(std::uint32_t f, std::uint64_t v) {
    if (v != 0) always_varint(f, v);
  }
  void always_varint(std::uint32_t f, std::uint64_t v) { n_ += tag_size(f) + varint_size(v); }
  void fixed64(std::uint32_t f, std::uint64_t v) {
    if (v != 0) always_fixed64(f, v);
  }
  void always_fixed64(std::uint32_t f, std::uint64_t) { n_ += tag_size(f) + 8; }
  void fixed32(std::uint32_t f, std::uint32_t v) {
    if (v != 0) n_ += tag_size(f) + 4;
  }
  void dbl(std::uint32_t f, double v) {
    if (std::bit_cast<std::uint64_t>(v) != 0) always_dbl(f, v);
  }
  void always_dbl(std::uint32_t f, double) { n_ += tag_size(f) + 8; }
  void bytes(std::uint32_t f, std::string_view s) {
    if (!s.empty()) always_bytes(f, s);
  }
  void always_bytes(std::uint32_t f, std::string_view s) {
    n_ += tag_size(f) + varint_size(s.size()) + s.size();
  }
  void packed_fixed64(std::uint32_t f, const pdata::Vec<std::uint64_t>& v) {
    if (!v.empty()) n_ += tag_size(f) + varint_size(v.size() * 8) + v.size() * 8;
  }
  void packed_double(std::uint32_t f, const pdata::Vec<double>& v) {
    if (!v.empty()) n_ += tag_size(f) + varint_size(v.size() * 8) + v.size() * 8;
  }
  void packed_varint(std::uint32_t f, const pdata::Vec<std::uint64_t>& v) {
    if (v.empty()) return;
    std::size_t len = 0;
    for (auto x : v) len += varint_size(x);
    n_ += tag_size(f) + varint_size(len) + len;
  }
  template <class Body>
  void message(std::uint32_t f, Body&& body) {
    const std::size_t slot = sizes_.size();
    sizes_.push_back(0);
    const std::size_t outer = n_;
    n_ = 0;
    body(*this);
    const std::size_t len = n_;
    n_ = outer + tag_size(f) + varint_size(len) + len;
    sizes_[slot] = static_cast<std::uint32_t>(len);
  }

 private:
  std::vector<std::uint32_t>& sizes_;
  std::size_t n_ = 0;
};

// Writes bytes into space the Sizer measured.
class Writer {
 public:
  Writer(const std::vector<std::uint32_t>& sizes, char* out) : sizes_(sizes), p_(out) {}
  char* position() const { return p_; }

  void varint(std::uint32_t f, std::uint64_t v) {
    if (v != 0) always_varint(f, v);
  }
  void always_varint(std::uint32_t f, std::uint64_t v) {
    tag(f, kVarint);
    put_varint(v);
  }
  void fixed64(std::uint32_t f, std::uint64_t v) {
    if (v != 0) always_fixed64(f, v);
  }
  void always_fixed64(std::uint32_t f, std::uint64_t v) {
    tag(f, kFixed64);
    std::memcpy(p_, &v, 8);
    p_ += 8;
  }
  void fixed32(std::uint32_t f, std::uint32_t v) {
    if (v == 0) return;
    tag(f, kFixed32);
    std::memcpy(p_, &v, 4);
    p_ += 4;
  }
  void dbl(std::uint32_t f, double v) {
    if (std::bit_cast<std::uint64_t>(v) != 0) always_dbl(f, v);
  }
  void always_dbl(std::uint32_t f, double v) { always_fixed64(f, std::bit_cast<std::uint64_t>(v)); }
  void bytes(std::uint32_t f, std::string_view s) {
    if (!s.empty()) always_bytes(f, s);
  }
  void always_bytes(std::uint32_t f, std::string_view s) {
    tag(f, kLen);
    put_varint(s.size());
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void packed_fixed64(std::uint32_t f, const pdata::Vec<std::uint64_t>& v) {
    if (v.empty()) return;
    tag(f, kLen);
    put_varint(v.size() * 8);
    std::memcpy(p_, v.data(), v.size() * 8);
    p_ += v.size() * 8;
  }
  void packed_double(std::uint32_t f, const pdata::Vec<double>& v) {
    if (v.empty()) return;
    tag(f, kLen);
    put_varint(v.size() * 8);
    std::memcpy(p_, v.data(), v.size() * 8);
    p_ += v.size() * 8;
  }
  void packed_varint(std::uint32_t f, const pdata::Vec<std::uint64_t>& v) {
    if (v.empty()) return;
    std::size_t len = 0;
    for (auto x : v) len += varint_size(x);
    tag(f, kLen);
    put_varint(len);
    for (auto x : v) put_varint(x);
  }
  template <class Body>
  void message(std::uint32_t f, Body&& body) {
    tag(f, kLen);
    put_varint(sizes_[next_++]);
    body(*this);
  }

 private:
  void tag(std::uint32_t f, WireType wt) { put_varint((static_cast<std::uint64_t>(f) << 3) | wt); }
  void put_varint(std::uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<char>(v);
  }

  const std::vector<std::uint32_t>& sizes_;
  std::size_t next_ = 0;
  char* p_;
};

// int32 enums and int32 fields are varints of the sign-extended 64-bit value.
constexpr std::uint64_t int32_varint(std::int32_t v) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
}

// ---- common ----

template <class W>
void kv_fields(W& w, const pdata::KeyValue& kv);

template <class W>
void any_fields(W& w, const pdata::AnyValue& v) {
  using K = pdata::ValueKind;
  switch (v.kind) {
    case K::Empty:
      break;
    case K::String:
      w.always_bytes(1, v.string_value);
      break;
    case K::Bool:
      w.always_varint(2, v.bool_value ? 1 : 0);
      break;
    case K::Int:
      w.always_varint(3, static_cast<std::uint64_t>(v.int_value));
      break;
    case K::Double:
      w.always_dbl(4, v.double_value);
      break;
    case K::Array:
      w.message(5, [&](W& a) {
        if (v.array)
          for (const auto& e : *v.array) a.message(1, [&](W& x) { any_fields(x, e); });
      });
      break;
    case K::KvList:
      w.message(6, [&](W& l) {
        if (v.kvlist)
          for (const auto& kv : *v.kvlist) l.message(1, [&](W& x) { kv_fields(x, kv); });
      });
      break;
    case K::Bytes:
      w.always_bytes(7, v.string_value);
      break;
  }
}

template <class W>
void kv_fields(W& w, const pdata::KeyValue& kv) {
  w.bytes(1, kv.key);
  w.message(2, [&](W& x) { any_fields(x, kv.value); });
}

template <class W>
void attributes(W& w, std::uint32_t f, const pdata::Attributes& attrs) {
  for (const auto& kv : attrs) w.message(f, [&](W& x) { kv_fields(x, kv); });
}

template <class W>
void resource(W& w, const pdata::Resource& r) {
  w.message(1, [&](W& x) {
    attributes(x, 1, r.attributes);
    x.varint(2, r.dropped_attributes_count);
  });
}

template <class W>
void scope(W& w, const pdata::InstrumentationScope& s) {
  w.message(1, [&](W& x) {
    x.bytes(1, s.name);
    x.bytes(2, s.version);
    attributes(x, 3, s.attributes);
    x.varint(4, s.dropped_attributes_count);
  });
}

template <std::size_t N>
std::string_view id_bytes(const std::array<std::uint8_t, N>& id) {
  return {reinterpret_cast<const char*>(id.data()), N};
}

template <class W, std::size_t N>
void id(W& w, std::uint32_t f, const std::array<std::uint8_t, N>& v) {
  if (id_set(v)) w.always_bytes(f, id_bytes(v));
}

// ---- logs ----

template <class W>
void log_record(W& w, const pdata::LogRecord& lr) {
  w.fixed64(1, lr.time_unix_nano);
  w.varint(2, int32_varint(lr.severity_number));
  w.bytes(3, lr.severity_text);
  if (lr.body.kind != pdata::ValueKind::Empty) w.message(5, [&](W& x) { any_fields(x, lr.body); });
  attributes(w, 6, lr.attributes);
  w.varint(7, lr.dropped_attributes_count);
  w.fixed32(8, lr.flags);
  id(w, 9, lr.trace_id);
  id(w, 10, lr.span_id);
  w.fixed64(11, lr.observed_time_unix_nano);
  w.bytes(12, lr.event_name);
}

template <class W>
void logs(W& w, const pdata::LogsData& d) {
  for (const auto& rl : d.resource_logs)
    w.message(1, [&](W& x) {
      resource(x, rl.resource);
      for (const auto& sl : rl.scope_logs)
        x.message(2, [&](W& y) {
          scope(y, sl.scope);
          for (const auto& lr : sl.log_records) y.message(2, [&](W& z) { log_record(z, lr); });
          y.bytes(3, sl.schema_url);
        });
      x.bytes(3, rl.schema_url);
    });
}

// ---- traces ----

template <class W>
void span(W& w, const pdata::Span& s) {
  id(w, 1, s.trace_id);
  id(w, 2, s.span_id);
  w.bytes(3, s.trace_state);
  id(w, 4, s.parent_span_id);
  w.bytes(5, s.name);
  w.varint(6, int32_varint(static_cast<std::int32_t>(s.kind)));
  w.fixed64(7, s.start_time_unix_nano);
  w.fixed64(8, s.end_time_unix_nano);
  attributes(w, 9, s.attributes);
  w.varint(10, s.dropped_attributes_count);
  for (const auto& e : s.events)
    w.message(11, [&](W& x) {
      x.fixed64(1, e.time_unix_nano);
      x.bytes(2, e.name);
      attributes(x, 3, e.attributes);
      x.varint(4, e.dropped_attributes_count);
    });
  w.varint(12, s.dropped_events_count);
  for (const auto& l : s.links)
    w.message(13, [&](W& x) {
      id(x, 1, l.trace_id);
      id(x, 2, l.span_id);
      x.bytes(3, l.trace_state);
      attributes(x, 4, l.attributes);
      x.varint(5, l.dropped_attributes_count);
      x.fixed32(6, l.flags);
    });
  w.varint(14, s.dropped_links_count);
  if (!s.status.message.empty() || s.status.code != pdata::StatusCode::Unset)
    w.message(15, [&](W& x) {
      x.bytes(2, s.status.message);
      x.varint(3, int32_varint(static_cast<std::int32_t>(s.status.code)));
    });
  w.fixed32(16, s.flags);
}

template <class W>
void traces(W& w, const pdata::TracesData& d) {
  for (const auto& rs : d.resource_spans)
    w.message(1, [&](W& x) {
      resource(x, rs.resource);
      for (const auto& ss : rs.scope_spans)
        x.message(2, [&](W& y) {
          scope(y, ss.scope);
          for (const auto& s : ss.spans) y.message(2, [&](W& z) { span(z, s); });
          y.bytes(3, ss.schema_url);
        });
      x.bytes(3, rs.schema_url);
    });
}

// ---- metrics ----

template <class W>
void exemplar(W& w, const pdata::Exemplar& e) {
  w.fixed64(2, e.time_unix_nano);
  if (e.value_type == pdata::NumberType::Double) w.always_dbl(3, e.as_double);
  id(w, 4, e.span_id);
  id(w, 5, e.trace_id);
  if (e.value_type == pdata::NumberType::Int) w.always_fixed64(6, static_cast<std::uint64_t>(e.as_int));
  attributes(w, 7, e.filtered_attributes);
}

template <class W>
void exemplars(W& w, std::uint32_t f, const pdata::Vec<pdata::Exemplar>& list) {
  for (const auto& e : list) w.message(f, [&](W& x) { exemplar(x, e); });
}

template <class W>
void number_point(W& w, const pdata::NumberDataPoint& p) {
  w.fixed64(2, p.start_time_unix_nano);
  w.fixed64(3, p.time_unix_nano);
  if (p.value_type == pdata::NumberType::Double) w.always_dbl(4, p.as_double);
  exemplars(w, 5, p.exemplars);
  if (p.value_type == pdata::NumberType::Int) w.always_fixed64(6, static_cast<std::uint64_t>(p.as_int));
  attributes(w, 7, p.attributes);
  w.varint(8, p.flags);
}

template <class W>
void histogram_point(W& w, const pdata::HistogramDataPoint& p) {
  w.fixed64(2, p.start_time_unix_nano);
  w.fixed64(3, p.time_unix_nano);
  w.fixed64(4, p.count);
  if (p.has_sum) w.always_dbl(5, p.sum);
  w.packed_fixed64(6, p.bucket_counts);
  w.packed_double(7, p.explicit_bounds);
  exemplars(w, 8, p.exemplars);
  attributes(w, 9, p.attributes);
  w.varint(10, p.flags);
  if (p.has_min) w.always_dbl(11, p.min);
  if (p.has_max) w.always_dbl(12, p.max);
}

template <class W>
void buckets(W& w, std::uint32_t f, const pdata::ExponentialBuckets& b) {
  if (b.offset == 0 && b.bucket_counts.empty()) return;
  w.message(f, [&](W& x) {
    x.varint(1, zigzag32(b.offset));
    x.packed_varint(2, b.bucket_counts);
  });
}

template <class W>
void exp_point(W& w, const pdata::ExponentialHistogramDataPoint& p) {
  attributes(w, 1, p.attributes);
  w.fixed64(2, p.start_time_unix_nano);
  w.fixed64(3, p.time_unix_nano);
  w.fixed64(4, p.count);
  if (p.has_sum) w.always_dbl(5, p.sum);
  w.varint(6, zigzag32(p.scale));
  w.fixed64(7, p.zero_count);
  buckets(w, 8, p.positive);
  buckets(w, 9, p.negative);
  w.varint(10, p.flags);
  exemplars(w, 11, p.exemplars);
  if (p.has_min) w.always_dbl(12, p.min);
  if (p.has_max) w.always_dbl(13, p.max);
  w.dbl(14, p.zero_threshold);
}

template <class W>
void summary_point(W& w, const pdata::SummaryDataPoint& p) {
  w.fixed64(2, p.start_time_unix_nano);
  w.fixed64(3, p.time_unix_nano);
  w.fixed64(4, p.count);
  w.dbl(5, p.sum);
  for (const auto& q : p.quantile_values)
    w.message(6, [&](W& x) {
      x.dbl(1, q.quantile);
      x.dbl(2, q.value);
    });
  attributes(w, 7, p.attributes);
  w.varint(8, p.flags);
}

template <class W>
void metric(W& w, const pdata::Metric& m) {
  using T = pdata::MetricType;
  w.bytes(1, m.name);
  w.bytes(2, m.description);
  w.bytes(3, m.unit);
  const auto temporality = int32_varint(static_cast<std::int32_t>(m.temporality));
  switch (m.type) {
    case T::Empty:
      break;
    case T::Gauge:
      w.message(5, [&](W& x) {
        for (const auto& p : m.number_points) x.message(1, [&](W& y) { number_point(y, p); });
      });
      break;
    case T::Sum:
      w.message(7, [&](W& x) {
        for (const auto& p : m.number_points) x.message(1, [&](W& y) { number_point(y, p); });
        x.varint(2, temporality);
        x.varint(3, m.is_monotonic ? 1 : 0);
      });
      break;
    case T::Histogram:
      w.message(9, [&](W& x) {
        for (const auto& p : m.histogram_points) x.message(1, [&](W& y) { histogram_point(y, p); });
        x.varint(2, temporality);
      });
      break;
    case T::ExponentialHistogram:
      w.message(10, [&](W& x) {
        for (const auto& p : m.exponential_histogram_points) x.message(1, [&](W& y) { exp_point(y, p); });
        x.varint(2, temporality);
      });
      break;
    case T::Summary:
      w.message(11, [&](W& x) {
        for (const auto& p : m.summary_points) x.message(1, [&](W& y) { summary_point(y, p); });
      });
      break;
  }
  attributes(w, 12, m.metadata);
}

template <class W>
void metrics(W& w, const pdata::MetricsData& d) {
  for (const auto& rm : d.resource_metrics)
    w.message(1, [&](W& x) {
      resource(x, rm.resource);
      for (const auto& sm : rm.scope_metrics)
        x.message(2, [&](W& y) {
          scope(y, sm.scope);
          for (const auto& m : sm.metrics) y.message(2, [&](W& z) { metric(z, m); });
          y.bytes(3, sm.schema_url);
        });
      x.bytes(3, rm.schema_url);
    });
}

// The nested-message lengths of the last request encoded on this thread; reused so that
// steady-state encoding allocates nothing but the output's growth.
thread_local std::vector<std::uint32_t> t_sizes;

template <class Data, class Fields>
void encode(const Data& data, std::string& out, Fields fields) {
  auto& sizes = t_sizes;
  sizes.clear();
  Sizer sizer(sizes);
  fields(sizer, data);
  const std::size_t start = out.size();
  // Every byte is written below: no zero fill (it was 2 % of the disk queue's producer).
  text::grow_for_overwrite(out, start + sizer.total());
  Writer writer(sizes, out.data() + start);
  fields(writer, data);
}

}  // namespace

void encode_logs_proto(const pdata::LogsData& data, std::string& out) {
  encode(data, out, [](auto& w, const pdata::LogsData& d) { logs(w, d); });
}
void encode_traces_proto(const pdata::TracesData& data, std::string& out) {
  encode(data, out, [](auto& w, const pdata::TracesData& d) { traces(w, d); });
}
void encode_metrics_proto(const pdata::MetricsData& data, std::string& out) {
  encode(data, out, [](auto& w, const pdata::MetricsData& d) { metrics(w, d); });
}

}  // namespace tern::otlp
