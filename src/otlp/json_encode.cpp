// OTLP/JSON encoding: a hand-rolled writer (no DOM), proto3 JSON mapping rules:
// default-valued fields are omitted, 64-bit integers are strings, enums integers.
#include <simdjson.h>

#include <charconv>
#include <cmath>

#include "otlp/json_codec.h"
#include "text/base64.h"

namespace tern::otlp {
namespace {

using namespace tern::pdata;

class Writer {
 public:
  explicit Writer(std::string& out) : o_(out) {}

  void begin_object() {
    o_ += '{';
    first_ = true;
  }
  void end_object() {
    o_ += '}';
    first_ = false;
  }
  void begin_array() {
    o_ += '[';
    first_ = true;
  }
  void end_array() {
    o_ += ']';
    first_ = false;
  }
  void key(std::string_view k) {  // keys are our own ASCII literals: no escaping
    comma();
    o_ += '"';
    o_ += k;
    o_ += "\":";
  }
  void element() { comma(); }  // before each array element

  void string(std::string_view s);
  void u64_string(std::uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    o_ += '"';
    o_.append(buf, r.ptr);
    o_ += '"';
  }
  void i64_string(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    o_ += '"';
    o_.append(buf, r.ptr);
    o_ += '"';
  }
  void number(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    o_.append(buf, r.ptr);
  }
  void dbl(double d) {
    if (std::isnan(d)) {
      o_ += "\"NaN\"";
    } else if (std::isinf(d)) {
      o_ += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    } else {
      char buf[32];  // shortest representation that round-trips
      auto r = std::to_chars(buf, buf + sizeof buf, d);
      o_.append(buf, r.ptr);
    }
  }
  void boolean(bool b) { o_ += b ? "true" : "false"; }
  template <std::size_t N>
  void hex(const std::array<std::uint8_t, N>& id) {
    static constexpr char kHex[] = "0123456789abcdef";
    o_ += '"';
    for (auto b : id) {
      o_ += kHex[b >> 4];
      o_ += kHex[b & 15];
    }
    o_ += '"';
  }
  void base64(std::string_view s);

  // Field helpers that skip defaults.
  void str_field(std::string_view k, std::string_view v) {
    if (v.empty()) return;
    key(k);
    string(v);
  }
  void u64_field(std::string_view k, std::uint64_t v) {
    if (v == 0) return;
    key(k);
    u64_string(v);
  }
  void int_field(std::string_view k, std::int64_t v) {
    if (v == 0) return;
    key(k);
    number(v);
  }
  void dbl_field(std::string_view k, double v) {
    if (v == 0 && !std::signbit(v)) return;
    key(k);
    dbl(v);
  }
  template <std::size_t N>
  void id_field(std::string_view k, const std::array<std::uint8_t, N>& id) {
    if (is_zero(id)) return;
    key(k);
    hex(id);
  }

 private:
  void comma() {
    if (!first_) o_ += ',';
    first_ = false;
  }
  std::string& o_;
  bool first_ = true;
};

// Escapes per RFC 8259. Invalid UTF-8 (protobuf strings may carry any bytes) would
// make the output unparsable, so each invalid byte becomes U+FFFD.
void Writer::string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool valid = simdjson::validate_utf8(s.data(), s.size());
  o_ += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        o_ += "\\\"";
        continue;
      case '\\':
        o_ += "\\\\";
        continue;
      case '\n':
        o_ += "\\n";
        continue;
      case '\r':
        o_ += "\\r";
        continue;
      case '\t':
        o_ += "\\t";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      o_ += "\\u00";
      o_ += kHex[c >> 4];
      o_ += kHex[c & 15];
    } else if (c < 0x80 || valid) {
      o_ += static_cast<char>(c);
    } else {
      // Slow path: copy well-formed sequences, replace the bytes that are not.
      std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
      if (len && i + len <= s.size() && simdjson::validate_utf8(s.data() + i, len)) {
        o_.append(s.data() + i, len);
        i += len - 1;
      } else {
        o_ += "\xef\xbf\xbd";
      }
    }
  }
  o_ += '"';
}

