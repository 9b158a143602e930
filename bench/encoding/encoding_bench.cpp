// Encode/<signal>/<impl>/<size> and Memcpy/<size> (shared/spec/benchmarks.md).
// Input batches are built once; encoder and output batch are reused across
// iterations, so allocation counters show the steady state.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>

#include "objmodel.h"
#include "support/alloc_counter.h"
#include "workload.h"

namespace {

using tern::encoding::EncodedBatch;
using tern::encoding::es::Encoder;
using tern::encoding::es::EncoderConfig;

struct Size {
  const char* name;
  std::size_t n;
};
constexpr Size kSizes[] = {{"small", 10}, {"medium", 100}, {"large", 1000}, {"xlarge", 10000}};

template <class Impl, class Data>
void run(benchmark::State& state, const Data& data, std::size_t events,
         void (Impl::*encode)(const Data&, EncodedBatch&)) {
  Impl impl{EncoderConfig{}};
  EncodedBatch out;
  (impl.*encode)(data, out);  // warm up: scratch and output reach their steady size
  std::size_t bytes = out.bytes();
  {
    tern::bench::AllocScope allocs(state);
    for (auto _ : state) {
      out.clear();
      (impl.*encode)(data, out);
      benchmark::DoNotOptimize(out.data.data());
      bytes = out.bytes();
    }
  }
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["output_bytes_per_op"] = static_cast<double>(bytes);
}

template <class Data, class Build>
std::shared_ptr<Data> make(std::size_t n, Build build) {
  auto d = std::make_shared<Data>(std::size_t{1} << 20);
  build(n, *d);
  return d;
}

void register_all() {
  for (const Size& s : kSizes) {
    auto logs = make<tern::pdata::LogsData>(s.n, tern::bench::build_logs_workload);
    auto traces = make<tern::pdata::TracesData>(s.n, tern::bench::build_traces_workload);
    auto metrics = make<tern::pdata::MetricsData>(s.n, tern::bench::build_metrics_workload);
    const std::string sz = s.name;
    const std::size_t n = s.n;
    benchmark::RegisterBenchmark(("Encode/logs/direct/" + sz).c_str(), [=](benchmark::State& st) {
      run<Encoder>(st, *logs, n, &Encoder::encode_logs);
    });
    benchmark::RegisterBenchmark(("Encode/logs/objmodel/" + sz).c_str(), [=](benchmark::State& st) {
      run<tern::bench::ObjModelEncoder>(st, *logs, n, &tern::bench::ObjModelEncoder::encode_logs);
    });
    benchmark::RegisterBenchmark(("Encode/traces/direct/" + sz).c_str(), [=](benchmark::State& st) {
      run<Encoder>(st, *traces, n, &Encoder::encode_traces);
    });
    benchmark::RegisterBenchmark(("Encode/traces/objmodel/" + sz).c_str(), [=](benchmark::State& st) {
      run<tern::bench::ObjModelEncoder>(st, *traces, n, &tern::bench::ObjModelEncoder::encode_traces);
    });
    benchmark::RegisterBenchmark(("Encode/metrics/direct/" + sz).c_str(), [=](benchmark::State& st) {
      run<Encoder>(st, *metrics, 7 * n, &Encoder::encode_metrics);
    });
    benchmark::RegisterBenchmark(("Encode/metrics/objmodel/" + sz).c_str(), [=](benchmark::State& st) {
      run<tern::bench::ObjModelEncoder>(st, *metrics, 7 * n, &tern::bench::ObjModelEncoder::encode_metrics);
    });
    // The ceiling: copying as many bytes as the direct logs encoder writes.
    benchmark::RegisterBenchmark(("Memcpy/" + sz).c_str(), [=](benchmark::State& st) {
      Encoder enc{EncoderConfig{}};
      EncodedBatch ref;
      enc.encode_logs(*logs, ref);
      std::string dst(ref.data.size(), '\0');
      {
        tern::bench::AllocScope allocs(st);
        for (auto _ : st) {
          std::memcpy(dst.data(), ref.data.data(), ref.data.size());
          benchmark::DoNotOptimize(dst.data());
          benchmark::ClobberMemory();
        }
      }
      st.counters["events_per_second"] =
          benchmark::Counter(static_cast<double>(n * st.iterations()), benchmark::Counter::kIsRate);
      st.counters["output_bytes_per_op"] = static_cast<double>(ref.data.size());
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
