// Exporter -> tern sink over loopback: exact counts under every fault mode of the sink.
#include "exporter/elasticsearch/bulk_exporter.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sys/resource.h>

#include <cctype>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "exporter/elasticsearch/config.h"
#include "exporter/elasticsearch/test_support.h"
#include "sink/sink_server.h"

namespace tern::test {
namespace {

using exporter::es::BulkExporter;
using exporter::es::BulkExporterOptions;
using Clock = std::chrono::steady_clock;

std::string url(std::uint16_t port) { return "http://127.0.0.1:" + std::to_string(port); }

TEST(BulkExporterChild, PlainDeliveryExactCountAndDump) {
  auto dir = temp_dir("plain");
  auto dump = dir / "dump.ndjson";
  ChildSink sink({"--dump", dump.string()});
  constexpr std::size_t kDocs = 3000;
  Collector c;
  {
    BulkExporter ex(fast_options({sink.url()}));
    ex.start();
    send_docs(ex, c, 0, kDocs, 100);
    ASSERT_TRUE(ex.flush());
    auto k = ex.counters();
    EXPECT_EQ(k.docs_received, kDocs);
    EXPECT_EQ(k.docs_indexed, kDocs);
    EXPECT_EQ(k.docs_failed, 0u);
    EXPECT_EQ(k.docs_retried, 0u);
    EXPECT_GT(k.requests, 1u);  // 16 KiB flushes: several requests
    EXPECT_LT(k.bytes_compressed, k.bytes_uncompressed);
    EXPECT_EQ(k.requests_by_status[200], k.requests);
    ex.shutdown(std::chrono::milliseconds(1000));
  }
  EXPECT_EQ(c.total.items, kDocs);
  EXPECT_EQ(c.total.indexed, kDocs);
  EXPECT_EQ(c.unacked, 0);
  EXPECT_EQ(c.batches, 30);
  EXPECT_EQ(sink.count(), static_cast<std::int64_t>(kDocs));
  auto stats = sink.stats();
  sink.stop();  // flushes the dump
  auto lines = read_lines(dump);
  ASSERT_EQ(lines.size(), kDocs);
  std::set<std::string> ids;
  simdjson::dom::parser p;
  for (auto& l : lines) {
    simdjson::dom::element el;
    ASSERT_EQ(p.parse(l).get(el), simdjson::SUCCESS);
    std::string_view id;
    ASSERT_EQ(el["_id"].get_string().get(id), simdjson::SUCCESS);
    ids.emplace(id);
  }
  EXPECT_EQ(ids.size(), kDocs);
  EXPECT_NE(stats.find("\"docs\":3000"), std::string::npos) << stats;
  std::filesystem::remove_all(dir);
}

TEST(BulkExporterChild, NoCompression) {
  ChildSink sink({});
  auto o = fast_options({sink.url()});
  o.gzip = false;
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, 1000, 250);
  ASSERT_TRUE(ex.flush());
  auto k = ex.counters();
  EXPECT_EQ(k.docs_indexed, 1000u);
  EXPECT_EQ(k.bytes_compressed, k.bytes_uncompressed);
  auto stats = sink.stats();
  EXPECT_EQ(stats_value(stats, "", "bytes_compressed"), stats_value(stats, "", "bytes_uncompressed"));
  EXPECT_EQ(static_cast<std::uint64_t>(stats_value(stats, "", "bytes_uncompressed")), k.bytes_uncompressed);
  EXPECT_EQ(sink.count(), 1000);
}

struct FaultCase {
  const char* name;
  std::vector<std::string> args;
};

class BulkExporterFaults : public ::testing::TestWithParam<FaultCase> {};

// Every retriable fault: zero loss, exact counts. Documents carry `_id`, so a document
// that landed twice would show up as a 409 in the sink and as a duplicate here.
TEST_P(BulkExporterFaults, ZeroLoss) {
  std::vector<std::string> args = GetParam().args;
  args.insert(args.end(), {"--seed", "7"});
  ChildSink sink(args);
  constexpr std::size_t kDocs = 4000;
  auto o = fast_options({sink.url()});
  o.flush_bytes = 8 * 1024;  // ~60 requests, so every fault rate shows up
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, kDocs, 200);
  ASSERT_TRUE(ex.flush());
  auto k = ex.counters();
  ex.shutdown(std::chrono::milliseconds(1000));
  EXPECT_EQ(c.unacked, 0);
  EXPECT_EQ(c.total.failed + c.total.dropped, 0u);
  EXPECT_EQ(c.total.indexed + c.total.duplicates, kDocs);
  EXPECT_EQ(k.docs_indexed + k.docs_duplicates, kDocs);
  EXPECT_EQ(sink.count(), static_cast<std::int64_t>(kDocs));
  auto stats = sink.stats();
  // Duplicates are only possible when a request landed but its answer was lost; each
  // one is a 409 in the sink.
  EXPECT_EQ(static_cast<std::uint64_t>(stats_value(stats, "items_by_status", "409")), k.docs_duplicates);
  EXPECT_EQ(static_cast<std::uint64_t>(stats_value(stats, "", "docs")), kDocs);
  const std::string name = GetParam().name;
  if (name == "item429") {
    auto rejected = static_cast<std::uint64_t>(stats_value(stats, "items_by_status", "429"));
    EXPECT_GT(rejected, 0u);
    EXPECT_EQ(k.docs_retried, rejected);  // only the rejected items were re-sent
    EXPECT_EQ(k.docs_sent, kDocs + rejected);
    EXPECT_EQ(k.request_retries, 0u);
  } else if (name == "request429" || name == "request503") {
    int status = name == "request429" ? 429 : 503;
    auto rejected = static_cast<std::uint64_t>(stats_value(stats, "bulk_by_status", std::to_string(status)));
    EXPECT_GT(rejected, 0u);
    EXPECT_EQ(k.requests_by_status[status], rejected);
    EXPECT_EQ(k.request_retries, rejected);
    EXPECT_EQ(k.docs_duplicates, 0u);
  } else if (name == "drop") {
    EXPECT_GT(stats_value(stats, "bulk_by_status", "0"), 0);
    EXPECT_EQ(k.docs_duplicates, 0u);  // the sink drops before indexing
  } else if (name == "latency") {
    EXPECT_EQ(k.request_retries, 0u);
    EXPECT_EQ(k.docs_duplicates, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Sink, BulkExporterFaults,
                         ::testing::Values(FaultCase{"item429", {"--item-429-rate", "0.3"}},
                                           FaultCase{"request429", {"--request-429-rate", "0.3"}},
                                           FaultCase{"request503", {"--request-503-rate", "0.3"}},
                                           FaultCase{"drop", {"--drop-connection-rate", "0.2"}},
                                           FaultCase{"latency", {"--latency-ms", "30"}},
                                           FaultCase{"all",
                                                     {"--item-429-rate", "0.1", "--request-429-rate", "0.1",
                                                      "--request-503-rate", "0.1", "--drop-connection-rate",
                                                      "0.1", "--latency-ms", "5"}}),
                         [](const auto& info) { return std::string(info.param.name); });

// Items that share one action line (EncoderConfig::share_action_lines): every document
// goes out behind that line, in a first send and in item retries, gzip or not.
class BulkExporterSharedActions : public ::testing::TestWithParam<bool> {};

TEST_P(BulkExporterSharedActions, EveryDocumentIsSentBehindItsActionLine) {
  const bool gzip = GetParam();
  auto dir = temp_dir(gzip ? "shared-gzip" : "shared-plain");
  auto dump = dir / "dump.ndjson";
  ChildSink sink({"--dump", dump.string(), "--item-429-rate", "0.3"});
  constexpr std::size_t kDocs = 2000, kPerBatch = 500;
  const std::string action = std::string(R"({"create":{"_index":")") + kIndex + "\"}}\n";
  auto o = fast_options({sink.url()});
  o.gzip = gzip;
  Collector c;
  {
    BulkExporter ex(o);
    ex.start();
    for (std::size_t first = 0; first < kDocs; first += kPerBatch) {
      encoding::EncodedBatch b;
      for (std::size_t n = first; n < first + kPerBatch; ++n) {
        encoding::EncodedItem it;
        it.offset = static_cast<std::uint32_t>(b.data.size());
        it.action_size = static_cast<std::uint32_t>(action.size());
        if (n == first) {
          b.data += action;  // the batch's one copy
        } else {
          it.action_at = b.items.front().offset;
        }
        const std::size_t doc_at = b.data.size();
        b.data += R"({"@timestamp":"2024-01-01T00:00:00.000Z","n":)" + std::to_string(n) + "}\n";
        it.size = static_cast<std::uint32_t>(b.data.size() - doc_at) + it.action_size;
        b.items.push_back(it);
      }
      ASSERT_TRUE(ex.submit(std::move(b), c.done()));
    }
    ASSERT_TRUE(ex.flush());
    const auto k = ex.counters();
    EXPECT_GT(k.docs_retried, 0u);  // the sink refused some items: they went out again
    EXPECT_EQ(k.docs_indexed, kDocs);
    ex.shutdown(std::chrono::milliseconds(1000));
  }
  EXPECT_EQ(c.total.indexed, kDocs);
  EXPECT_EQ(c.unacked, 0);
  sink.stop();  // flushes the dump
  auto lines = read_lines(dump);
  ASSERT_EQ(lines.size(), kDocs);
  std::set<std::int64_t> seen;
  simdjson::dom::parser p;
  for (auto& l : lines) {
    simdjson::dom::element el;
    ASSERT_EQ(p.parse(l).get(el), simdjson::SUCCESS) << l;
    std::string_view index;
    ASSERT_EQ(el["_index"].get_string().get(index), simdjson::SUCCESS);
    EXPECT_EQ(index, kIndex);
    std::int64_t n = -1;
    ASSERT_EQ(el["_source"]["n"].get_int64().get(n), simdjson::SUCCESS) << l;
    seen.insert(n);
  }
  EXPECT_EQ(seen.size(), kDocs);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), static_cast<std::int64_t>(kDocs - 1));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Compression, BulkExporterSharedActions, ::testing::Bool(), [](const auto& info) {
  return info.param ? std::string("gzip") : std::string("none");
});

