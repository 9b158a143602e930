// libFuzzer target: `tern sink`'s request handling (SinkCore::handle, no sockets) on
// arbitrary bulk bodies. Byte 0 picks the path, filter_path, gzip and a mapping-error
// field; the rest is the body. Never a crash; every reply has an HTTP status and, when it
// is JSON, parses; and a 200 `_bulk` reply is read by the exporter's BulkResponseParser as
// an answer for as many items as it lists (the sink and the exporter agree on the format).
#include <simdjson.h>

#include <cstdint>
#include <string>

#include "exporter/elasticsearch/bulk_response.h"
#include "require.h"
#include "sink/sink_core.h"

using tern::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  // The last one filters away what the exporter reads; the others give it full replies.
  static const std::string kTargets[] = {
      "/_bulk",
      "/logs-x/_bulk",
      "/_bulk?filter_path=" + std::string(tern::exporter::es::kBulkFilterPath),
      "/_bulk?filter_path=items.*.error,took",
  };
  const bool exporter_reads_reply = (flags & 3) != 3;
  tern::sink::SinkOptions opt;
  opt.max_content_length = 1 << 20;
  if (flags & 8) opt.mapping_error_field = "bad";
  tern::sink::SinkCore sink(opt);  // fresh per input: stored documents do not pile up
  tern::sink::Request req;
  req.method = "POST";
  req.target = kTargets[flags & 3];
  if (flags & 4) req.content_encoding = "gzip";
  req.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  tern::sink::Reply reply = sink.handle(req);

  require(reply.status >= 100 && reply.status < 600, "reply without an HTTP status");
  if (reply.content_type != "application/json" || reply.body.empty()) return 0;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  require(parser.parse(reply.body).get(doc) == simdjson::SUCCESS, "reply is not valid JSON");
  simdjson::dom::array items;
  if (reply.status != 200 || doc["items"].get_array().get(items) != simdjson::SUCCESS) return 0;
  if (exporter_reads_reply) {
    static tern::exporter::es::BulkResponseParser reader;
    require(reader.parse(reply.body, items.size()), "the exporter cannot read the sink's bulk reply");
  }
  return 0;
}