void Writer::base64(std::string_view s) {
  const std::size_t at = o_.size();
  o_.resize(at + text::base64_size(s.size()) + 3);
  char* d = o_.data() + at;
  *d++ = '"';
  d = text::base64(d, s);
  *d++ = '"';
  o_.resize(static_cast<std::size_t>(d - o_.data()));
}

class Encoder {
 public:
  explicit Encoder(std::string& out) : w(out) {}
  Writer w;

  void any_value(const AnyValue& v) {
    w.begin_object();
    switch (v.kind) {
      case ValueKind::Empty:
        break;
      case ValueKind::String:
        w.key("stringValue");
        w.string(v.string_value);
        break;
      case ValueKind::Bool:
        w.key("boolValue");
        w.boolean(v.bool_value);
        break;
      case ValueKind::Int:
        w.key("intValue");
        w.i64_string(v.int_value);
        break;
      case ValueKind::Double:
        w.key("doubleValue");
        w.dbl(v.double_value);
        break;
      case ValueKind::Bytes:
        w.key("bytesValue");
        w.base64(v.string_value);
        break;
      case ValueKind::Array:
        w.key("arrayValue");
        w.begin_object();
        if (v.array && !v.array->empty()) {
          w.key("values");
          w.begin_array();
          for (const auto& e : *v.array) {
            w.element();
            any_value(e);
          }
          w.end_array();
        }
        w.end_object();
        break;
      case ValueKind::KvList:
        w.key("kvlistValue");
        w.begin_object();
        if (v.kvlist && !v.kvlist->empty()) {
          w.key("values");
          key_values(*v.kvlist);
        }
        w.end_object();
        break;
    }
    w.end_object();
  }

  void key_values(const Vec<KeyValue>& kvs) {
    w.begin_array();
    for (const auto& kv : kvs) {
      w.element();
      w.begin_object();
      w.key("key");
      w.string(kv.key);
      w.key("value");
      any_value(kv.value);
      w.end_object();
    }
    w.end_array();
  }
  void attributes(std::string_view k, const Vec<KeyValue>& kvs) {
    if (kvs.empty()) return;
    w.key(k);
    key_values(kvs);
  }

  template <class T, class F>
  void list(std::string_view k, const Vec<T>& items, F&& one) {
    if (items.empty()) return;
    w.key(k);
    w.begin_array();
    for (const auto& it : items) {
      w.element();
      w.begin_object();
      one(it);
      w.end_object();
    }
    w.end_array();
  }

  void resource(const Resource& r) {
    if (r.attributes.empty() && r.dropped_attributes_count == 0) return;
    w.key("resource");
    w.begin_object();
    attributes("attributes", r.attributes);
    w.int_field("droppedAttributesCount", r.dropped_attributes_count);
    w.end_object();
  }
  void scope(const InstrumentationScope& s) {
    if (s.name.empty() && s.version.empty() && s.attributes.empty() && s.dropped_attributes_count == 0)
      return;
    w.key("scope");
    w.begin_object();
    w.str_field("name", s.name);
    w.str_field("version", s.version);
    attributes("attributes", s.attributes);
    w.int_field("droppedAttributesCount", s.dropped_attributes_count);
    w.end_object();
  }

  // --- logs ---
  void log_record(const LogRecord& r) {
    w.u64_field("timeUnixNano", r.time_unix_nano);
    w.u64_field("observedTimeUnixNano", r.observed_time_unix_nano);
    w.int_field("severityNumber", r.severity_number);
    w.str_field("severityText", r.severity_text);
    if (r.body.kind != ValueKind::Empty) {
      w.key("body");
      any_value(r.body);
    }
    attributes("attributes", r.attributes);
    w.int_field("droppedAttributesCount", r.dropped_attributes_count);
    w.int_field("flags", r.flags);
    w.id_field("traceId", r.trace_id);
    w.id_field("spanId", r.span_id);
    w.str_field("eventName", r.event_name);
  }

