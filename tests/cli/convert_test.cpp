// `tern convert` as a user runs it: the real binary, files and pipes, exit codes and
// stderr messages.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "otlp/json_codec.h"
#include "otlp/otlp_fixtures.h"
#include "otlp/proto_codec.h"

namespace {

namespace fs = std::filesystem;
using namespace tern::otlp::fixtures;

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void spit(const fs::path& p, std::string_view s) {
  std::ofstream f(p, std::ios::binary);
  f.write(s.data(), static_cast<std::streamsize>(s.size()));
}

class Convert : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tern-convert-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `tern convert ARGS` with stdin from `stdin_text`.
  CommandResult convert(const std::string& args, std::string_view stdin_text = {}) {
    const auto in = dir_ / "stdin", out = dir_ / "stdout", err = dir_ / "stderr";
    spit(in, stdin_text);
    const std::string cmd = std::string(TERN_BIN_DIR) + "/tern convert " + args + " <" + in.string() + " >" +
                            out.string() + " 2>" + err.string();
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  fs::path dir_;
};

TEST_F(Convert, JsonToProtoToJsonThroughFilesIsExact) {
  const std::pair<const char*, std::string_view> cases[] = {
      {"logs", kLogs}, {"traces", kTraces}, {"metrics", kMetrics}};
  for (const auto& [signal, json] : cases) {
    spit(dir_ / "in.json", json);
    const std::string s = signal;
    auto r = convert("--signal " + s + " --from otlp-json --to otlp-proto -i " + (dir_ / "in.json").string() +
                     " -o " + (dir_ / "out.pb").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
    r = convert("--signal " + s + " --from otlp-proto --to otlp-json -i " + (dir_ / "out.pb").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string(json) + "\n") << signal;
  }
}

TEST_F(Convert, ProtoOnStdinDecodesLikeTheLibrary) {
  tern::pdata::LogsData d;
  ASSERT_FALSE(tern::otlp::decode_logs_json(kLogs, d));
  std::string proto;
  tern::otlp::encode_logs_proto(d, proto);
  auto r = convert("--signal logs --from otlp-proto --to otlp-proto", proto);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, proto);
}

TEST_F(Convert, EsBulkWritesActionAndDocumentLines) {
  auto r = convert("--signal traces --from otlp-json --to es-bulk --mapping otel", kTraces);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One span with one event: two items, four lines, each valid JSON.
  simdjson::dom::parser parser;
  std::size_t lines = 0, pos = 0;
  std::vector<std::string> actions;
  while (pos < r.out.size()) {
    const auto nl = r.out.find('\n', pos);
    ASSERT_NE(nl, std::string::npos) << "every line ends with a newline";
    const std::string line = r.out.substr(pos, nl - pos);
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    if (lines % 2 == 0) actions.emplace_back(std::string(doc["create"]["_index"].get_string().value()));
    ++lines;
    pos = nl + 1;
  }
  EXPECT_EQ(lines, 4u);
  EXPECT_EQ(actions, (std::vector<std::string>{"traces-generic.otel-default", "logs-generic.otel-default"}));

  r = convert("--signal logs --from otlp-json --to es-bulk --logs-index my-logs", kLogs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(R"({"create":{"_index":"my-logs"}})", 0), 0u) << r.out;
}

TEST_F(Convert, EsBulkReportsRejectsOnStderr) {
  // A cumulative histogram cannot be mapped (spec: counted, never invalid output).
  constexpr std::string_view in =
      R"({"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"h","histogram":{"dataPoints":[)"
      R"({"timeUnixNano":"5","count":"1","bucketCounts":["1"]}],"aggregationTemporality":2}}]}]}]})";
  auto r = convert("--signal metrics --from otlp-json --to es-bulk", in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 rejected (cumulative_histogram)"), std::string::npos) << r.err;
}

TEST_F(Convert, EsBulkBodyMapWritesTheMapBodiesAsDocuments) {
  constexpr std::string_view in =
      R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[)"
      R"({"body":{"kvlistValue":{"values":[{"key":"@timestamp","value":{"stringValue":"2024-03-12T20:00:41Z"}},)"
      R"({"key":"http.status","value":{"intValue":"200"}}]}}},)"
      R"({"body":{"stringValue":"a text body has no document"}}]}]}]})";
  auto r = convert("--signal logs --from otlp-json --to es-bulk --mapping bodymap", in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"create\":{\"_index\":\"logs-generic-default\"}}\n"
            "{\"@timestamp\":\"2024-03-12T20:00:41Z\",\"http.status\":200}\n");
  EXPECT_NE(r.err.find("1 rejected (body_not_map)"), std::string::npos) << r.err;

  r = convert("--signal traces --from otlp-json --to es-bulk --mapping bodymap", kTraces);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("1 rejected (unsupported_mode)"), std::string::npos) << r.err;

  // A scope's elastic.mapping.mode overrides --mapping for its records.
  r = convert("--signal logs --from otlp-json --to es-bulk",
              R"({"resourceLogs":[{"scopeLogs":[{"scope":{"attributes":[{"key":"elastic.mapping.mode",)"
              R"("value":{"stringValue":"bodymap"}}]},"logRecords":[{"body":{"kvlistValue":{"values":[)"
              R"({"key":"k","value":{"boolValue":true}}]}}}]}]}]})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"create\":{\"_index\":\"logs-generic-default\"}}\n{\"k\":true}\n");

  r = convert("--signal logs --from otlp-json --to es-bulk --mapping logsdb", in);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--mapping"), std::string::npos) << r.err;
  r = convert("--signal logs --from otlp-json --to es-bulk --mapping BodyMap", in);  // any case
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"({"@timestamp":"2024-03-12T20:00:41Z","http.status":200})"), std::string::npos)
      << r.out;
}

