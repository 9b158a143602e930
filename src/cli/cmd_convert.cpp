// `tern convert`: re-encodes one OTLP export request between formats.
//
// Formats are rows in two tables (readers and writers) per signal. `es-bulk` writes the
// Elasticsearch bulk NDJSON (action and document lines) exactly as the exporter would
// send it, so anyone can see what Tern makes of a request; rejects go to stderr.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "cli/command.h"
#include "encoding/elasticsearch/encoder.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "pdata/signal.h"

namespace tern::cli {
namespace {

using otlp::DecodeError;
using otlp::DecodeOptions;

// One signal's batch, whichever it is.
struct Batch {
  pdata::Signal signal;
  pdata::LogsData logs;
  pdata::TracesData traces;
  pdata::MetricsData metrics;
};

// Options a writer may consult.
struct WriteOptions {
  encoding::es::EncoderConfig es;
};

using Reader = std::optional<DecodeError> (*)(std::string_view in, Batch& b, const DecodeOptions& o);
using Writer = void (*)(const Batch& b, const WriteOptions& o, std::string& out);

template <auto Logs, auto Traces, auto Metrics>
std::optional<DecodeError> read_with(std::string_view in, Batch& b, const DecodeOptions& o) {
  switch (b.signal) {
    case pdata::Signal::Logs:
      return Logs(in, b.logs, o);
    case pdata::Signal::Traces:
      return Traces(in, b.traces, o);
    case pdata::Signal::Metrics:
      return Metrics(in, b.metrics, o);
  }
  return DecodeError{0, "", "unknown signal"};
}

template <auto Logs, auto Traces, auto Metrics>
void write_with(const Batch& b, const WriteOptions&, std::string& out) {
  switch (b.signal) {
    case pdata::Signal::Logs:
      Logs(b.logs, out);
      break;
    case pdata::Signal::Traces:
      Traces(b.traces, out);
      break;
    case pdata::Signal::Metrics:
      Metrics(b.metrics, out);
      break;
  }
}

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> r{
      {"otlp-proto",
       read_with<otlp::decode_logs_proto, otlp::decode_traces_proto, otlp::decode_metrics_proto>},
      {"otlp-json", read_with<otlp::decode_logs_json, otlp::decode_traces_json, otlp::decode_metrics_json>},
  };
  return r;
}

// Elasticsearch bulk NDJSON; events the mapping cannot encode are counted on stderr.
void write_es_bulk(const Batch& b, const WriteOptions& o, std::string& out) {
  encoding::es::Encoder encoder(o.es);
  encoding::EncodedBatch encoded;
  switch (b.signal) {
    case pdata::Signal::Logs:
      encoder.encode_logs(b.logs, encoded);
      break;
    case pdata::Signal::Traces:
      encoder.encode_traces(b.traces, encoded);
      break;
    case pdata::Signal::Metrics:
      encoder.encode_metrics(b.metrics, encoded);
      break;
  }
  out += encoded.data;
  for (std::size_t i = 0; i < encoded.stats.rejected.size(); ++i)
    if (const auto n = encoded.stats.rejected[i])
      std::fprintf(stderr, "tern convert: %llu rejected (%s)\n", static_cast<unsigned long long>(n),
                   encoding::to_string(static_cast<encoding::EncodeReject>(i)));
}

const std::map<std::string, Writer>& writers() {
  static const std::map<std::string, Writer> w{
      {"otlp-proto",
       write_with<otlp::encode_logs_proto, otlp::encode_traces_proto, otlp::encode_metrics_proto>},
      {"otlp-json", write_with<otlp::encode_logs_json, otlp::encode_traces_json, otlp::encode_metrics_json>},
      {"es-bulk", write_es_bulk},
  };
  return w;
}

template <class M>
std::vector<std::string> keys(const M& m) {
  std::vector<std::string> k;
  for (const auto& [name, _] : m) k.push_back(name);
  return k;
}

struct Args {
  std::string signal, from, to, input = "-", output = "-";
  std::string mapping = "otel";
  bool validate_utf8 = false;
  WriteOptions write;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "tern convert: %s\n", msg.c_str());
  return 1;
}