TEST(BulkExporter, MappingErrorsArePermanentAndDeadLettered) {
  auto dir = temp_dir("mapping");
  sink::SinkOptions so;
  so.port = 0;
  so.mapping_error_field = "bad_field";
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.dead_letter_path = (dir / "dead.ndjson").string();
  Collector c;
  constexpr std::size_t kDocs = 1000;
  {
    BulkExporter ex(o);
    ex.start();
    for (std::size_t b = 0; b < kDocs; b += 100) {
      encoding::EncodedBatch batch;
      for (std::size_t i = b; i < b + 100; ++i) append_doc(batch, i, i % 10 == 0 ? R"("bad_field":"x")" : "");
      ASSERT_TRUE(ex.submit(std::move(batch), c.done()));
    }
    ASSERT_TRUE(ex.flush());
    auto k = ex.counters();
    EXPECT_EQ(k.docs_failed, kDocs / 10);
    EXPECT_EQ(k.failed_by_reason["mapper_parsing_exception"], kDocs / 10);
    EXPECT_EQ(k.docs_dead_lettered, kDocs / 10);
    EXPECT_EQ(k.docs_indexed, kDocs - kDocs / 10);
    EXPECT_EQ(k.docs_retried, 0u);  // never retried: permanent
  }
  EXPECT_EQ(c.total.failed, kDocs / 10);
  EXPECT_EQ(c.total.indexed, kDocs - kDocs / 10);
  EXPECT_EQ(c.unacked, 0);
  EXPECT_EQ(sink.count("logs-*"), static_cast<std::int64_t>(kDocs - kDocs / 10));

  auto lines = read_lines(dir / "dead.ndjson");
  ASSERT_EQ(lines.size(), kDocs / 10);
  simdjson::dom::parser p;
  std::set<std::int64_t> ns;
  for (auto& l : lines) {
    simdjson::dom::element el;
    ASSERT_EQ(p.parse(l).get(el), simdjson::SUCCESS) << l;
    EXPECT_EQ(int64_t(el["status"]), 400);
    EXPECT_EQ(std::string_view(el["error"]["type"]), "mapper_parsing_exception");
    EXPECT_NE(std::string_view(el["error"]["reason"]).find("bad_field"), std::string_view::npos);
    EXPECT_EQ(std::string_view(el["index"]), kIndex);
    EXPECT_EQ(std::string_view(el["document"]["bad_field"]), "x");
    EXPECT_EQ(std::string_view(el["action"]["create"]["_index"]), kIndex);
    ns.insert(int64_t(el["document"]["n"]));
  }
  EXPECT_EQ(ns.size(), kDocs / 10);
  for (auto n : ns) EXPECT_EQ(n % 10, 0);
  std::filesystem::remove_all(dir);
}

