// `tern gen logs|traces|metrics`: telemetrygen's interface on workers that each own their
// exporter, rate limiter and request template (src/gen/generator.h, docs/gen.md).
#include <cctype>
#include <csignal>
#include <cstdio>

#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/flag_checks.h"
#include "cli/version.h"
#include "gen/generator.h"
#include "text/ascii.h"

namespace {

using tern::gen::GenOptions;

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

// Everything CLI11 parses into strings first, converted in the callback.
struct RawFlags {
  std::string duration = "0";
  std::string endpoint;
  bool http = false;
  bool insecure = false;
  bool insecure_skip_verify = false;
  bool mtls = false;
  std::string ca_cert, client_cert, client_key;
  std::string http_path;
  std::vector<std::string> headers, resource_attributes, telemetry_attributes;
  std::string compression = "none";
  std::string encoding = "proto";
  std::string span_duration = "123us";
  std::string status_code = "0";
  std::string metric_type = "Gauge";
  std::string temporality = "cumulative";
  std::string timeout = "10s";
  // Signed, then checked: CLI11 read "-1" into an unsigned as its largest value (a batch of
  // 2^64 - 1 items aborted, a count of it never ended).
  std::int64_t count = 1;
  std::int64_t batch_size = 1;
  bool batch_size_given = false;
  // telemetrygen's --batch (default true): false sends every item in a request of its own.
  bool batch = true;
  std::int64_t size = 0;
  std::string interval;  // empty: not given
};

void add_common(CLI::App* cmd, GenOptions& o, RawFlags& f) {
  cmd->add_option("--workers", o.workers, "Number of workers (threads) to run")->capture_default_str();
  cmd->add_option(
         "--rate", o.rate,
         "Approximately how many items per second each worker should generate. Zero means no throttling.")
      ->capture_default_str();
  cmd->add_option("--duration", f.duration,
                  "For how long to run the test (Go duration, 'inf' for infinite); overrides the count")
      ->capture_default_str();
  cmd->add_option("--otlp-endpoint", f.endpoint,
                  "Destination endpoint (default localhost:4317, or localhost:4318 with --otlp-http)");
  cmd->add_flag("--otlp-http", f.http, "Whether to use HTTP exporter rather than a gRPC one");
  cmd->add_flag("--otlp-insecure", f.insecure,
                "Whether to disable client transport security (plaintext; TLS otherwise)");
  cmd->add_flag("--otlp-insecure-skip-verify", f.insecure_skip_verify,
                "Whether to skip verifying the server's certificate (TLS without authentication)");
  cmd->add_option("--ca-cert", f.ca_cert,
                  "Trusted certificate authority (PEM file) for the server's certificate");
  cmd->add_flag("--mtls", f.mtls, "Whether to present a client certificate (mutual TLS)");
  cmd->add_option("--client-cert", f.client_cert, "Client certificate (PEM file), with --mtls");
  cmd->add_option("--client-key", f.client_key, "Client private key (PEM file), with --mtls");
  cmd->add_option("--otlp-http-url-path", f.http_path, "Which URL path to write to (default /v1/<signal>)");
  cmd->add_option("--otlp-header", f.headers,
                  "Custom header key=\"value\" for each OTLP request (repeatable)");
  cmd->add_option("--otlp-attributes", f.resource_attributes,
                  "Resource attribute key=\"value\", key=true, key=<integer> or key=[...] (repeatable)");
  cmd->add_option("--telemetry-attributes", f.telemetry_attributes,
                  "Attribute on every log record / span / data point, same formats (repeatable)");
  cmd->add_option("--service", o.service, "Service name to use")->capture_default_str();
  cmd->add_option("--batch-size", f.batch_size, "Items per export request")->capture_default_str();
  // telemetrygen's flags of the same names (its common config).
  cmd->add_flag("--batch", f.batch,
                "Whether to batch items (--batch=false: one item per export request, as telemetrygen "
                "unbatched)")
      ->default_str("true");
  cmd->add_option("--size", f.size,
                  "Desired minimum size in MiB of string data per item: that many 1 MiB attributes "
                  "load-0, load-1, ... on each log record, each trace's root span, each data point")
      ->capture_default_str();
  cmd->add_option("--interval", f.interval,
                  "telemetrygen's reporting interval (Go duration): accepted and ignored, as it changes "
                  "nothing that is sent");
  cmd->add_option("--otlp-compression", f.compression, "gzip or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"gzip", "none"}));
  cmd->add_option("--otlp-encoding", f.encoding, "OTLP/HTTP body: proto or json (gRPC is always proto)")
      ->capture_default_str()
      ->check(CLI::IsMember({"proto", "json"}));
  cmd->add_option("--otlp-timeout", f.timeout, "Timeout of one export call")->capture_default_str();
  cmd->add_option("--otlp-retries", o.client.max_retries,
                  "Retries of a 429/502/503/504 (HTTP) or UNAVAILABLE/RESOURCE_EXHAUSTED (gRPC) answer")
      ->capture_default_str();
  cmd->add_flag("--allow-export-failures", o.allow_export_failures,
                "Whether to continue running when export operations fail (instead of terminating)");
  cmd->add_flag("--progress", o.progress, "Print a progress line to stderr every second");
}

std::vector<tern::gen::Attr> parse_attrs(const std::vector<std::string>& raw, const char* flag) {
  std::vector<tern::gen::Attr> out;
  for (const auto& s : raw) {
    std::string err;
    auto a = tern::gen::parse_attribute(s, err);
    if (!a) throw CLI::ValidationError(flag, err + " (got " + s + ")");
    out.push_back(std::move(*a));
  }
  return out;
}

std::chrono::nanoseconds duration_flag(const std::string& text, const char* flag, bool* infinite = nullptr) {
  std::string err;
  auto d = tern::gen::parse_go_duration(text, err);
  if (!d) {
    if (err.empty() && infinite) {
      *infinite = true;
      return std::chrono::nanoseconds(0);
    }
    throw CLI::ValidationError(flag, err.empty() ? "infinite is not allowed here" : err);
  }
  return *d;
}

int run(GenOptions& o, const RawFlags& f) {
  o.duration = duration_flag(f.duration, "--duration", &o.infinite);
  if (f.batch_size < 1) {
    std::fprintf(stderr, "tern gen: --batch-size must be at least 1\n");
    return 2;
  }
  o.batch_size = static_cast<std::size_t>(f.batch_size);
  if (!f.batch) {
    if (f.batch_size_given && f.batch_size != 1) {
      std::fprintf(
          stderr, "tern gen: --batch=false sends one item per request; it cannot go with --batch-size %lld\n",
          static_cast<long long>(f.batch_size));
      return 2;
    }
    o.batch_size = 1;
  }
  if (f.size < 0 || f.size > static_cast<std::int64_t>(tern::gen::kMaxLoadMibPerRequest)) {
    std::fprintf(stderr, "tern gen: --size must be from 0 to %llu (MiB per item)\n",
                 static_cast<unsigned long long>(tern::gen::kMaxLoadMibPerRequest));
    return 2;
  }
  o.load_size_mib = static_cast<std::uint32_t>(f.size);
  if (!f.interval.empty()) {
    duration_flag(f.interval, "--interval");  // a bad value is still a usage error
    // telemetrygen declares it ("Reporting interval") and no generator of it reads it.
    std::fprintf(stderr, "tern gen: --interval is accepted for telemetrygen compatibility and ignored\n");
  }
  if (o.marshal)
    std::fprintf(stderr,
                 "tern gen: --marshal is accepted for telemetrygen compatibility and ignored (it does not "
                 "change the spans sent)\n");
  o.count = f.count > 0 ? static_cast<std::uint64_t>(f.count) : 0;  // 0 or less: an error without --duration
  o.client.protocol = f.http ? tern::exporter::otlp::Protocol::Http : tern::exporter::otlp::Protocol::Grpc;
  o.client.endpoint = !f.endpoint.empty() ? f.endpoint : f.http ? "localhost:4318" : "localhost:4317";
  o.client.url_path = f.http_path;
  o.client.user_agent = std::string("tern-gen/") + tern::cli::kVersion;
  o.client.gzip = f.compression == "gzip";
  o.client.encoding =
      f.encoding == "json" ? tern::exporter::otlp::Encoding::Json : tern::exporter::otlp::Encoding::Proto;
  // Rounded up: 500us truncated to 0, which is no timeout at all.
  o.client.timeout = std::chrono::ceil<std::chrono::milliseconds>(duration_flag(f.timeout, "--otlp-timeout"));
  for (const auto& a : parse_attrs(f.headers, "--otlp-header")) {
    // Headers are strings on the wire; telemetrygen also accepts key=true.
    const auto& v = a.second;
    std::string value = v.kind == tern::gen::AttrValue::Kind::String ? v.s
                        : v.kind == tern::gen::AttrValue::Kind::Bool ? (v.b ? "true" : "false")
                        : v.kind == tern::gen::AttrValue::Kind::Int  ? std::to_string(v.i)
                                                                     : "";
    o.client.headers.emplace_back(a.first, value);
  }
  o.resource_attributes = parse_attrs(f.resource_attributes, "--otlp-attributes");
  o.telemetry_attributes = parse_attrs(f.telemetry_attributes, "--telemetry-attributes");
  // As telemetrygen: TLS unless --otlp-insecure (for OTLP/HTTP: https://).
  if (!f.insecure) {
    if (f.mtls && (f.client_cert.empty() || f.client_key.empty())) {
      std::fprintf(stderr, "tern gen: --mtls needs --client-cert and --client-key\n");
      return 2;
    }
    auto& tls = o.client.tls.emplace();
    tls.ca_file = f.ca_cert;
    if (f.mtls) {
      tls.cert_file = f.client_cert;
      tls.key_file = f.client_key;
    }
    tls.insecure_skip_verify = f.insecure_skip_verify;
  } else if (f.mtls || !f.ca_cert.empty() || f.insecure_skip_verify) {
    std::fprintf(stderr,
                 "tern gen: --otlp-insecure sends plaintext; it cannot be combined with --ca-cert, "
                 "--mtls or --otlp-insecure-skip-verify\n");
    return 2;
  }
  if (auto err = tern::gen::validate(o); !err.empty()) {
    std::fprintf(stderr, "tern gen: %s\n", err.c_str());
    return 2;
  }
  std::unique_ptr<tern::exporter::otlp::OtlpClient> probe;
  try {
    probe = tern::exporter::otlp::make_otlp_client(o.client);  // endpoint syntax check
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tern gen: %s\n", e.what());
    return 2;
  }
  probe.reset();
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  std::signal(SIGPIPE, SIG_IGN);
  auto result = tern::gen::run_generator(
      o, [&](unsigned) { return tern::exporter::otlp::make_otlp_client(o.client); }, &g_interrupted, stderr);
  std::fputs(tern::gen::format_report(o, result).c_str(), stdout);
  std::fflush(stdout);
  if (result.failed) {
    std::fprintf(stderr, "tern gen: export failed: %s\n", result.error.c_str());
    return 1;
  }
  return 0;
}

void add_signal(CLI::App* gen, tern::pdata::Signal signal) {
  const std::string name(tern::pdata::to_string(signal));
  auto* cmd = gen->add_subcommand(name, "Generate " + name);
  auto o = std::make_shared<GenOptions>();
  auto f = std::make_shared<RawFlags>();
  o->signal = signal;
  add_common(cmd, *o, *f);
  switch (signal) {
    case tern::pdata::Signal::Logs:
      cmd->add_option("--logs", f->count,
                      "Number of logs to generate in each worker (ignored if duration is provided)")
          ->capture_default_str();
      cmd->add_option("--body", o->body, "Body of the log")->capture_default_str();
      cmd->add_option("--severity-text", o->severity_text, "Severity text of the log")->capture_default_str();
      cmd->add_option("--severity-number", o->severity_number, "Severity number of the log, 1 to 24")
          ->capture_default_str()
          ->check(tern::cli::integer_range(1, 24));
      cmd->add_option("--trace-id", o->trace_id_hex, "TraceID of the log (32 hex digits)");
      cmd->add_option("--span-id", o->span_id_hex, "SpanID of the log (16 hex digits)");
      break;
    case tern::pdata::Signal::Traces:
      cmd->add_option("--traces", f->count,
                      "Number of traces to generate in each worker (ignored if duration is provided)")
          ->capture_default_str();
      cmd->add_option("--child-spans", o->child_spans, "Number of child spans per trace")
          ->capture_default_str();
      cmd->add_option("--span-duration", f->span_duration, "The duration of each generated span")
          ->capture_default_str();
      cmd->add_option("--status-code", f->status_code,
                      "Status code of the spans: Unset, Error, Ok or 0, 1, 2")
          ->capture_default_str();
      cmd->add_flag("--marshal", o->marshal,
                    "Whether to marshal trace context via HTTP headers (no effect on the data)");
      break;
    case tern::pdata::Signal::Metrics:
      cmd->add_option("--metrics", f->count,
                      "Number of metrics to generate in each worker (ignored if duration is provided)")
          ->capture_default_str();
      cmd->add_option("--metric-type", f->metric_type, "Gauge, Sum, Histogram or ExponentialHistogram")
          ->capture_default_str()
          ->check(CLI::IsMember({"Gauge", "Sum", "Histogram", "ExponentialHistogram"}));
      // --otlp-metric-name is telemetrygen's spelling; --metric-name was Tern's first.
      cmd->add_option("--metric-name,--otlp-metric-name", o->metric_name, "Name of the metric")
          ->capture_default_str();
      cmd->add_option("--aggregation-temporality", f->temporality,
                      "Temporality of Sum, Histogram and ExponentialHistogram metrics: delta or cumulative")
          ->capture_default_str()
          ->check(CLI::IsMember({"delta", "cumulative"}));
      cmd->add_option("--trace-id", o->trace_id_hex,
                      "TraceID of the exemplar on each data point (32 hex digits)");
      cmd->add_option("--span-id", o->span_id_hex,
                      "SpanID of the exemplar on each data point (16 hex digits)");
      break;
  }
  cmd->callback([o, f, signal, cmd] {
    f->batch_size_given = cmd->count("--batch-size") > 0;
    if (signal == tern::pdata::Signal::Traces) {
      o->span_duration = duration_flag(f->span_duration, "--span-duration");
      // telemetrygen numbering: Unset=0, Error=1, Ok=2 (its --status-code help); OTLP has Ok=1,
      // Error=2. Any case, and empty for Unset, as telemetrygen's strings.ToLower switch.
      const std::string s = tern::text::ascii_lower(f->status_code);
      if (s.empty() || s == "unset" || s == "0")
        o->status_code = 0;
      else if (s == "error" || s == "1")
        o->status_code = 2;
      else if (s == "ok" || s == "2")
        o->status_code = 1;
      else
        throw CLI::ValidationError("--status-code",
                                   "one of Unset, Error, Ok or 0, 1, 2, got " + f->status_code);
    }
    if (signal == tern::pdata::Signal::Metrics) {
      const std::string& t = f->metric_type;
      o->metric_type = t == "Sum"                    ? tern::gen::MetricKind::Sum
                       : t == "Histogram"            ? tern::gen::MetricKind::Histogram
                       : t == "ExponentialHistogram" ? tern::gen::MetricKind::ExponentialHistogram
                                                     : tern::gen::MetricKind::Gauge;
      o->delta_temporality = f->temporality == "delta";
    }
    tern::cli::set_exit_code(run(*o, *f));
  });
}

const tern::cli::RegisterCommand kGenCommand{
    "gen", [](CLI::App& app) {
      auto* gen = app.add_subcommand("gen", "Generate OTLP load (telemetrygen-compatible flags)");
      gen->require_subcommand(1);
      add_signal(gen, tern::pdata::Signal::Logs);
      add_signal(gen, tern::pdata::Signal::Traces);
      add_signal(gen, tern::pdata::Signal::Metrics);
    }};

}  // namespace
