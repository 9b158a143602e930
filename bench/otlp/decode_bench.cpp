// OTLP codec throughput (issue #2): Decode/<signal>/<codec>/<size> decodes one export
// request of the spec's encoding workload (shared/spec/benchmarks.md) into a fresh batch,
// as a receiver does per request; Encode/<signal>/proto/<size> writes it back;
// Memcpy/<signal>/<size> copies the same protobuf bytes, the ceiling, in the same run.
// Counters: events_per_second, bytes_per_second (input bytes), allocs_per_op and
// bytes_per_op (heap, per request: the arena's chunks), input_bytes_per_op.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

#include "gen/workload.h"
#include "otlp/json_codec.h"
#include "otlp/proto_codec.h"
#include "support/alloc_counter.h"

namespace {

using namespace tern;

struct Size {
  const char* name;
  std::size_t n;
};
constexpr Size kSizes[] = {{"small", 10}, {"medium", 100}, {"large", 1000}, {"xlarge", 10000}};

void rates(benchmark::State& st, std::size_t events, std::size_t bytes) {
  st.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events * st.iterations()), benchmark::Counter::kIsRate);
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes * st.iterations()));
  st.counters["input_bytes_per_op"] = static_cast<double>(bytes);
}

template <class Data>
struct Signal {
  const char* name;
  void (*build)(std::size_t, Data&, std::uint64_t, std::uint64_t);
  std::optional<otlp::DecodeError> (*decode_proto)(std::string_view, Data&, const otlp::DecodeOptions&);
  std::optional<otlp::DecodeError> (*decode_json)(std::string_view, Data&, const otlp::DecodeOptions&);
  void (*encode_proto)(const Data&, std::string&);
  void (*encode_json)(const Data&, std::string&);
  std::size_t events_per_item;
};

template <class Data>
void register_signal(const Signal<Data>& sig) {
  for (const Size& s : kSizes) {
    Data data;
    sig.build(s.n, data, gen::now_unix_nano(), 0);
    auto proto = std::make_shared<std::string>();
    auto json = std::make_shared<std::string>();
    sig.encode_proto(data, *proto);
    sig.encode_json(data, *json);
    const std::size_t events = s.n * sig.events_per_item;
    const std::string suffix = std::string(sig.name) + "/" + s.name;

    auto decode = [=](benchmark::State& st, const std::string& in, auto fn) {
      {
        bench::AllocScope allocs(st);
        for (auto _ : st) {
          Data out;
          if (fn(in, out, otlp::DecodeOptions{})) st.SkipWithError("decode failed");
          benchmark::DoNotOptimize(out.arena.resource());
        }
      }
      rates(st, events, in.size());
    };
    benchmark::RegisterBenchmark(("Decode/" + std::string(sig.name) + "/proto/" + s.name).c_str(),
                                 [=](benchmark::State& st) { decode(st, *proto, sig.decode_proto); });
    benchmark::RegisterBenchmark(("Decode/" + std::string(sig.name) + "/json/" + s.name).c_str(),
                                 [=](benchmark::State& st) { decode(st, *json, sig.decode_json); });
    benchmark::RegisterBenchmark(("Encode/" + std::string(sig.name) + "/proto/" + s.name).c_str(),
                                 [=](benchmark::State& st) {
                                   Data d;
                                   sig.decode_proto(*proto, d, otlp::DecodeOptions{});
                                   std::string out;
                                   sig.encode_proto(d, out);  // warm: output and size list at full size
                                   {
                                     bench::AllocScope allocs(st);
                                     for (auto _ : st) {
                                       out.clear();
                                       sig.encode_proto(d, out);
                                       benchmark::DoNotOptimize(out.data());
                                     }
                                   }
                                   rates(st, events, out.size());
                                 });
    benchmark::RegisterBenchmark(("Memcpy/" + suffix).c_str(), [=](benchmark::State& st) {
      std::string dst(proto->size(), '\0');
      {
        bench::AllocScope allocs(st);
        for (auto _ : st) {
          std::memcpy(dst.data(), proto->data(), proto->size());
          benchmark::DoNotOptimize(dst.data());
          benchmark::ClobberMemory();
        }
      }
      rates(st, events, proto->size());
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_signal(Signal<pdata::LogsData>{"logs", gen::build_logs_workload, otlp::decode_logs_proto,
                                          otlp::decode_logs_json, otlp::encode_logs_proto,
                                          otlp::encode_logs_json, 1});
  register_signal(Signal<pdata::TracesData>{"traces", gen::build_traces_workload, otlp::decode_traces_proto,
                                            otlp::decode_traces_json, otlp::encode_traces_proto,
                                            otlp::encode_traces_json, 1});
  register_signal(Signal<pdata::MetricsData>{"metrics", gen::build_metrics_workload,
                                             otlp::decode_metrics_proto, otlp::decode_metrics_json,
                                             otlp::encode_metrics_proto, otlp::encode_metrics_json, 7});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