// Sums the counts of the log lines that contain `what` ("<count> documents <what>...").
std::uint64_t counted_in_log(const std::string& log, std::string_view what) {
  std::uint64_t total = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(what);
    if (at == std::string::npos) continue;
    // The count is the number before " documents".
    const auto docs = line.rfind(" documents", at);
    if (docs == std::string::npos) continue;
    auto start = docs;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
    total += std::stoull(line.substr(start, docs - start));
  }
  return total;
}

// Without a dead-letter file the log is where rejected documents are said: every one of them
// is in the count of some line (one line per document, rate-limited, said one in a hundred
// here and gave no count), the ones after the last line in a line at shutdown.
TEST(BulkExporter, EveryRejectedDocumentIsCountedInTheLog) {
  sink::SinkOptions so;
  so.port = 0;
  so.mapping_error_field = "bad_field";
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.num_workers = 1;
  o.flush_bytes = 2048;  // many responses, most of them within the rate limit's second
  std::ostringstream log;
  auto capture = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(capture);
  Collector c;
  constexpr std::size_t kDocs = 1000;
  {
    BulkExporter ex(o);
    ex.start();
    for (std::size_t b = 0; b < kDocs; b += 100) {
      encoding::EncodedBatch batch;
      for (std::size_t i = b; i < b + 100; ++i) append_doc(batch, i, i % 10 == 0 ? R"("bad_field":"x")" : "");
      ASSERT_TRUE(ex.submit(std::move(batch), c.done()));
    }
    ASSERT_TRUE(ex.flush());
    EXPECT_EQ(ex.counters().docs_failed, kDocs / 10);
    ex.shutdown(std::chrono::milliseconds(1000));
  }
  spdlog::default_logger()->sinks().pop_back();
  EXPECT_EQ(c.total.failed, kDocs / 10);
  EXPECT_EQ(counted_in_log(log.str(), "rejected permanently"), kDocs / 10) << log.str();
  EXPECT_NE(log.str().find("mapper_parsing_exception"), std::string::npos) << log.str();
}

