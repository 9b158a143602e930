// SinkCore against hand-written requests: the HTTP semantics of `tern sink` without sockets.
#include "sink/sink_core.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compression/gzip.h"

namespace tern::sink {
namespace {

using nlohmann::json;

Reply call(SinkCore& core, std::string_view method, std::string_view target, std::string body = {},
           std::string_view encoding = {}) {
  Request req{method, target, encoding, std::move(body)};
  return core.handle(req);
}

std::string gzip(std::string_view plain) {
  compression::GzipCompressor c(1);
  std::string out;
  c.compress(plain, out);
  return out;
}

// Every answer of the sink must be JSON a client can parse (except _cat text and HEAD).
json parse(const Reply& r) {
  json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.body.substr(0, 300);
  return j;
}

// `took` is a duration: drop it so whole bodies can be compared byte for byte.
std::string without_took(std::string body) {
  auto p = body.find("\"took\":");
  if (p == std::string::npos) return body;
  auto e = body.find(',', p);
  body.erase(p, e - p + 1);
  return body;
}

std::vector<int> item_statuses(const json& j) {
  std::vector<int> out;
  for (auto& item : j.at("items")) out.push_back(item.begin().value().at("status").get<int>());
  return out;
}

// `n` items; with first_id >= 0 each action carries _id first_id+i.
std::string n_docs(int n, std::string_view action = "create", int first_id = -1) {
  std::string body;
  for (int i = 0; i < n; ++i) {
    body += "{\"" + std::string(action) + "\":{";
    if (first_id >= 0) body += "\"_id\":\"" + std::to_string(first_id + i) + "\"";
    body += "}}\n{\"message\":\"hello " + std::to_string(i) + "\",\"n\":" + std::to_string(i) + "}\n";
  }
  return body;
}

struct TempFile {
  std::filesystem::path path;
  explicit TempFile(std::string_view name)
      : path(std::filesystem::temp_directory_path() /
             (std::string(name) + "-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove(path);
  }
  ~TempFile() { std::filesystem::remove(path); }
  std::vector<std::string> lines() const {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
};

TEST(SinkRoot, GetAnswersLikeElasticsearch8) {
  SinkCore core({});
  Reply r = call(core, "GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  json j = parse(r);
  EXPECT_EQ(j["version"]["number"].get<std::string>().substr(0, 2), "8.");
  EXPECT_EQ(j["tagline"], "You Know, for Search");
  EXPECT_EQ(j["version"]["build_flavor"], "default");
  EXPECT_TRUE(j.contains("cluster_name"));
}

TEST(SinkRoot, HeadHasNoBodyAndOtherMethodsAreRefused) {
  SinkCore core({});
  Reply r = call(core, "HEAD", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(call(core, "DELETE", "/").status, 405);
}

TEST(SinkSetup, TemplateAndIlmCallsAreAcknowledged) {
  SinkCore core({});
  for (auto method : {"PUT", "GET", "HEAD", "POST"}) {
    for (auto target : {"/_index_template/logs-otel", "/_component_template/otel@mappings",
                        "/_ilm/policy/logs", "/_data_stream/logs-generic.otel-default"}) {
      Reply r = call(core, method, target, R"({"index_patterns":["logs-*"]})");
      EXPECT_EQ(r.status, 200) << method << " " << target;
      if (std::string_view(method) == "HEAD") {
        EXPECT_TRUE(r.body.empty());
      } else {
        EXPECT_EQ(r.body, R"({"acknowledged":true})");
      }
    }
  }
}

TEST(SinkRouting, UnknownEndpointIs400LikeElasticsearch) {
  SinkCore core({});
  Reply r = call(core, "GET", "/foo/bar");
  EXPECT_EQ(r.status, 400);
  json j = parse(r);
  EXPECT_EQ(j["error"]["type"], "illegal_argument_exception");
  EXPECT_EQ(j["error"]["reason"], "no handler found for uri [/foo/bar] and method [GET]");
  EXPECT_EQ(j["status"], 400);
  EXPECT_EQ(call(core, "GET", "/_bulk").status, 405);
}

TEST(SinkBulk, ExactItemFormat) {
  SinkCore core({});
  std::string body =
      "{\"create\":{\"_index\":\"logs-a\",\"_id\":\"1\"}}\n{\"x\":1}\n"
      "{\"index\":{\"_index\":\"logs-b\",\"_id\":\"k\"}}\n{\"y\":\"z\"}\n"
      "{\"index\":{\"_index\":\"logs-b\",\"_id\":\"k\"}}\n{\"y\":\"w\"}\n";
  Reply r = call(core, "POST", "/_bulk", body);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  parse(r);
  EXPECT_EQ(
      without_took(r.body),
      R"({"errors":false,"items":[)"
      R"({"create":{"_index":"logs-a","_id":"1","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}},)"
      R"({"index":{"_index":"logs-b","_id":"k","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}},)"
      R"({"index":{"_index":"logs-b","_id":"k","_version":2,"result":"updated","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":200}}]})");
  EXPECT_EQ(r.body.rfind(R"({"took":)", 0), 0u);
  EXPECT_EQ(core.count("logs-a"), 1);
  EXPECT_EQ(core.count("logs-b"), 1);  // the second index of `k` replaced the first
}

