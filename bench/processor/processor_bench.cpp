// The filter and transform processors on the spec's logs workload (10,000 records,
// build_logs_workload), each against the same work written in C++ in the same run.
// Filter/logs/ottl runs FilterProcessor::process with three OTTL conditions that match no
// record (the common case: most data passes, so the batch is not changed and every
// iteration sees the same records); Filter/logs/handwritten is the same three checks in C++
// (a compiled RE2, a linear attribute lookup).
// Transform/logs/ottl runs three statements on every record: set an attribute (it exists
// after the first iteration: found and replaced), delete a key (absent after the first: a
// scan), and a where-guarded set whose condition is false; Transform/logs/handwritten does
// the same in C++. Strings set are copied into the batch's arena each time, as in a real
// batch, so the arena grows across iterations (counted in bytes_per_op).
// Counters: events_per_second (records), allocs_per_op, bytes_per_op.
#include <benchmark/benchmark.h>
#include <re2/re2.h>

#include <algorithm>

#include "gen/workload.h"
#include "processor/filter/filter_processor.h"
#include "processor/transform/transform_processor.h"
#include "support/alloc_counter.h"

namespace {

using namespace tern;
constexpr std::size_t kRecords = 10000;

const char* const kConditions[] = {
    R"(severity_number < SEVERITY_NUMBER_INFO)",
    R"(IsMatch(body, "GET /healthz"))",
    R"(attributes["item_index"] == "item_none" and attributes["a"] == "test")",
};

void report(benchmark::State& st, std::size_t matched) {
  st.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(kRecords * st.iterations()), benchmark::Counter::kIsRate);
  if (matched) st.SkipWithError("a condition matched: the batch changed between iterations");
}

void FilterOttl(benchmark::State& st) {
  pdata::LogsData logs;
  gen::build_logs_workload(kRecords, logs, gen::now_unix_nano());
  processor::FilterProcessorConfig c;
  c.log_record.assign(std::begin(kConditions), std::end(kConditions));
  processor::FilterProcessor f(c);
  {
    bench::AllocScope allocs(st);
    for (auto _ : st) {
      benchmark::DoNotOptimize(f.process(logs));
      benchmark::ClobberMemory();
    }
  }
  report(st, f.dropped(pdata::Signal::Logs));
}

void FilterHandwritten(benchmark::State& st) {
  pdata::LogsData logs;
  gen::build_logs_workload(kRecords, logs, gen::now_unix_nano());
  const re2::RE2 healthz("GET /healthz");
  std::size_t matched = 0;
  {
    bench::AllocScope allocs(st);
    for (auto _ : st) {
      for (const auto& rl : logs.resource_logs)
        for (const auto& sl : rl.scope_logs)
          for (const auto& r : sl.log_records) {
            const auto* item = pdata::find_attribute(r.attributes, "item_index");
            const auto* a = pdata::find_attribute(r.attributes, "a");
            const bool drop =
                r.severity_number < 9 ||
                (r.body.kind == pdata::ValueKind::String &&
                 re2::RE2::PartialMatch(
                     re2::StringPiece(r.body.string_value.data(), r.body.string_value.size()), healthz)) ||
                (item && item->kind == pdata::ValueKind::String && item->string_value == "item_none" && a &&
                 a->kind == pdata::ValueKind::String && a->string_value == "test");
            matched += drop;
          }
      benchmark::ClobberMemory();
    }
  }
  report(st, matched);
}

void TransformOttl(benchmark::State& st) {
  pdata::LogsData logs;
  gen::build_logs_workload(kRecords, logs, gen::now_unix_nano());
  processor::TransformProcessorConfig c;
  c.log_statements.push_back(
      {"log",
       {},
       {R"(set(attributes["env"], "prod"))", R"(delete_key(attributes, "password"))",
        R"(set(severity_text, "WARN") where severity_number >= SEVERITY_NUMBER_WARN)"}});
  processor::TransformProcessor t(c);
  {
    bench::AllocScope allocs(st);
    for (auto _ : st) {
      benchmark::DoNotOptimize(t.process(logs));
      benchmark::ClobberMemory();
    }
  }
  report(st, 0);
}

void TransformHandwritten(benchmark::State& st) {
  pdata::LogsData logs;
  gen::build_logs_workload(kRecords, logs, gen::now_unix_nano());
  const auto& arena = logs.arena;
  {
    bench::AllocScope allocs(st);
    for (auto _ : st) {
      for (auto& rl : logs.resource_logs)
        for (auto& sl : rl.scope_logs)
          for (auto& r : sl.log_records) {
            auto& attrs = r.attributes;
            auto env =
                std::find_if(attrs.begin(), attrs.end(), [](const auto& kv) { return kv.key == "env"; });
            const auto value = pdata::AnyValue::string(arena.copy("prod"));
            if (env != attrs.end())
              env->value = value;
            else
              attrs.push_back({arena.copy("env"), value});
            attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                                       [](const auto& kv) { return kv.key == "password"; }),
                        attrs.end());
            if (r.severity_number >= 13) r.severity_text = arena.copy("WARN");
          }
      benchmark::ClobberMemory();
    }
  }
  report(st, 0);
}

}  // namespace

BENCHMARK(TransformOttl)->Name("Transform/logs/ottl")->Unit(benchmark::kMicrosecond);
BENCHMARK(TransformHandwritten)->Name("Transform/logs/handwritten")->Unit(benchmark::kMicrosecond);
BENCHMARK(FilterOttl)->Name("Filter/logs/ottl")->Unit(benchmark::kMicrosecond);
BENCHMARK(FilterHandwritten)->Name("Filter/logs/handwritten")->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