// A dead-letter file that cannot be written (a full disk): the documents are not counted as
// written (they were, and the file had none of them) and the log says how many were lost.
TEST(BulkExporter, DeadLetterWriteFailuresAreSaidNotCounted) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  sink::SinkOptions so;
  so.port = 0;
  so.mapping_error_field = "bad_field";
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.dead_letter_path = "/dev/full";  // every write fails with ENOSPC
  std::ostringstream log;
  auto capture = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(capture);
  Collector c;
  {
    BulkExporter ex(o);
    ex.start();
    encoding::EncodedBatch batch;
    for (std::size_t i = 0; i < 50; ++i) append_doc(batch, i, R"("bad_field":"x")");
    ASSERT_TRUE(ex.submit(std::move(batch), c.done()));
    ASSERT_TRUE(ex.flush());
    const auto k = ex.counters();
    EXPECT_EQ(k.docs_failed, 50u);
    EXPECT_EQ(k.docs_dead_lettered, 0u);
    ex.shutdown(std::chrono::milliseconds(1000));
  }
  spdlog::default_logger()->sinks().pop_back();
  EXPECT_EQ(c.total.failed, 50u);
  EXPECT_EQ(counted_in_log(log.str(), "not written"), 50u) << log.str();
}

// A dead-letter write that fails part-way (a disk that fills up in the middle of a
// line; here RLIMIT_FSIZE) leaves the start of the line in the file. The next line, written
// once there is room again, is appended to that fragment: the document it holds is counted
// dead-lettered, yet the file has no readable line for it.
TEST(BulkExporter, APartialDeadLetterWriteLeavesNoFragment) {
  auto dir = temp_dir("dl-partial");
  const auto path = dir / "dead.ndjson";
  sink::SinkOptions so;
  so.port = 0;
  so.mapping_error_field = "bad_field";
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.num_workers = 1;
  o.dead_letter_path = path.string();
  Collector c;
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  {
    BulkExporter ex(o);
    ex.start();
    rlimit small = old;
    small.rlim_cur = 100;  // the file may grow to 100 bytes: the first line is cut there
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    encoding::EncodedBatch first;
    append_doc(first, 1, R"("bad_field":"x")");
    ASSERT_TRUE(ex.submit(std::move(first), c.done()));
    ASSERT_TRUE(ex.flush());
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);  // room again
    encoding::EncodedBatch second;
    append_doc(second, 2, R"("bad_field":"x")");
    ASSERT_TRUE(ex.submit(std::move(second), c.done()));
    ASSERT_TRUE(ex.flush());
    EXPECT_EQ(ex.counters().docs_dead_lettered, 1u);  // the second document, said written
    ex.shutdown(std::chrono::milliseconds(1000));
  }
  auto lines = read_lines(path);
  std::size_t readable = 0;
  simdjson::dom::parser p;
  for (auto& l : lines) {
    simdjson::dom::element el;
    if (p.parse(l).get(el) == simdjson::SUCCESS) ++readable;
  }
  EXPECT_EQ(readable, 1u) << "dead-letter file: " << (lines.empty() ? std::string("<empty>") : lines[0]);
  std::filesystem::remove_all(dir);
}