TEST(SinkBulk, DefaultIndexFromPathAndGeneratedIds) {
  SinkCore core({});
  Reply r = call(core, "POST", "/my-index/_bulk", n_docs(50, "create") + n_docs(50, "index"));
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_FALSE(j["errors"].get<bool>());
  std::set<std::string> ids;
  for (auto& item : j["items"]) {
    auto& v = item.begin().value();
    EXPECT_EQ(v["_index"], "my-index");
    EXPECT_EQ(v["status"], 201);
    EXPECT_EQ(v["result"], "created");
    auto id = v["_id"].get<std::string>();
    EXPECT_EQ(id.size(), 20u);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(core.count("my-index"), 100);
  // An explicit _index in the action wins over the path.
  r = call(core, "PUT", "/my-index/_bulk", "{\"index\":{\"_index\":\"other\"}}\n{}\n");
  EXPECT_EQ(parse(r)["items"][0]["index"]["_index"], "other");
}

TEST(SinkBulk, GzipBody) {
  SinkCore core({});
  Reply r = call(core, "POST", "/big/_bulk?filter_path=errors", gzip(n_docs(1000, "create", 0)), "gzip");
  EXPECT_EQ(r.body, R"({"errors":false})");
  EXPECT_EQ(core.count("big"), 1000);
  std::string plain = "{\"create\":{\"_index\":\"gz\"}}\n{\"a\":1}\n";
  for (auto enc : {"gzip", "GZIP", "x-gzip"}) {
    r = call(core, "POST", "/_bulk", gzip(plain), enc);
    EXPECT_EQ(r.status, 200) << enc << r.body;
  }
  EXPECT_EQ(core.count("gz"), 3);
  r = call(core, "POST", "/_bulk", plain, "br");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r)["error"]["type"], "illegal_argument_exception");
  EXPECT_EQ(call(core, "POST", "/_bulk", plain, "identity").status, 200);
  SinkStats s = core.stats();
  EXPECT_GT(s.bytes_uncompressed, s.bytes_compressed);
}

TEST(SinkBulk, ConcatenatedGzipMembers) {
  SinkCore core({});
  std::string a = "{\"create\":{\"_index\":\"m\"}}\n{\"a\":1}\n",
              b = "{\"create\":{\"_index\":\"m\"}}\n{\"b\":2}\n";
  Reply r = call(core, "POST", "/_bulk", gzip(a) + gzip(b), "gzip");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(core.count("m"), 2);
}

TEST(SinkBulk, FilterPathAsUsedByTheExporter) {
  SinkCore core({});
  std::string body =
      "{\"create\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"x\":1}\n"
      "{\"create\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"x\":1}\n";
  Reply r =
      call(core, "POST",
           "/_bulk?filter_path=items.*._index,items.*.status,items.*.error.type,items.*.error.reason", body);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            R"({"items":[{"create":{"_index":"a","status":201}},)"
            R"({"create":{"_index":"a","status":409,"error":{"type":"version_conflict_engine_exception",)"
            R"x("reason":"[1]: version conflict, document already exists (current version [1])"}}}]})x");
}

TEST(SinkBulk, FilterPathVariants) {
  SinkCore core({});
  EXPECT_EQ(call(core, "POST", "/fp/_bulk?filter_path=errors", n_docs(2, "create", 0)).body,
            R"({"errors":false})");
  // Nothing matches: Elasticsearch answers an empty object.
  EXPECT_EQ(call(core, "POST", "/fp/_bulk?filter_path=items.*.error", n_docs(1, "index", 5)).body, "{}");
  // Percent-encoded commas and a component glob.
  EXPECT_EQ(call(core, "POST", "/fp/_bulk?filter_path=errors%2Citems.*.st*", n_docs(1, "create", 0)).body,
            R"({"errors":true,"items":[{"create":{"status":409}}]})");
  EXPECT_EQ(call(core, "POST", "/fp/_bulk?filter_path=items.*._shards.total", n_docs(1, "index", 9)).body,
            R"({"items":[{"index":{"_shards":{"total":1}}}]})");
}

// The filter's verdicts are remembered per path within a request: items of different
// actions take different branches of that memory, and a path filtered out for one action
// must not carry over to another.
TEST(SinkBulk, FilterPathPerActionWithinOneRequest) {
  SinkCore core({});
  const std::string body = n_docs(1, "index", 1) + n_docs(1, "create", 2) + "{\"delete\":{\"_id\":\"3\"}}\n" +
                           n_docs(1, "index", 4) + n_docs(1, "create", 2);
  Reply r = call(core, "POST", "/pa/_bulk?filter_path=items.index._id,items.*.status,items.create.error.type",
                 body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"items":[{"index":{"_id":"1","status":201}},{"create":{"status":201}},)"
                    R"({"delete":{"status":404}},{"index":{"_id":"4","status":201}},)"
                    R"({"create":{"status":409,"error":{"type":"version_conflict_engine_exception"}}}]})");
}

// Consecutive items share their index name and its bookkeeping; one that switches index
// (explicit, then the path's default, then back) must be counted and answered under its own.
TEST(SinkBulk, ItemsSwitchingIndexWithinOneRequest) {
  SinkCore core({});
  const std::string body =
      "{\"create\":{\"_index\":\"a\"}}\n{\"x\":1}\n{\"create\":{\"_index\":\"a\"}}\n{\"x\":2}\n"
      "{\"create\":{}}\n{\"x\":3}\n{\"create\":{\"_index\":\"b\",\"_id\":\"k\"}}\n{\"x\":4}\n"
      "{\"create\":{\"_index\":\"\"}}\n{\"x\":5}\n{\"create\":{\"_index\":\"a\",\"_id\":\"k\"}}\n{\"x\":6}\n"
      "{\"create\":{\"_index\":\"b\",\"_id\":\"k\"}}\n{\"x\":7}\n";
  Reply r = call(core, "POST", "/dflt/_bulk?filter_path=items.*._index,items.*._id,items.*.status", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const auto doc = nlohmann::json::parse(r.body);
  std::vector<std::string> seen;
  for (const auto& item : doc.at("items")) {
    const auto& op = item.at("create");
    seen.push_back(op.at("_index").get<std::string>() + ":" + std::to_string(op.at("status").get<int>()));
    EXPECT_FALSE(op.at("_id").get<std::string>().empty());
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"a:201", "a:201", "dflt:201", "b:201", "dflt:201", "a:201", "b:409"}));
  EXPECT_EQ(core.count("a"), 3);
  EXPECT_EQ(core.count("b"), 1);
  EXPECT_EQ(core.count("dflt"), 2);
}