  // --- traces ---
  void span(const Span& s) {
    w.id_field("traceId", s.trace_id);
    w.id_field("spanId", s.span_id);
    w.str_field("traceState", s.trace_state);
    w.id_field("parentSpanId", s.parent_span_id);
    w.int_field("flags", s.flags);
    w.str_field("name", s.name);
    w.int_field("kind", static_cast<std::int32_t>(s.kind));
    w.u64_field("startTimeUnixNano", s.start_time_unix_nano);
    w.u64_field("endTimeUnixNano", s.end_time_unix_nano);
    attributes("attributes", s.attributes);
    w.int_field("droppedAttributesCount", s.dropped_attributes_count);
    list("events", s.events, [&](const SpanEvent& e) {
      w.u64_field("timeUnixNano", e.time_unix_nano);
      w.str_field("name", e.name);
      attributes("attributes", e.attributes);
      w.int_field("droppedAttributesCount", e.dropped_attributes_count);
    });
    w.int_field("droppedEventsCount", s.dropped_events_count);
    list("links", s.links, [&](const SpanLink& l) {
      w.id_field("traceId", l.trace_id);
      w.id_field("spanId", l.span_id);
      w.str_field("traceState", l.trace_state);
      attributes("attributes", l.attributes);
      w.int_field("droppedAttributesCount", l.dropped_attributes_count);
      w.int_field("flags", l.flags);
    });
    w.int_field("droppedLinksCount", s.dropped_links_count);
    if (!s.status.message.empty() || s.status.code != StatusCode::Unset) {
      w.key("status");
      w.begin_object();
      w.str_field("message", s.status.message);
      w.int_field("code", static_cast<std::int32_t>(s.status.code));
      w.end_object();
    }
  }

  // --- metrics ---
  void number_value(NumberType t, double d, std::int64_t i) {
    if (t == NumberType::Double) {
      w.key("asDouble");
      w.dbl(d);
    } else if (t == NumberType::Int) {
      w.key("asInt");
      w.i64_string(i);
    }
  }
  void exemplars(const Vec<Exemplar>& ex) {
    list("exemplars", ex, [&](const Exemplar& e) {
      attributes("filteredAttributes", e.filtered_attributes);
      w.u64_field("timeUnixNano", e.time_unix_nano);
      number_value(e.value_type, e.as_double, e.as_int);
      w.id_field("spanId", e.span_id);
      w.id_field("traceId", e.trace_id);
    });
  }
  template <class P>
  void point_head(const P& p) {
    attributes("attributes", p.attributes);
    w.u64_field("startTimeUnixNano", p.start_time_unix_nano);
    w.u64_field("timeUnixNano", p.time_unix_nano);
  }
  void u64_list(std::string_view k, const Vec<std::uint64_t>& v) {
    if (v.empty()) return;
    w.key(k);
    w.begin_array();
    for (auto x : v) {
      w.element();
      w.u64_string(x);
    }
    w.end_array();
  }
  void optional_dbl(std::string_view k, bool has, double v) {
    if (!has) return;
    w.key(k);
    w.dbl(v);
  }
  void buckets(std::string_view k, const ExponentialBuckets& b) {
    if (b.offset == 0 && b.bucket_counts.empty()) return;
    w.key(k);
    w.begin_object();
    w.int_field("offset", b.offset);
    u64_list("bucketCounts", b.bucket_counts);
    w.end_object();
  }