TEST(BulkExporter, Splits413UntilEveryItemFits) {
  auto dir = temp_dir("413");
  sink::SinkOptions so;
  so.port = 0;
  so.max_content_length = 4000;  // ~25 items per request at most
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.flush_bytes = 64 * 1024;
  o.dead_letter_path = (dir / "dead.ndjson").string();
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, 2000, 500);
  // One document alone over the limit: a permanent failure, not an endless split.
  encoding::EncodedBatch big;
  append_doc(big, 999999, {}, 5000);
  ASSERT_TRUE(ex.submit(std::move(big), c.done()));
  ASSERT_TRUE(ex.flush());
  auto k = ex.counters();
  EXPECT_GT(k.splits_413, 0u);
  EXPECT_EQ(k.docs_indexed, 2000u);
  EXPECT_EQ(k.docs_failed, 1u);
  EXPECT_EQ(k.failed_by_reason["content_too_long_exception"], 1u);
  EXPECT_EQ(c.total.indexed, 2000u);
  EXPECT_EQ(c.total.failed, 1u);
  EXPECT_EQ(sink.count("logs-*"), 2000);
  auto lines = read_lines(dir / "dead.ndjson");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"status\":413"), std::string::npos);
  EXPECT_NE(lines[0].find("\"n\":999999"), std::string::npos);
  // No item answer names the index: the action line does.
  EXPECT_NE(lines[0].find("\"index\":\"" + std::string(kIndex) + "\""), std::string::npos) << lines[0];
  std::filesystem::remove_all(dir);
}

TEST(BulkExporter, ConflictsCountAsDuplicates) {
  sink::SinkOptions so;
  so.port = 0;
  sink::SinkServer sink(so);
  auto port = sink.start();
  Collector c;
  BulkExporter ex(fast_options({url(port)}));
  ex.start();
  send_docs(ex, c, 0, 500, 100);
  ASSERT_TRUE(ex.flush());
  send_docs(ex, c, 0, 500, 100);  // the same ids again: a retry that had landed
  ASSERT_TRUE(ex.flush());
  EXPECT_EQ(c.total.indexed, 500u);
  EXPECT_EQ(c.total.duplicates, 500u);
  EXPECT_EQ(c.unacked, 0);
  EXPECT_EQ(ex.counters().docs_duplicates, 500u);
  EXPECT_EQ(sink.count("logs-*"), 500);
}