TEST(SinkBulk, CreateWithExistingIdIs409) {
  SinkCore core({});
  ASSERT_EQ(call(core, "POST", "/dup/_bulk", n_docs(3, "create", 0)).status, 200);
  Reply r = call(core, "POST", "/dup/_bulk", n_docs(5, "create", 0));
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(item_statuses(j), (std::vector<int>{409, 409, 409, 201, 201}));
  auto& e = j["items"][0]["create"]["error"];
  EXPECT_EQ(e["type"], "version_conflict_engine_exception");
  EXPECT_EQ(e["reason"], "[0]: version conflict, document already exists (current version [1])");
  EXPECT_EQ(e["index"], "dup");
  EXPECT_FALSE(j["items"][0]["create"].contains("result"));
  EXPECT_EQ(core.count("dup"), 5);
  EXPECT_EQ(core.stats().items_by_status.at(409), 3u);
}

// Elasticsearch reads `_id` and `_index` as text: a number or a boolean is its JSON text.
TEST(SinkBulk, NumericIdAndIndexAreTakenAsTheirText) {
  SinkCore core({});
  Reply r = call(core, "POST", "/_bulk",
                 "{\"create\":{\"_index\":\"n\",\"_id\":1}}\n{\"x\":1}\n"
                 "{\"create\":{\"_index\":\"n\",\"_id\":\"1\"}}\n{\"x\":2}\n"
                 "{\"index\":{\"_index\":7,\"_id\":true}}\n{\"x\":3}\n");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{201, 409, 201})) << "the id 1 and the id \"1\" are one id";
  EXPECT_EQ(j["items"][0]["create"]["_id"], "1");
  EXPECT_EQ(j["items"][2]["index"]["_index"], "7");
  EXPECT_EQ(j["items"][2]["index"]["_id"], "true");
  EXPECT_EQ(core.count("n"), 1);
  EXPECT_EQ(core.count("7"), 1);
}

TEST(SinkBulk, MalformedDocumentIsItem400) {
  SinkCore core({});
  std::string body =
      "{\"create\":{\"_index\":\"m\"}}\n{\"ok\":1}\n"
      "{\"create\":{\"_index\":\"m\"}}\n{\"broken\":\n"
      "{\"create\":{\"_index\":\"m\"}}\n[1,2]\n"
      "{\"create\":{\"_index\":\"m\"}}\n\"just a string\"\n"
      "{\"create\":{\"_index\":\"m\"}}\n{\"ok\":2}\n";
  Reply r = call(core, "POST", "/_bulk", body);
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(item_statuses(j), (std::vector<int>{201, 400, 400, 400, 201}));
  EXPECT_EQ(j["items"][1]["create"]["error"]["type"], "mapper_parsing_exception");
  EXPECT_EQ(j["items"][1]["create"]["_id"].get<std::string>().size(),
            20u);  // generated before failing, like ES
  EXPECT_EQ(core.count("m"), 2);
}

// Index names Elasticsearch refuses are refused per item, with its error type; the other
// items of the request are written.
TEST(SinkBulk, InvalidIndexNamesAreItem400) {
  SinkCore core({});
  const std::vector<std::string> indices = {"logs-ok.otel-default",
                                            "Logs-Upper",
                                            "logs-\xC3\x84pfel",  // Ä: not lowercase
                                            "logs-\xC3\xA4pfel",
                                            "bad,name",
                                            "_under",
                                            "..",
                                            std::string(256, 'x'),
                                            "logs-ok.otel-default"};
  std::string body;
  for (const auto& index : indices) body += R"({"create":{"_index":")" + index + "\"}}\n{\"ok\":1}\n";
  Reply r = call(core, "POST", "/_bulk", body);
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(item_statuses(j), (std::vector<int>{201, 400, 400, 201, 400, 400, 400, 400, 201}));
  EXPECT_EQ(j["items"][1]["create"]["error"]["type"], "invalid_index_name_exception");
  EXPECT_EQ(j["items"][1]["create"]["error"]["reason"], "Invalid index name [Logs-Upper], must be lowercase");
  EXPECT_EQ(j["items"][1]["create"]["error"]["index"], "Logs-Upper");
  EXPECT_EQ(j["items"][2]["create"]["error"]["reason"],
            "Invalid index name [logs-\xC3\x84pfel], must be lowercase");
  EXPECT_EQ(core.count("logs-ok.otel-default"), 2);
  EXPECT_EQ(core.count("logs-\xC3\xA4pfel"), 1);
  EXPECT_EQ(core.count("Logs-Upper"), -1);  // never created
}

TEST(SinkBulk, DeleteAndUpdate) {
  SinkCore core({});
  call(core, "POST", "/d/_bulk", n_docs(1, "create", 1));
  Reply r = call(core, "POST", "/d/_bulk",
                 "{\"delete\":{\"_id\":\"1\"}}\n{\"delete\":{\"_id\":\"1\"}}\n"
                 "{\"update\":{\"_id\":\"2\"}}\n{\"doc\":{}}\n{\"index\":{\"_id\":\"3\"}}\n{}\n");
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{200, 404, 400, 201}));
  EXPECT_EQ(j["items"][0]["delete"]["result"], "deleted");
  EXPECT_EQ(j["items"][1]["delete"]["result"], "not_found");
  EXPECT_EQ(core.count("d"), 1);
}

