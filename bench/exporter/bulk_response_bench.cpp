// tern-bench-bulk-response: reading Elasticsearch `_bulk` responses, the work behind every
// bulk request the exporter sends (BulkResponseParser). Per batch size (the items of one
// request: 1000 and 10000):
//   BulkResponse/all_indexed/<n>  every item 201, recognized on the bytes (the common case)
//   BulkResponse/one_failed/<n>   the same with the last item 429, parsed item by item
//                                 (simdjson on-demand): the baseline the first is compared with
//   BulkResponse/dom_parse/<n>    simdjson's DOM parse of the all-201 body, a second baseline
// Counters: events_per_second (items), bytes_per_op, allocs_per_op.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <string>

#include "exporter/elasticsearch/bulk_response.h"
#include "support/alloc_counter.h"

namespace {

std::string response(int n, bool last_fails) {
  std::string body = R"({"items":[)";
  for (int i = 0; i < n; ++i) {
    if (i) body += ',';
    if (last_fails && i == n - 1)
      body +=
          R"({"create":{"_index":"logs-generic.otel-default","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution"}}})";
    else
      body += R"({"create":{"_index":"logs-generic.otel-default","status":201}})";
  }
  return body + "]}";
}

void run_parser(benchmark::State& state, bool last_fails) {
  const int n = static_cast<int>(state.range(0));
  std::string body = response(n, last_fails);
  tern::exporter::es::BulkResponseParser parser;
  if (!parser.parse(body, n) || parser.all_indexed() == last_fails) {
    state.SkipWithError("the response does not read as expected");
    return;
  }
  {
    tern::bench::AllocScope allocs(state);
    for (auto _ : state) {
      benchmark::DoNotOptimize(parser.parse(body, n));
      benchmark::DoNotOptimize(parser.all_indexed());
    }
  }
  state.counters["events_per_second"] = benchmark::Counter(
      static_cast<double>(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void run_dom(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const simdjson::padded_string body(response(n, false));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) {
    state.SkipWithError("not JSON");
    return;
  }
  {
    tern::bench::AllocScope allocs(state);
    for (auto _ : state) {
      std::size_t ok = 0;
      if (parser.parse(body).get(doc) == simdjson::SUCCESS)
        for (auto item : doc["items"].get_array())
          for (auto action : item.get_object()) ok += action.value["status"].get_int64().value() == 201;
      benchmark::DoNotOptimize(ok);
    }
  }
  state.counters["events_per_second"] = benchmark::Counter(
      static_cast<double>(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(run_parser, all_indexed, false)->Name("BulkResponse/all_indexed")->Arg(1000)->Arg(10000);
BENCHMARK_CAPTURE(run_parser, one_failed, true)->Name("BulkResponse/one_failed")->Arg(1000)->Arg(10000);
BENCHMARK(run_dom)->Name("BulkResponse/dom_parse")->Arg(1000)->Arg(10000);
BENCHMARK_MAIN();