TEST(BulkExporter, MaxRetriesDropsAndDeadLetters) {
  auto dir = temp_dir("maxretries");
  sink::SinkOptions so;
  so.port = 0;
  so.item_429_rate = 1.0;
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.max_retries = 2;
  o.dead_letter_path = (dir / "dead.ndjson").string();
  Collector c;
  BulkExporter ex(o);
  // Data lost for good is said, not only counted (a counter was the only trace of it).
  std::ostringstream log;
  auto capture = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(capture);
  ex.start();
  send_docs(ex, c, 0, 300, 100);
  ASSERT_TRUE(ex.flush());
  spdlog::default_logger()->sinks().pop_back();
  EXPECT_NE(log.str().find("documents after 2 retries: status 429 es_rejected_execution_exception"),
            std::string::npos)
      << log.str();
  auto k = ex.counters();
  EXPECT_EQ(c.total.dropped, 300u);
  EXPECT_EQ(c.unacked, 0);  // settled: dropped is a final outcome
  EXPECT_EQ(k.docs_dropped, 300u);
  EXPECT_EQ(k.docs_retried, 600u);  // 2 re-sends each
  EXPECT_EQ(k.docs_sent, 900u);
  auto lines = read_lines(dir / "dead.ndjson");
  ASSERT_EQ(lines.size(), 300u);
  EXPECT_NE(lines[0].find("\"status\":429"), std::string::npos);
  EXPECT_NE(lines[0].find("max_retries_exceeded"), std::string::npos);
  EXPECT_NE(lines[0].find("\"index\":\"" + std::string(kIndex) + "\""), std::string::npos) << lines[0];
  std::filesystem::remove_all(dir);
}

// A keep-alive connection the server closes under a request is re-sent at once on a new
// one; that exchange is counted like any other (a request without a status, its documents
// sent again), so the exporter's counts match what the server saw.
TEST(BulkExporter, RequestsResentOnANewConnectionAreCounted) {
  sink::SinkOptions so;
  so.port = 0;
  so.drop_connection_rate = 0.3;
  sink::SinkServer sink(so);
  auto port = sink.start();
  auto o = fast_options({url(port)});
  o.num_workers = 1;
  o.flush_bytes = 2048;
  Collector c;
  BulkExporter ex(o);
  ex.start();
  send_docs(ex, c, 0, 2000, 20);
  ASSERT_TRUE(ex.flush());
  const auto k = ex.counters();
  const auto st = sink.stats();
  EXPECT_EQ(c.total.indexed, 2000u);
  ASSERT_GT(st.bulk_by_status.count(0), 0u);
  EXPECT_EQ(k.requests, st.bulk_requests);
  EXPECT_EQ(k.request_errors, st.bulk_by_status.at(0));
  EXPECT_EQ(k.requests_by_status.at(0), st.bulk_by_status.at(0));
}

// Reserves a free loopback port (nothing listens on it afterwards).
std::uint16_t free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

TEST(BulkExporter, FailoverWhenOneOfTwoSinksStopsAndRestarts) {
  sink::SinkOptions so;
  so.port = 0;
  auto a = std::make_unique<sink::SinkServer>(so);
  const auto port_a = a->start();
  sink::SinkServer b(so);
  const auto port_b = b.start();
  auto o = fast_options({url(port_a), url(port_b)});
  o.flush_bytes = 4 * 1024;
  Collector c;
  BulkExporter ex(o);
  ex.start();

  send_docs(ex, c, 0, 1000, 100);
  ASSERT_TRUE(ex.flush());
  const auto a1 = a->count("logs-*"), b1 = b.count("logs-*");
  EXPECT_GT(a1, 0);  // round-robin: both endpoints took requests
  EXPECT_GT(b1, 0);
  EXPECT_EQ(a1 + b1, 1000);

  a.reset();  // A is gone (its connections closed)
  send_docs(ex, c, 1000, 1000, 100);
  ASSERT_TRUE(ex.flush());
  EXPECT_EQ(b.count("logs-*"), b1 + 1000);  // everything failed over to B
  EXPECT_GT(ex.counters().request_errors, 0u);

  so.port = port_a;
  a = std::make_unique<sink::SinkServer>(so);
  a->start();
  // A answers again: it is taken back into the rotation once its back-off passed.
  std::uint64_t next = 2000;
  while (a->count("logs-*") <= 0 && next < 2000 + 200 * 100) {
    send_docs(ex, c, next, 100, 100);
    next += 100;
    ASSERT_TRUE(ex.flush());
  }
  const auto a2 = a->count("logs-*");
  EXPECT_GT(a2, 0);
  EXPECT_EQ(a1 + a2 + b.count("logs-*"), static_cast<std::int64_t>(next));
  EXPECT_EQ(c.total.indexed, next);
  EXPECT_EQ(c.unacked, 0);
}