// Whole-request 400s, each with Elasticsearch's error shape.
void expect_request_error(SinkCore& core, std::string body, int status, std::string_view type,
                          std::string_view reason_part) {
  Reply r = call(core, "POST", "/idx/_bulk", body);
  EXPECT_EQ(r.status, status) << body;
  json j = parse(r);
  EXPECT_EQ(j["status"], status);
  EXPECT_EQ(j["error"]["type"], type) << body;
  EXPECT_EQ(j["error"]["root_cause"][0]["type"], type);
  EXPECT_NE(j["error"]["reason"].get<std::string>().find(reason_part), std::string::npos)
      << j["error"]["reason"] << " lacks " << reason_part;
}

TEST(SinkBulk, MalformedRequestsAre400) {
  SinkCore core({});
  expect_request_error(core, "{\"create\":{}}\n{}", 400, "illegal_argument_exception",
                       "The bulk request must be terminated by a newline [\\n]");
  expect_request_error(core, "", 400, "action_request_validation_exception", "no requests added");
  expect_request_error(core, "\n\n  \n", 400, "action_request_validation_exception", "no requests added");
  expect_request_error(core, "not json\n{}\n", 400, "illegal_argument_exception",
                       "Malformed action/metadata line [1]");
  expect_request_error(core, "[1]\n{}\n", 400, "illegal_argument_exception",
                       "Malformed action/metadata line [1]");
  expect_request_error(
      core, "{\"create\":{}}\n{}\n{\"frobnicate\":{}}\n{}\n", 400, "illegal_argument_exception",
      "Malformed action/metadata line [3], expected field [create], [delete], [index] or [update]");
  expect_request_error(core, "{\"create\":{},\"index\":{}}\n{}\n", 400, "illegal_argument_exception",
                       "Malformed action/metadata line [1]");
  expect_request_error(core, "{\"create\":5}\n{}\n", 400, "illegal_argument_exception", "START_OBJECT");
  expect_request_error(core, "{\"create\":{\"_index\":[]}}\n{}\n", 400, "illegal_argument_exception",
                       "[_index]");
  expect_request_error(core, "{\"create\":{}}\n{}\n{\"create\":{}}\n", 400, "illegal_argument_exception",
                       "missing the document source line");
  Reply r = call(core, "POST", "/_bulk", "{\"create\":{}}\n{}\n");  // no index anywhere
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r)["error"]["type"], "action_request_validation_exception");
  // No request error stored anything.
  EXPECT_EQ(core.count("*"), 0);
  EXPECT_EQ(core.stats().bulk_by_status.at(400), 11u);
}

// `_id` limits, as Elasticsearch's IndexRequest.validate and IndexRouting: over 512 bytes
// fails the whole request (nothing stored); empty fails its item.
TEST(SinkBulk, IdLimits) {
  SinkCore core({});
  const std::string at_limit(512, 'a'), over(513, 'b');
  Reply r = call(core, "POST", "/ids/_bulk",
                 "{\"create\":{\"_id\":\"" + at_limit + "\"}}\n{}\n{\"create\":{\"_id\":\"" + over +
                     "\"}}\n{}\n{\"index\":{\"_id\":\"" + over + "x\"}}\n{}\n");
  EXPECT_EQ(r.status, 400);
  json j = parse(r);
  EXPECT_EQ(j["error"]["type"], "action_request_validation_exception");
  EXPECT_EQ(j["error"]["reason"], "Validation Failed: 1: id [" + over +
                                      "] is too long, must be no longer than 512 bytes but was: 513;2: id [" +
                                      over +
                                      "x] is too long, must be no longer than 512 bytes but was: 514;");
  EXPECT_EQ(core.count("ids"), -1);  // nothing stored, the index not created
  // 512 bytes counted in UTF-8: 171 three-byte characters are 513 bytes.
  std::string euros;
  for (int i = 0; i < 171; ++i) euros += "\xE2\x82\xAC";
  EXPECT_EQ(call(core, "POST", "/ids/_bulk", "{\"create\":{\"_id\":\"" + euros + "\"}}\n{}\n").status, 400);

  r = call(core, "POST", "/ids/_bulk",
           "{\"create\":{\"_id\":\"\"}}\n{}\n{\"index\":{\"_id\":\"\"}}\n{}\n{\"create\":{\"_id\":\"" +
               at_limit + "\"}}\n{}\n");
  ASSERT_EQ(r.status, 200);
  j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(item_statuses(j), (std::vector<int>{400, 400, 201}));
  EXPECT_EQ(j["items"][0]["create"]["_id"], "");
  EXPECT_EQ(j["items"][0]["create"]["error"]["type"], "illegal_argument_exception");
  EXPECT_EQ(j["items"][0]["create"]["error"]["reason"], "if _id is specified it must not be empty");
  EXPECT_EQ(core.count("ids"), 1);
}

