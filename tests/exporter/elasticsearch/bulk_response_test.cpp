// BulkResponseParser: what the exporter learns from a `_bulk` response body.
#include "exporter/elasticsearch/bulk_response.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::exporter::es {
namespace {

// Every item 200 or 201 in Elasticsearch's compact layout: settled without a parse.
TEST(BulkResponse, AllIndexedIsReadFromTheBytes) {
  BulkResponseParser p;
  std::string body =
      R"({"items":[{"create":{"_index":"logs-a","status":201}},{"index":{"_index":"logs-a","status":200}}]})";
  ASSERT_TRUE(p.parse(body, 2));
  EXPECT_TRUE(p.all_indexed());
  EXPECT_TRUE(p.results().empty());
  ASSERT_FALSE(p.parse(body, 3));  // fewer items than were sent: unreadable
}

// `errors` is a hint (bulk-delivery.md): the items decide. A response that says
// `errors:false` while items failed is read item by item, and a count of statuses that
// does not match the items sent is never taken for all indexed.
TEST(BulkResponse, TheItemsDecideNotErrors) {
  BulkResponseParser p;
  std::string lying = R"({"errors":false,"items":[{"create":{"status":201}},{"create":{"status":429}}]})";
  ASSERT_TRUE(p.parse(lying, 2));
  EXPECT_FALSE(p.all_indexed());
  ASSERT_EQ(p.results().size(), 2u);
  EXPECT_EQ(p.results()[1].status, 429);
  std::string only = R"({"errors":false})";
  EXPECT_FALSE(p.parse(only, 7));
  std::string status2010 = R"({"items":[{"create":{"status":2010}}]})";
  EXPECT_FALSE(p.parse(status2010, 1));  // not 201: parsed, and 2010 is no HTTP status: unreadable
  EXPECT_FALSE(p.all_indexed());
  std::string with_error = R"({"items":[{"create":{"status":201,"error":{"type":"x"}}}]})";
  ASSERT_TRUE(p.parse(with_error, 1));
  EXPECT_FALSE(p.all_indexed());
}

TEST(BulkResponse, MixedResultsKeepStatusAndFailureDetails) {
  BulkResponseParser p;
  std::string body = R"({"took":5,"errors":true,"items":[
    {"create":{"_index":"logs-a","status":201}},
    {"create":{"_index":"logs-a","status":429,"error":{"type":"es_rejected_execution_exception","reason":"queue full"}}},
    {"index":{"_index":"logs-b","status":400,"error":{"type":"document_parsing_exception","reason":"caf\u00e9 \"x\"","caused_by":{"type":"y"}}}},
    {"create":{"status":409,"error":"a string, not an object"}}]})";
  ASSERT_TRUE(p.parse(body, 4));
  EXPECT_FALSE(p.all_indexed());
  const auto& r = p.results();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].status, 201);
  EXPECT_EQ(r[0].index, "");  // kept for failures only
  EXPECT_EQ(r[1].status, 429);
  EXPECT_EQ(r[1].type, "es_rejected_execution_exception");
  EXPECT_EQ(r[1].reason, "queue full");
  EXPECT_EQ(r[1].index, "logs-a");
  EXPECT_EQ(r[2].status, 400);
  EXPECT_EQ(r[2].reason, "caf\xC3\xA9 \"x\"");
  EXPECT_EQ(r[3].status, 409);
  EXPECT_EQ(r[3].type, "");
}

TEST(BulkResponse, ParserIsReusedAcrossBodies) {
  BulkResponseParser p;
  std::string two = R"({"errors":true,"items":[{"create":{"status":201}},{"create":{"status":500}}]})";
  ASSERT_TRUE(p.parse(two, 2));
  ASSERT_EQ(p.results().size(), 2u);
  std::string good = R"({"items":[{"create":{"status":201}},{"create":{"status":201}}]})";
  ASSERT_TRUE(p.parse(good, 2));
  EXPECT_TRUE(p.all_indexed());
  EXPECT_TRUE(p.results().empty());
  ASSERT_TRUE(p.parse(two, 2));
  EXPECT_FALSE(p.all_indexed());
  EXPECT_EQ(p.results()[1].status, 500);
}

// Anything that is not an answer for the items sent is unreadable (the exporter then
// sends the whole request again), never a partial or made-up result.
TEST(BulkResponse, UnreadableBodiesAreRefused) {
  const char* bodies[] = {
      "",
      "not json",
      R"({"errors":true,"items":[{"create":{"status":201})",                             // truncated
      R"({"error":{"type":"illegal_argument_exception","reason":"bad"},"status":400})",  // no items
      R"({"errors":true,"items":{}})",                                                   // items not an array
      R"({"errors":true,"items":[{"create":{"_index":"a"}}]})",                          // no status
      R"({"errors":true,"items":[{"create":{"status":"201"}}]})",                        // status a string
      R"({"errors":true,"items":[{"create":{"status":0}}]})",                            // not an HTTP status
      R"({"errors":true,"items":[{"create":{"status":-201}}]})",
      R"({"errors":true,"items":[{"create":{"status":4294967497}}]})",                  // 201 + 2^32
      R"({"errors":true,"items":[{"create":{"status":201},"index":{"status":201}}]})",  // two actions
      R"({"errors":true,"items":[42]})",
      R"({"errors":true,"items":[{"create":{"status":201}}]})",  // 1 item, 2 sent
      R"({"errors":true,"items":[{"create":{"status":201}},{"create":{"status":201}},{"create":{"status":201}}]})",
      // Items that read well, then JSON that breaks: not an answer (the items were settled
      // by their statuses, the 400 dead-lettered and never sent again).
      R"({"items":[{"create":{"status":201}},{"create":{"status":400}}],"took":})",
      R"({"items":[{"create":{"status":201}},{"create":{"status":400}}]} trailing)",
      R"({"items":[{"create":{"status":201}},{"create":{"status":400}}])",
  };
  BulkResponseParser p;
  for (const char* b : bodies) {
    std::string body = b;
    EXPECT_FALSE(p.parse(body, 2)) << b;
    EXPECT_FALSE(p.all_indexed()) << b;
  }
}

}  // namespace
}  // namespace tern::exporter::es