  void metric(const Metric& m) {
    w.str_field("name", m.name);
    w.str_field("description", m.description);
    w.str_field("unit", m.unit);
    auto temporality = [&] {
      w.int_field("aggregationTemporality", static_cast<std::int32_t>(m.temporality));
    };
    auto number_points = [&] {
      list("dataPoints", m.number_points, [&](const NumberDataPoint& p) {
        point_head(p);
        number_value(p.value_type, p.as_double, p.as_int);
        exemplars(p.exemplars);
        w.int_field("flags", p.flags);
      });
    };
    switch (m.type) {
      case MetricType::Empty:
        break;
      case MetricType::Gauge:
        w.key("gauge");
        w.begin_object();
        number_points();
        w.end_object();
        break;
      case MetricType::Sum:
        w.key("sum");
        w.begin_object();
        number_points();
        temporality();
        if (m.is_monotonic) {
          w.key("isMonotonic");
          w.boolean(true);
        }
        w.end_object();
        break;
      case MetricType::Histogram:
        w.key("histogram");
        w.begin_object();
        list("dataPoints", m.histogram_points, [&](const HistogramDataPoint& p) {
          point_head(p);
          w.u64_field("count", p.count);
          optional_dbl("sum", p.has_sum, p.sum);
          u64_list("bucketCounts", p.bucket_counts);
          if (!p.explicit_bounds.empty()) {
            w.key("explicitBounds");
            w.begin_array();
            for (double b : p.explicit_bounds) {
              w.element();
              w.dbl(b);
            }
            w.end_array();
          }
          exemplars(p.exemplars);
          w.int_field("flags", p.flags);
          optional_dbl("min", p.has_min, p.min);
          optional_dbl("max", p.has_max, p.max);
        });
        temporality();
        w.end_object();
        break;
      case MetricType::ExponentialHistogram:
        w.key("exponentialHistogram");
        w.begin_object();
        list("dataPoints", m.exponential_histogram_points, [&](const ExponentialHistogramDataPoint& p) {
          point_head(p);
          w.u64_field("count", p.count);
          optional_dbl("sum", p.has_sum, p.sum);
          w.int_field("scale", p.scale);
          w.u64_field("zeroCount", p.zero_count);
          buckets("positive", p.positive);
          buckets("negative", p.negative);
          w.int_field("flags", p.flags);
          exemplars(p.exemplars);
          optional_dbl("min", p.has_min, p.min);
          optional_dbl("max", p.has_max, p.max);
          w.dbl_field("zeroThreshold", p.zero_threshold);
        });
        temporality();
        w.end_object();
        break;
      case MetricType::Summary:
        w.key("summary");
        w.begin_object();
        list("dataPoints", m.summary_points, [&](const SummaryDataPoint& p) {
          point_head(p);
          w.u64_field("count", p.count);
          w.dbl_field("sum", p.sum);
          if (!p.quantile_values.empty()) {
            w.key("quantileValues");
            w.begin_array();
            for (const auto& q : p.quantile_values) {
              w.element();
              w.begin_object();
              w.dbl_field("quantile", q.quantile);
              w.dbl_field("value", q.value);
              w.end_object();
            }
            w.end_array();
          }
          w.int_field("flags", p.flags);
        });
        w.end_object();
        break;
    }
    attributes("metadata", m.metadata);
  }
};

}  // namespace

void encode_logs_json(const LogsData& data, std::string& out) {
  Encoder e(out);
  e.w.begin_object();
  e.list("resourceLogs", data.resource_logs, [&](const ResourceLogs& rl) {
    e.resource(rl.resource);
    e.list("scopeLogs", rl.scope_logs, [&](const ScopeLogs& sl) {
      e.scope(sl.scope);
      e.list("logRecords", sl.log_records, [&](const LogRecord& r) { e.log_record(r); });
      e.w.str_field("schemaUrl", sl.schema_url);
    });
    e.w.str_field("schemaUrl", rl.schema_url);
  });
  e.w.end_object();
}

void encode_traces_json(const TracesData& data, std::string& out) {
  Encoder e(out);
  e.w.begin_object();
  e.list("resourceSpans", data.resource_spans, [&](const ResourceSpans& rs) {
    e.resource(rs.resource);
    e.list("scopeSpans", rs.scope_spans, [&](const ScopeSpans& ss) {
      e.scope(ss.scope);
      e.list("spans", ss.spans, [&](const Span& s) { e.span(s); });
      e.w.str_field("schemaUrl", ss.schema_url);
    });
    e.w.str_field("schemaUrl", rs.schema_url);
  });
  e.w.end_object();
}

void encode_metrics_json(const MetricsData& data, std::string& out) {
  Encoder e(out);
  e.w.begin_object();
  e.list("resourceMetrics", data.resource_metrics, [&](const ResourceMetrics& rm) {
    e.resource(rm.resource);
    e.list("scopeMetrics", rm.scope_metrics, [&](const ScopeMetrics& sm) {
      e.scope(sm.scope);
      e.list("metrics", sm.metrics, [&](const Metric& m) { e.metric(m); });
      e.w.str_field("schemaUrl", sm.schema_url);
    });
    e.w.str_field("schemaUrl", rm.schema_url);
  });
  e.w.end_object();
}

}  // namespace tern::otlp