// The action line takes only Elasticsearch 8's parameters (BulkRequestParser); anything
// else fails the whole request, as it would against Elasticsearch.
TEST(SinkBulk, ActionLineParameters) {
  SinkCore core({});
  Reply r =
      call(core, "POST", "/p/_bulk",
           "{\"create\":{\"_index\":\"p\",\"_id\":\"1\",\"routing\":\"r\",\"version\":1,"
           "\"version_type\":\"external\",\"if_seq_no\":1,\"if_primary_term\":1,\"pipeline\":\"_none\","
           "\"_source\":{\"includes\":[\"a\"]},\"require_alias\":false,\"require_data_stream\":false,"
           "\"dynamic_templates\":{\"a\":\"t\"},\"list_executed_pipelines\":true,\"op_type\":\"create\","
           "\"whatever\":null}}\n{}\n"
           "{\"update\":{\"_id\":\"1\",\"retry_on_conflict\":3}}\n{\"doc\":{}}\n");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(item_statuses(parse(r)), (std::vector<int>{201, 400}));
  expect_request_error(core, "{\"create\":{}}\n{}\n{\"create\":{\"foo\":1}}\n{}\n", 400,
                       "illegal_argument_exception",
                       "Action/metadata line [3] contains an unknown parameter [foo]");
  expect_request_error(core, "{\"index\":{\"_type\":\"_doc\"}}\n{}\n", 400, "illegal_argument_exception",
                       "Action/metadata line [1] contains an unknown parameter [_type]");
  expect_request_error(
      core, "{\"index\":{\"dynamic_templates\":[]}}\n{}\n", 400, "illegal_argument_exception",
      "Malformed action/metadata line [1], expected a simple value for field [dynamic_templates] "
      "but found [START_ARRAY]");
  expect_request_error(
      core, "{\"index\":{\"routing\":{}}}\n{}\n", 400, "illegal_argument_exception",
      "Malformed action/metadata line [1], expected a simple value for field [routing] but found "
      "[START_OBJECT]");
  expect_request_error(core, "{\"index\":{\"dynamic_templates\":{\"a\":{}}}}\n{}\n", 400,
                       "illegal_argument_exception", "Malformed action/metadata line [1]");
  expect_request_error(core, "{\"delete\":{\"_id\":\"1\",\"dynamic_templates\":{\"a\":\"t\"}}}\n", 400,
                       "illegal_argument_exception",
                       "Delete request in line [1] does not accept dynamic_templates");
  EXPECT_EQ(core.count("idx"), -1);
  // op_type create inside an index action is a create (answered as one, as Elasticsearch
  // names the op type): the second write of an _id conflicts.
  r = call(core, "POST", "/o/_bulk",
           "{\"index\":{\"_id\":\"1\",\"op_type\":\"create\"}}\n{}\n"
           "{\"index\":{\"_id\":\"1\",\"op_type\":\"create\"}}\n{}\n"
           "{\"index\":{\"_id\":\"1\",\"op_type\":\"index\"}}\n{}\n");
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{201, 409, 200}));
  EXPECT_EQ(j["items"][1]["create"]["error"]["type"], "version_conflict_engine_exception");
  EXPECT_TRUE(j["items"][2].contains("index"));
}

// Metadata fields at a document's root fail the item, as Elasticsearch 8's mapper does;
// `_doc_count` is a field documents may carry, and metadata names below the root are fields.
TEST(SinkBulk, MetadataFieldsInDocuments) {
  SinkCore core({});
  Reply r = call(core, "POST", "/md/_bulk",
                 "{\"create\":{\"_id\":\"a\"}}\n{\"_id\":\"x\"}\n"
                 "{\"create\":{\"_id\":\"b\"}}\n{\"m\":1, \"_source\":{\"k\":[1,\"v\"]}}\n"
                 "{\"create\":{}}\n{\"_ignored\":5}\n"
                 "{\"create\":{}}\n{\"_doc_count\":3,\"a\":{\"_id\":1}}\n");
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{400, 400, 400, 201}));
  auto& e = j["items"][0]["create"]["error"];
  EXPECT_EQ(e["type"], "document_parsing_exception");
  EXPECT_EQ(e["reason"],
            "[1:8] failed to parse field [_id] of type [_id] in document with id 'a'. "
            "Preview of field's value: 'x'");
  EXPECT_EQ(e["caused_by"]["type"], "document_parsing_exception");
  EXPECT_EQ(e["caused_by"]["reason"],
            "[1:8] Field [_id] is a metadata field and cannot be added inside a "
            "document. Use the index API request parameters.");
  EXPECT_EQ(j["items"][1]["create"]["error"]["reason"],
            "[1:31] failed to parse field [_source] of type [_source] in document with id 'b'. "
            "Preview of field's value: '{k=[1, v]}'");
  EXPECT_EQ(j["items"][1]["create"]["error"]["caused_by"]["reason"].get<std::string>().substr(0, 7),
            "[1:19] ");
  EXPECT_EQ(core.count("md"), 1);
}

// Data streams (names of Elasticsearch 8's built-in templates), require_alias,
// require_data_stream and ingest pipelines, which the sink does not have.
TEST(SinkBulk, DataStreamsAliasesAndPipelines) {
  SinkCore core({});
  Reply r = call(core, "POST", "/_bulk?require_data_stream=true",
                 "{\"create\":{\"_index\":\"logs-a-b\"}}\n{}\n"
                 "{\"create\":{\"_index\":\"plain\"}}\n{}\n"
                 "{\"create\":{\"_index\":\"plain\",\"require_data_stream\":false}}\n{}\n"
                 "{\"index\":{\"_index\":\"metrics-a-b\"}}\n{}\n"
                 "{\"create\":{\"_index\":\"traces-x-y\",\"require_alias\":true}}\n{}\n"
                 "{\"create\":{\"_index\":\"logs-a-b\",\"pipeline\":\"p1\"}}\n{}\n");
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{201, 404, 201, 400, 404, 400}));
  auto err = [&](int i, const char* op) { return j["items"][i][op]["error"]; };
  EXPECT_EQ(err(1, "create")["type"], "resource_not_found_exception");
  EXPECT_EQ(err(1, "create")["reason"],
            "[require_data_stream] request flag is [true] and [plain] is not a data stream");
  EXPECT_EQ(err(3, "index")["type"], "illegal_argument_exception");
  EXPECT_EQ(err(3, "index")["reason"],
            "only write ops with an op_type of create are allowed in data streams");
  EXPECT_EQ(err(4, "create")["type"], "index_not_found_exception");
  EXPECT_EQ(err(4, "create")["reason"],
            "no such index [traces-x-y] and [require_alias] request flag is [true] and [traces-x-y] is not "
            "an alias");
  EXPECT_EQ(err(5, "create")["type"], "illegal_argument_exception");
  EXPECT_EQ(err(5, "create")["reason"], "pipeline with id [p1] does not exist");
  EXPECT_EQ(core.count("logs-a-b"), 1);
  EXPECT_EQ(core.count("plain"), 1);
  EXPECT_EQ(core.count("metrics-a-b"), -1);
  // The URL's pipeline applies to every item; an index op is fine outside data streams.
  r = call(core, "POST", "/plain/_bulk?pipeline=p2",
           "{\"index\":{}}\n{}\n{\"index\":{\"pipeline\":\"_none\"}}\n{}\n");
  j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{400, 201}));
  EXPECT_EQ(err(0, "index")["reason"], "pipeline with id [p2] does not exist");
  EXPECT_EQ(call(core, "POST", "/plain/_bulk?require_alias=maybe", "{\"index\":{}}\n{}\n").status, 400);
}

