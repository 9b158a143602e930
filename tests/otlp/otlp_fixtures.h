#pragma once
// Canonical OTLP/JSON requests that set every field of every message (in the order
// the JSON encoder writes them). Shared by the JSON and protobuf codec tests: a JSON
// fixture decoded, encoded as protobuf, decoded again and written as JSON must come
// back byte for byte, which checks every protobuf field against an independent codec.
#include <string_view>

namespace tern::otlp::fixtures {

// Every field of every logs message, in the order the encoder writes them.
constexpr std::string_view kLogs =
    R"({"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}],)"
    R"("droppedAttributesCount":1},"scopeLogs":[{"scope":{"name":"lib","version":"1.0","attributes":)"
    R"([{"key":"b","value":{"boolValue":true}}],"droppedAttributesCount":2},"logRecords":[{)"
    R"("timeUnixNano":"1700000000000000001","observedTimeUnixNano":"18446744073709551615",)"
    R"("severityNumber":9,"severityText":"INFO","body":{"kvlistValue":{"values":[)"
    R"({"key":"s","value":{"stringValue":"q\"\\\n\u0001é"}},{"key":"i","value":{"intValue":"-9223372036854775808"}},)"
    R"({"key":"d","value":{"doubleValue":1.5}},{"key":"nan","value":{"doubleValue":"NaN"}},)"
    R"({"key":"inf","value":{"doubleValue":"-Infinity"}},{"key":"by","value":{"bytesValue":"AAH/"}},)"
    R"({"key":"b1","value":{"bytesValue":"YQ=="}},{"key":"f","value":{"boolValue":false}},)"
    R"({"key":"es","value":{"stringValue":""}},{"key":"empty","value":{}},)"
    R"({"key":"arr","value":{"arrayValue":{"values":[{"intValue":"1"},{"arrayValue":{}},{"kvlistValue":{}}]}}}]}},)"
    R"("attributes":[{"key":"k","value":{"stringValue":"v"}}],"droppedAttributesCount":3,"flags":1,)"
    R"("traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"a1a2a3a4a5a6a7a8","eventName":"ev"}],)"
    R"("schemaUrl":"https://s/1"}],"schemaUrl":"https://s/0"}]})";

constexpr std::string_view kTraces =
    R"({"resourceSpans":[{"resource":{"attributes":[{"key":"r","value":{"intValue":"5"}}]},"scopeSpans":[{)"
    R"("scope":{"name":"tracer"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",)"
    R"("spanId":"eee19b7ec3c1b174","traceState":"a=b","parentSpanId":"eee19b7ec3c1b173","flags":257,)"
    R"("name":"GET /","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000",)"
    R"("attributes":[{"key":"http.method","value":{"stringValue":"GET"}}],"droppedAttributesCount":1,)"
    R"("events":[{"timeUnixNano":"1544712660500000000","name":"ev","attributes":[{"key":"x",)"
    R"("value":{"doubleValue":-0.25}}],"droppedAttributesCount":4}],"droppedEventsCount":2,)"
    R"("links":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000002","traceState":"c=d",)"
    R"("attributes":[{"key":"l","value":{"boolValue":true}}],"droppedAttributesCount":5,"flags":256}],)"
    R"("droppedLinksCount":3,"status":{"message":"boom","code":2}}],"schemaUrl":"u1"}],"schemaUrl":"u0"}]})";

constexpr std::string_view kMetrics =
    R"({"resourceMetrics":[{"resource":{"attributes":[{"key":"host","value":{"stringValue":"h"}}]},)"
    R"("scopeMetrics":[{"scope":{"name":"meter","version":"2"},"metrics":[)"
    R"({"name":"g","description":"a gauge","unit":"1","gauge":{"dataPoints":[{"attributes":[{"key":"a",)"
    R"("value":{"stringValue":"b"}}],"startTimeUnixNano":"1","timeUnixNano":"2","asDouble":0,)"
    R"("exemplars":[{"filteredAttributes":[{"key":"f","value":{"intValue":"1"}}],"timeUnixNano":"3",)"
    R"("asInt":"-7","spanId":"0102030405060708","traceId":"0102030405060708090a0b0c0d0e0f10"}],"flags":1}]},)"
    R"("metadata":[{"key":"m","value":{"stringValue":"meta"}}]},)"
    R"({"name":"s","sum":{"dataPoints":[{"timeUnixNano":"2","asInt":"9223372036854775807"}],)"
    R"("aggregationTemporality":2,"isMonotonic":true}},)"
    R"({"name":"h","histogram":{"dataPoints":[{"timeUnixNano":"5","count":"6","sum":10.5,)"
    R"("bucketCounts":["1","2","3"],"explicitBounds":[1,2.5],"exemplars":[{"asDouble":"Infinity"}],)"
    R"("flags":1,"min":0,"max":7}],"aggregationTemporality":1}},)"
    R"({"name":"nosum","histogram":{"dataPoints":[{"count":"1"}]}},)"
    R"({"name":"e","exponentialHistogram":{"dataPoints":[{"timeUnixNano":"5","count":"8","sum":1e+300,)"
    R"("scale":-3,"zeroCount":"1","positive":{"offset":-2,"bucketCounts":["3","4"]},)"
    R"("negative":{"bucketCounts":["0"]},"flags":1,"min":-1,"max":1,"zeroThreshold":1e-09}],)"
    R"("aggregationTemporality":2}},)"
    R"({"name":"q","summary":{"dataPoints":[{"timeUnixNano":"9","count":"4","sum":12,)"
    R"("quantileValues":[{"value":1},{"quantile":0.5,"value":3},{"quantile":1,"value":"NaN"}],"flags":1}]}},)"
    R"({"name":"empty"}]}]}]})";

}  // namespace tern::otlp::fixtures