TEST_F(Convert, EsBulkEcsWritesEcsFieldNames) {
  constexpr std::string_view in =
      R"({"resourceLogs":[{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h1"}}]},)"
      R"("scopeLogs":[{"logRecords":[{"timeUnixNano":"1700000000000000000","severityText":"WARN",)"
      R"("body":{"stringValue":"hi"}}]}]}]})";
  auto r = convert("--signal logs --from otlp-json --to es-bulk --mapping ecs", in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"create\":{\"_index\":\"logs-generic-default\"}}\n"
            R"({"@timestamp":"2023-11-14T22:13:20.000000000Z","agent":{"name":"otlp"},)"
            R"("data_stream":{"dataset":"generic","namespace":"default","type":"logs"},)"
            R"("host":{"hostname":"h1","name":"h1"},"log":{"level":"WARN"},"message":"hi"})"
            "\n");
  r = convert("--signal traces --from otlp-json --to es-bulk --mapping ecs", kTraces);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"create\":{\"_index\":\"traces-generic-default\"}}\n", 0), 0u) << r.out;
}

TEST_F(Convert, EsBulkNoneAndRawWriteTheCollectorsOriginalShape) {
  constexpr std::string_view in =
      R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1700000000000000000",)"
      R"("body":{"stringValue":"hi"},"attributes":[{"key":"http.status","value":{"intValue":"200"}}]}]}]}]})";
  auto r = convert("--signal logs --from otlp-json --to es-bulk --mapping none", in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      "{\"create\":{\"_index\":\"logs-generic-default\"}}\n"
      R"({"@timestamp":"2023-11-14T22:13:20.000000000Z",)"
      R"("Attributes":{"data_stream":{"dataset":"generic","namespace":"default","type":"logs"},"http":{"status":200}},"Body":"hi",)"
      R"("Scope":{"name":"","version":""},"SeverityNumber":0,"TraceFlags":0})"
      "\n");
  r = convert("--signal logs --from otlp-json --to es-bulk --mapping raw", in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find(R"("TraceFlags":0,"data_stream":{"dataset":"generic","namespace":"default","type":"logs"},)"
                 R"("http":{"status":200}})"),
      std::string::npos)
      << r.out;

  r = convert("--signal traces --from otlp-json --to es-bulk --mapping none", kTraces);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"create\":{\"_index\":\"traces-generic-default\"}}\n", 0), 0u) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(Convert, BadInputIsAClearErrorAndNonZeroExit) {
  auto r = convert("--signal logs --from otlp-proto --to otlp-json", "garbage\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err, "tern convert: invalid otlp-proto logs input: at byte 0: invalid wire type 7\n");

  r = convert("--signal logs --from otlp-json --to otlp-proto", R"({"resourceLogs":[{"scopeLogs":7}]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("tern convert: invalid otlp-json logs input: at byte ", 0), 0u) << r.err;

  r = convert("--signal logs --from otlp-json --to otlp-proto -i " + (dir_ / "missing.json").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tern convert: cannot read " + (dir_ / "missing.json").string() + "\n");

  r = convert("--signal spans --from otlp-json --to otlp-proto");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--signal"), std::string::npos) << r.err;

  r = convert("--signal logs --from otlp-json --to yaml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
}

// An input of millions of empty records (2 bytes each on the wire, ~170 once decoded) is
// refused with the receivers' bound on decoded memory instead of taking gigabytes; the
// same records, fewer of them, convert.
TEST_F(Convert, MillionsOfEmptyRecordsAreRefusedAsTheReceiversRefuseThem) {
  const auto proto_of_empty_records = [](std::size_t n) {
    std::string records;
    for (std::size_t i = 0; i < n; ++i)
      records += std::string("\x12\x00", 2);  // log_records {} (ScopeLogs field 2)
    return records;
  };
  const auto wrap = [](std::uint8_t tag, const std::string& inner) {  // length-delimited field
    std::string out(1, static_cast<char>(tag));
    for (std::size_t n = inner.size();; n >>= 7) {
      out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      if (n <= 0x7f) break;
    }
    return out + inner;
  };
  const auto request = [&](std::size_t n) {  // resource_logs { scope_logs { log_records... } }
    return wrap(0x0a, wrap(0x12, proto_of_empty_records(n)));
  };
  auto r = convert("--signal logs --from otlp-proto --to es-bulk -o /dev/null", request(2'000'000));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tern convert: invalid otlp-proto logs input: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(tern::otlp::decoded_size_message(
                tern::otlp::max_decoded_bytes_for(request(2'000'000).size()))),
            std::string::npos)
      << r.err;
  r = convert("--signal logs --from otlp-proto --to otlp-json", request(1000));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("{}", 0) != std::string::npos, true) << r.out.substr(0, 200);
}

TEST_F(Convert, InvalidUtf8IsRejectedOnlyWhenAsked) {
  // LogsData{resource_logs{scope_logs{log_records{severity_text: "\xff"}}}}
  const std::string in("\x0a\x07\x12\x05\x12\x03\x1a\x01\xff", 9);
  auto r = convert("--signal logs --from otlp-proto --to otlp-json", in);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"severityText\":\"\xef\xbf\xbd\""), std::string::npos)
      << r.out;  // replaced by U+FFFD
  r = convert("--signal logs --from otlp-proto --to otlp-json --validate-utf8", in);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid UTF-8 in string"), std::string::npos) << r.err;
}

}  // namespace