// A delete never creates its index; one without an _id fails the whole request.
TEST(SinkBulk, DeleteOfMissingIndexAndWithoutId) {
  SinkCore core({});
  Reply r = call(core, "POST", "/_bulk", "{\"delete\":{\"_index\":\"nothere\",\"_id\":\"1\"}}\n");
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(item_statuses(j), std::vector<int>{404});
  EXPECT_EQ(j["items"][0]["delete"]["error"]["type"], "index_not_found_exception");
  EXPECT_EQ(j["items"][0]["delete"]["error"]["reason"], "no such index [nothere]");
  EXPECT_FALSE(j["items"][0]["delete"].contains("result"));
  EXPECT_EQ(core.count("nothere"), -1);
  EXPECT_EQ(core.count("*"), 0);
  expect_request_error(core, "{\"delete\":{\"_index\":\"x\"}}\n", 400, "action_request_validation_exception",
                       "Validation Failed: 1: id is missing;");
  expect_request_error(core, "{\"create\":{}}\n{}\n{\"delete\":{\"_id\":\"\"}}\n", 400,
                       "action_request_validation_exception", "Validation Failed: 1: id is missing;");
  EXPECT_EQ(core.count("*"), 0);
}

TEST(SinkBulk, CrLfAndBlankLinesAreTolerated) {
  SinkCore core({});
  Reply r =
      call(core, "POST", "/c/_bulk", "\r\n{\"create\":{}}\r\n{\"a\":1}\r\n\n{\"index\":{}}\n{\"b\":2} \n");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(item_statuses(parse(r)), (std::vector<int>{201, 201}));
}

TEST(SinkCount, PatternsAndMissingIndices) {
  SinkCore core({});
  call(core, "POST", "/logs-a/_bulk", n_docs(3));
  call(core, "POST", "/logs-b/_bulk", n_docs(4));
  call(core, "POST", "/metrics-a/_bulk", n_docs(5));
  auto count = [&](std::string target) {
    Reply r = call(core, "GET", target);
    EXPECT_EQ(r.status, 200) << target << r.body;
    return parse(r)["count"].get<int>();
  };
  EXPECT_EQ(count("/logs-a/_count"), 3);
  EXPECT_EQ(count("/logs-*/_count"), 7);
  EXPECT_EQ(count("/*-a/_count"), 8);
  EXPECT_EQ(count("/logs-*,metrics-*/_count"), 12);
  EXPECT_EQ(count("/logs-*,logs-a/_count"), 7);  // an index matched twice counts once
  EXPECT_EQ(count("/_all/_count"), 12);
  EXPECT_EQ(count("/_count"), 12);
  EXPECT_EQ(count("/nothing-*/_count"), 0);
  EXPECT_EQ(count("/logs-%2A/_count"), 7);
  Reply r = call(core, "GET", "/missing/_count");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(parse(r)["error"]["type"], "index_not_found_exception");
  EXPECT_EQ(call(core, "POST", "/logs-a/_refresh").status, 200);
}

TEST(SinkCat, IndicesJsonAndText) {
  SinkCore core({});
  call(core, "POST", "/b/_bulk", n_docs(2));
  call(core, "POST", "/a/_bulk", n_docs(1));
  Reply r = call(core, "GET", "/_cat/indices?format=json");
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["index"], "a");
  EXPECT_EQ(j[0]["docs.count"], "1");  // a string, as in Elasticsearch
  EXPECT_EQ(j[1]["health"], "green");
  EXPECT_EQ(parse(call(core, "GET", "/_cat/indices/b*?format=json")).size(), 1u);
  r = call(core, "GET", "/_cat/indices");
  EXPECT_EQ(r.content_type.rfind("text/plain", 0), 0u);
  EXPECT_EQ(r.body, "green open a 1 0 1 0\ngreen open b 1 0 2 0\n");
}

TEST(SinkStatsEndpoint, CountsEverything) {
  SinkCore core({});
  std::string plain = n_docs(10, "create", 0);
  call(core, "POST", "/s/_bulk", gzip(plain), "gzip");
  call(core, "POST", "/s/_bulk", n_docs(2, "create", 0));  // 2 conflicts
  call(core, "POST", "/s/_bulk", "junk");                  // request 400
  call(core, "GET", "/");
  Reply r = call(core, "GET", "/_sink/stats");
  ASSERT_EQ(r.status, 200);
  json j = parse(r);
  EXPECT_EQ(j["docs"], 10);
  EXPECT_EQ(j["requests"], 5);  // including this one
  EXPECT_EQ(j["bulk_requests"], 3);
  EXPECT_EQ(j["bytes_compressed"], gzip(plain).size() + n_docs(2, "create", 0).size() + 4);
  EXPECT_EQ(j["bytes_uncompressed"], plain.size() + n_docs(2, "create", 0).size() + 4);
  EXPECT_EQ(j["items_by_status"]["201"], 10);
  EXPECT_EQ(j["items_by_status"]["409"], 2);
  EXPECT_EQ(j["bulk_by_status"]["200"], 2);
  EXPECT_EQ(j["bulk_by_status"]["400"], 1);
  EXPECT_EQ(j["indices"]["s"], 10);
}