bool read_all(const std::string& path, std::string& out) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    out = std::move(ss).str();
    return !std::cin.bad();
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), {});
  return !f.bad();
}

bool write_all(const std::string& path, const std::string& data) {
  if (path == "-")
    return std::fwrite(data.data(), 1, data.size(), stdout) == data.size() && std::fflush(stdout) == 0;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  f.close();
  return !f.fail();
}

int run(Args a) {
  a.write.es.mode = *encoding::es::parse_mapping_mode(a.mapping);  // CLI11 checked the name
  Batch batch{.signal = *pdata::parse_signal(a.signal), .logs = {}, .traces = {}, .metrics = {}};
  std::string in;
  if (!read_all(a.input, in)) return fail("cannot read " + (a.input == "-" ? "stdin" : a.input));
  // The receivers' bound on decoded memory: what they would refuse, convert refuses too.
  const DecodeOptions opt{.max_depth = 64,
                          .validate_utf8 = a.validate_utf8,
                          .max_decoded_bytes = otlp::max_decoded_bytes_for(in.size())};
  if (auto err = readers().at(a.from)(in, batch, opt))
    return fail("invalid " + a.from + " " + a.signal + " input: " + err->to_string());
  std::string out;
  writers().at(a.to)(batch, a.write, out);
  if (a.to == "otlp-json") out += '\n';  // text output ends with a newline
  if (!write_all(a.output, out)) return fail("cannot write " + (a.output == "-" ? "stdout" : a.output));
  return 0;
}

const RegisterCommand kConvertCommand{
    "convert", [](CLI::App& app) {
      auto* cmd = app.add_subcommand("convert", "Convert one OTLP export request between encodings");
      auto args = std::make_shared<Args>();
      cmd->add_option("--signal", args->signal, "Signal of the request")
          ->required()
          ->check(CLI::IsMember({"logs", "traces", "metrics"}));
      cmd->add_option("--from", args->from, "Input encoding")
          ->required()
          ->check(CLI::IsMember(keys(readers())));
      cmd->add_option("--to", args->to, "Output encoding")->required()->check(CLI::IsMember(keys(writers())));
      cmd->add_option("-i,--input", args->input, "Input file ('-' = stdin)");
      cmd->add_option("-o,--output", args->output, "Output file ('-' = stdout)");
      cmd->add_option("--mapping", args->mapping,
                      "es-bulk mapping mode: otel; bodymap (logs only: a map body is the document); "
                      "none or raw (logs and traces in the Collector's original shape); "
                      "ecs (logs and traces with Elastic Common Schema field names)")
          ->transform(CLI::IsMember({"otel", "bodymap", "none", "raw", "ecs"}, CLI::ignore_case))
          ->capture_default_str();
      cmd->add_option("--logs-index", args->write.es.logs_index,
                      "es-bulk: static index for logs (default: routed)");
      cmd->add_option("--traces-index", args->write.es.traces_index, "es-bulk: static index for spans");
      cmd->add_option("--metrics-index", args->write.es.metrics_index, "es-bulk: static index for metrics");
      cmd->add_flag("--logs-dynamic-id", args->write.es.logs_dynamic_id,
                    "es-bulk: take _id from the elasticsearch.document_id attribute");
      cmd->add_flag(
          "--logs-dynamic-pipeline", args->write.es.logs_dynamic_pipeline,
          "es-bulk: take each log's ingest pipeline from the elasticsearch.ingest_pipeline attribute");
      cmd->add_flag("--validate-utf8", args->validate_utf8,
                    "Reject protobuf strings that are not valid UTF-8");
      cmd->callback([args] { set_exit_code(run(*args)); });
    }};

}  // namespace
}  // namespace tern::cli