TEST(BulkExporter, BackPressureAndDeliveryOnceTheEndpointAppears) {
  const auto port = free_port();
  auto o = fast_options({url(port)});
  o.max_inflight_bytes = 1;  // one batch in flight at a time
  Collector c;
  BulkExporter ex(o);
  ex.start();
  ASSERT_TRUE(ex.submit(make_batch(0, 100), c.done()));  // admitted: nothing else in flight
  // Nothing listens: the first batch cannot complete, so there is no room for another.
  EXPECT_FALSE(ex.try_submit(make_batch(100, 100), c.done()));
  EXPECT_FALSE(ex.submit(make_batch(100, 100), c.done(), Clock::now() + std::chrono::milliseconds(20)));
  EXPECT_EQ(ex.counters().queue_items, 100u);

  sink::SinkOptions so;
  so.port = port;
  sink::SinkServer sink(so);
  sink.start();
  ASSERT_TRUE(ex.flush());
  EXPECT_TRUE(ex.try_submit(make_batch(100, 100), c.done()));
  ASSERT_TRUE(ex.flush());
  EXPECT_EQ(c.total.indexed, 200u);
  EXPECT_EQ(sink.count("logs-*"), 200);
  EXPECT_GT(ex.counters().request_errors, 0u);
}

TEST(BulkExporter, WaitForRoomTellsWhenSubmitWouldNotBlock) {
  const auto port = free_port();
  auto o = fast_options({url(port)});
  o.max_inflight_bytes = 1;  // one batch in flight at a time
  Collector c;
  BulkExporter ex(o);
  ex.start();
  const auto soon = [] { return Clock::now() + std::chrono::milliseconds(20); };
  EXPECT_TRUE(ex.wait_for_room(1 << 20, soon()));  // nothing in flight: any batch fits
  ASSERT_TRUE(ex.submit(make_batch(0, 100), c.done()));
  // Nothing listens, so the batch stays in flight and nothing else fits.
  EXPECT_FALSE(ex.wait_for_room(1, soon()));

  sink::SinkOptions so;
  so.port = port;
  sink::SinkServer sink(so);
  sink.start();
  // Room comes back once the batch is delivered; the waiter sees it without a new submit.
  EXPECT_TRUE(ex.wait_for_room(1, Clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(c.total.indexed, 100u);
  ex.shutdown(std::chrono::milliseconds(1000));
  EXPECT_FALSE(ex.wait_for_room(1, soon()));  // after shutdown: never
}

TEST(BulkExporter, AWaitingSubmitSendsThePartialRequestAtOnce) {
  // Batches of 100 items (~15 KB) against 8 KiB requests and room for one batch: each
  // batch leaves a partial request behind, and the next batch can only come in once that
  // is sent. The waiting submit sends it instead of letting it wait for flush.interval.
  sink::SinkOptions so;
  sink::SinkServer sink(so);
  const auto port = sink.start();
  auto o = fast_options({url(port)});
  o.flush_bytes = 8 * 1024;
  o.flush_interval = std::chrono::hours(1);
  o.max_inflight_bytes = 1;
  Collector c;
  BulkExporter ex(o);
  ex.start();
  for (std::uint64_t first = 0; first < 1000; first += 100)
    ASSERT_TRUE(ex.submit(make_batch(first, 100), c.done(), Clock::now() + std::chrono::seconds(30)))
        << "batch " << first / 100 << " stayed out: its predecessor's tail was never sent";
  // Waiting for room sends the last tail too; callbacks run before room is given back.
  ASSERT_TRUE(ex.wait_for_room(1, Clock::now() + std::chrono::seconds(30)));
  EXPECT_EQ(c.total.indexed, 1000u);
  EXPECT_EQ(c.batches, 10);
  EXPECT_EQ(sink.count("logs-*"), 1000);
  ex.shutdown(std::chrono::milliseconds(0));
}

TEST(BulkExporter, ShutdownReportsUndeliveredBatchesUnacknowledged) {
  const auto port = free_port();
  Collector c;
  BulkExporter ex(fast_options({url(port)}));
  ex.start();
  send_docs(ex, c, 0, 300, 100);
  ex.shutdown(std::chrono::milliseconds(50));
  EXPECT_EQ(c.batches, 3);
  EXPECT_EQ(c.unacked, 3);
  EXPECT_EQ(c.total.undelivered, 300u);
  EXPECT_EQ(c.total.indexed, 0u);
  EXPECT_EQ(ex.counters().docs_undelivered, 300u);
  EXPECT_FALSE(ex.submit(make_batch(0, 1), c.done()));  // refused after shutdown
}

TEST(BulkExporter, FromConfigMapsEveryKey) {
  exporter::es::ElasticsearchExporterConfig cfg;
  cfg.endpoints = {"https://es:9200"};
  cfg.num_workers = 3;
  cfg.flush.bytes = 123;
  cfg.flush.interval = std::chrono::milliseconds(250);
  cfg.retry.max_retries = 5;
  cfg.retry.retry_on_status = {429, 503};
  cfg.compression = config::Compression::kNone;
  cfg.compression_level = 6;
  cfg.api_key = "k";
  cfg.tls.insecure_skip_verify = true;
  cfg.pipeline = "p";
  cfg.dead_letter_path = "/tmp/x";
  cfg.timeout = std::chrono::seconds(7);
  auto o = exporter::es::from_config(cfg);
  EXPECT_EQ(o.endpoints, cfg.endpoints);
  EXPECT_EQ(o.num_workers, 3u);
  EXPECT_EQ(o.flush_bytes, 123u);
  EXPECT_EQ(o.flush_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(o.max_retries, 5u);
  EXPECT_EQ(o.retry_on_status, (std::vector<int>{429, 503}));
  EXPECT_FALSE(o.gzip);
  EXPECT_EQ(o.compression_level, 6);
  EXPECT_EQ(o.api_key, "k");
  EXPECT_TRUE(o.tls.insecure_skip_verify);
  EXPECT_TRUE(o.require_data_stream);  // otel mode
  EXPECT_EQ(o.pipeline, "p");
  EXPECT_EQ(o.dead_letter_path, "/tmp/x");
  EXPECT_EQ(o.timeout, std::chrono::milliseconds(7000));
}

// The dead-letter file's folders are created (a fresh host has no /var/lib/tern: the
// examples failed to start there), and a folder that cannot be made is named in the error.
TEST(BulkExporter, DeadLetterFoldersAreCreated) {
  const auto dir = temp_dir("dead-letter-dirs");
  sink::SinkOptions so;
  so.port = 0;
  sink::SinkServer sink(so);
  auto o = fast_options({url(sink.start())});
  o.dead_letter_path = (dir / "var" / "lib" / "tern" / "dead.ndjson").string();
  {
    BulkExporter ex(o);
    EXPECT_TRUE(std::filesystem::is_regular_file(o.dead_letter_path));
  }
  // A plain file where a folder must go: the error says which folder and why.
  std::ofstream(dir / "file") << "x";
  o.dead_letter_path = (dir / "file" / "sub" / "dead.ndjson").string();
  try {
    BulkExporter ex(o);
    ADD_FAILURE() << "a dead_letter.path under a regular file was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(
        what.find("cannot create the directory " + (dir / "file" / "sub").string() + " of dead_letter.path"),
        std::string::npos)
        << what;
  }
  std::filesystem::remove_all(dir);
}

TEST(BulkExporter, RejectsBadEndpoints) {
  EXPECT_THROW(BulkExporter(fast_options({"ftp://x"})), std::invalid_argument);
  EXPECT_THROW(BulkExporter(fast_options({})), std::invalid_argument);
}

}  // namespace
}  // namespace tern::test