// Fault decisions: same seed -> same decisions; the rate is honoured over many rolls.
std::vector<int> statuses_with(SinkOptions o, int requests, int items) {
  SinkCore core(std::move(o));
  std::vector<int> out;
  for (int i = 0; i < requests; ++i) {
    Reply r = call(core, "POST", "/f/_bulk", n_docs(items));
    if (r.drop_connection) {
      out.push_back(0);
    } else if (r.status != 200) {
      out.push_back(r.status);
    } else {
      for (int s : item_statuses(parse(r))) out.push_back(s);
    }
  }
  return out;
}

TEST(SinkFaults, Item429IsDeterministicPerSeed) {
  SinkOptions o;
  o.item_429_rate = 0.3;
  o.seed = 42;
  auto a = statuses_with(o, 20, 200), b = statuses_with(o, 20, 200);
  EXPECT_EQ(a, b);
  long n429 = std::count(a.begin(), a.end(), 429);
  EXPECT_GT(n429, 4000 * 0.25);
  EXPECT_LT(n429, 4000 * 0.35);
  EXPECT_EQ(std::count(a.begin(), a.end(), 201), 4000 - n429);
  o.seed = 43;
  EXPECT_NE(statuses_with(o, 20, 200), a);
  // Item shape of a rejection.
  o.item_429_rate = 1;
  SinkCore core(o);
  Reply r = call(core, "POST", "/f/_bulk", n_docs(1, "create", 7));
  json j = parse(r);
  EXPECT_TRUE(j["errors"].get<bool>());
  EXPECT_EQ(j["items"][0]["create"]["status"], 429);
  EXPECT_EQ(j["items"][0]["create"]["_id"], "7");
  EXPECT_EQ(j["items"][0]["create"]["error"]["type"], "es_rejected_execution_exception");
  EXPECT_EQ(core.count("*"), 0);
}

TEST(SinkFaults, RequestLevelFaults) {
  for (auto [field, status] : {std::pair{0, 429}, std::pair{1, 503}, std::pair{2, 0}}) {
    SinkOptions o;
    o.seed = 7;
    double& rate = field == 0 ? o.request_429_rate : field == 1 ? o.request_503_rate : o.drop_connection_rate;
    rate = 0.5;
    auto a = statuses_with(o, 400, 1);
    EXPECT_EQ(a, statuses_with(o, 400, 1));
    long faults = std::count(a.begin(), a.end(), status);
    EXPECT_GT(faults, 150) << status;
    EXPECT_LT(faults, 250) << status;
    EXPECT_EQ(std::count(a.begin(), a.end(), 201), 400 - faults);
    rate = 1;
    SinkCore core(o);
    Reply r = call(core, "POST", "/f/_bulk", n_docs(3));
    EXPECT_EQ(core.count("*"), 0);
    if (status == 0) {
      EXPECT_TRUE(r.drop_connection);
      continue;
    }
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(parse(r)["error"]["type"],
              status == 429 ? "es_rejected_execution_exception" : "unavailable_shards_exception");
    // Only _bulk is subject to faults.
    EXPECT_EQ(call(core, "GET", "/").status, 200);
    EXPECT_EQ(core.stats().bulk_by_status.at(status), 1u);
  }
}

TEST(SinkFaults, MaxContentLengthIsMeasuredUncompressed) {
  std::string body = n_docs(100);
  SinkOptions o;
  o.max_content_length = body.size();
  SinkCore core(o);
  EXPECT_EQ(call(core, "POST", "/l/_bulk", body).status, 200);  // exactly at the limit
  Reply r = call(core, "POST", "/l/_bulk", body + "\n");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(parse(r)["error"]["type"], "content_too_long_exception");
  EXPECT_EQ(call(core, "POST", "/l/_bulk", gzip(body), "gzip").status, 200);
  // Small on the wire, over the limit once inflated.
  std::string big;
  for (int i = 0; i < 20; ++i) big += body;  // repeats compress to almost nothing
  ASSERT_LT(gzip(big).size(), body.size());
  EXPECT_EQ(call(core, "POST", "/l/_bulk", gzip(big), "gzip").status, 413);
  // A gzip bomb is cut at the limit, not inflated.
  EXPECT_EQ(call(core, "POST", "/l/_bulk", gzip(std::string(50u << 20, '\n')), "gzip").status, 413);
  EXPECT_EQ(core.count("l"), 200);
}

TEST(SinkFaults, MappingErrorField) {
  SinkOptions o;
  o.mapping_error_field = "attributes.bad";
  SinkCore core(o);
  std::string body =
      "{\"create\":{}}\n{\"attributes\":{\"bad\":\"x\"}}\n"
      "{\"create\":{}}\n{\"attributes.bad\":1}\n"
      "{\"create\":{}}\n{\"attributes\":{\"good\":1}}\n"
      "{\"create\":{}}\n{\"bad\":1,\"attributes\":{\"badx\":1}}\n";
  Reply r = call(core, "POST", "/me/_bulk", body);
  json j = parse(r);
  EXPECT_EQ(item_statuses(j), (std::vector<int>{400, 400, 201, 201}));
  EXPECT_EQ(j["items"][0]["create"]["error"]["type"], "mapper_parsing_exception");
  EXPECT_NE(j["items"][0]["create"]["error"]["reason"].get<std::string>().find("[attributes.bad]"),
            std::string::npos);
  EXPECT_EQ(core.count("me"), 2);
}

TEST(SinkFaults, LatencyIsAttachedToBulkReplies) {
  SinkOptions o;
  o.latency_ms = 25;
  SinkCore core(o);
  EXPECT_EQ(call(core, "POST", "/x/_bulk", n_docs(1)).delay_ms, 25);
  EXPECT_EQ(call(core, "GET", "/").delay_ms, 0);
}

TEST(SinkDump, OneLinePerAcceptedDocument) {
  TempFile f("tern-sink-dump");
  {
    SinkOptions o;
    o.dump_path = f.path.string();
    SinkCore core(o);
    call(core, "POST", "/_bulk",
         "{\"create\":{\"_index\":\"i\",\"_id\":\"a\\\"b\"}}\n{\"k\":\"v\",\"n\":[1,2]}\n"
         "{\"create\":{\"_index\":\"i\",\"_id\":\"a\\\"b\"}}\n{\"dup\":true}\n"
         "{\"index\":{\"_index\":\"j\"}}\n  {\"x\":1}\r\n"
         "{\"index\":{\"_index\":\"j\"}}\n{broken\n");
    core.flush_dump();
    auto lines = f.lines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], R"({"_index":"i","_id":"a\"b","_source":{"k":"v","n":[1,2]}})");
    json second = json::parse(lines[1]);
    EXPECT_EQ(second["_index"], "j");
    EXPECT_EQ(second["_id"].get<std::string>().size(), 20u);
    EXPECT_EQ(second["_source"], json::parse(R"({"x":1})"));
    call(core, "POST", "/k/_bulk", n_docs(3));
  }  // the destructor flushes too
  EXPECT_EQ(f.lines().size(), 5u);
}

TEST(SinkBroken, NeverCrashesAndAlwaysAnswersJson) {
  SinkCore core({});
  std::string valid = n_docs(20, "create", 0);
  std::string gz = gzip(valid);
  auto post = [&](std::string body, std::string_view enc = {}) {
    Reply r = call(core, "POST", "/b/_bulk", std::move(body), enc);
    parse(r);
    return r.status;
  };
  EXPECT_EQ(post("", "gzip"), 400);
  EXPECT_EQ(post(gz.substr(0, gz.size() / 2), "gzip"), 400);  // truncated: corrupt, not too large
  EXPECT_EQ(post(gz.substr(0, 10), "gzip"), 400);
  EXPECT_EQ(post("this is not gzip at all, not even close", "gzip"), 400);
  EXPECT_EQ(post(valid, "gzip"), 400);
  EXPECT_EQ(post(std::string("\0\0\0\n", 4)), 400);
  // Invalid UTF-8: in a document the item fails, in an action line the request does.
  Reply r = call(core, "POST", "/b/_bulk", "{\"create\":{}}\n{\"m\":\"\xff\xfe\"}\n");
  EXPECT_EQ(item_statuses(parse(r)), std::vector<int>{400});
  EXPECT_EQ(post("{\"create\":{\"_id\":\"\xc3\x28\"}}\n{}\n"), 400);
  // Deep nesting is refused by depth limits, not by the stack.
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  r = call(core, "POST", "/b/_bulk", "{\"create\":{}}\n{\"d\":" + deep + "}\n");
  EXPECT_EQ(item_statuses(parse(r)), std::vector<int>{400});
  EXPECT_EQ(post("{\"create\":" + deep + "}\n{}\n"), 400);
  // A huge (8 MB) document line is fine.
  std::string huge = "{\"create\":{}}\n{\"m\":\"" + std::string(8u << 20, 'x') + "\"}\n";
  r = call(core, "POST", "/huge/_bulk", huge);
  EXPECT_EQ(item_statuses(parse(r)), std::vector<int>{201});
  // Random mutations of a valid body: any answer is fine as long as it is well-formed.
  std::mt19937 rng(1234);
  for (int i = 0; i < 1500; ++i) {
    std::string b = valid;
    int edits = 1 + rng() % 8;
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % b.size();
      switch (rng() % 3) {
        case 0:
          b[at] = static_cast<char>(rng());
          break;
        case 1:
          b.erase(at, 1 + rng() % 20);
          break;
        default:
          b.insert(at, 1, "{}[]\":,\n\\"[rng() % 10]);
      }
      if (b.empty()) b.push_back('\n');  // not `b = "\n"`: GCC 12 -Wrestrict false positive
    }
    int s = post(b, i % 5 == 0 ? "gzip" : "");
    EXPECT_TRUE(s == 200 || s == 400) << s;
  }
}

TEST(SinkConcurrency, ParallelBulksCountExactly) {
  TempFile f("tern-sink-par");
  SinkOptions o;
  o.dump_path = f.path.string();
  SinkCore core(o);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&core, t] {
      for (int i = 0; i < 50; ++i) {
        // 10 shared ids: exactly one create of each wins across all threads.
        call(core, "POST", "/p/_bulk", n_docs(10, "create", 0) + n_docs(20));
        (void)t;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(core.count("p"), 10 + 4 * 50 * 20);
  EXPECT_EQ(core.stats().items_by_status.at(409), 4u * 50 * 10 - 10);
  core.flush_dump();
  EXPECT_EQ(f.lines().size(), 10u + 4 * 50 * 20);
}

TEST(SinkGlob, Matches) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("logs-*-default", "logs-generic.otel-default"));
  EXPECT_FALSE(glob_match("logs-*-default", "logs-generic.otel-prod"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(glob_match("abc", "abcd"));
  EXPECT_TRUE(glob_match("**", "x"));
}

}  // namespace
}  // namespace tern::sink
