// The file receiver's two readers of bytes it does not control:
//  - LineSplitter on arbitrary file contents, fed in arbitrary chunks: the lines, end
//    offsets and truncation flags must be exactly those of a plain reference that splits
//    the whole text at once (so chunk boundaries never change a line), every line fits
//    max_size, and the offsets end where the input ends;
//  - parse_checkpoint on an arbitrary (damaged) checkpoint file: an error with a message, or
//    positions that format_checkpoint writes back to a text that parses to the same;
//  - the operators' timestamp layouts (an arbitrary layout compiled, then an arbitrary text
//    parsed with it and with the epoch layouts) and an operator chain (regex, json, time,
//    severity, key=value, csv, container, trace, move, retain) on an arbitrary line: never a crash, times
//    never negative, captures are pieces of the line.
// Byte 0 picks the reader and options; byte 1 the line size limit; byte 2 the chunking.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "receiver/filelog/checkpoint.h"
#include "receiver/filelog/line_splitter.h"
#include "receiver/filelog/operators.h"
#include "receiver/filelog/timestamp_layout.h"
#include "require.h"

namespace {

using tern::fuzz::require;
namespace fl = tern::receiver::filelog;

struct Line {
  std::string text;
  std::uint64_t end;
  bool truncated;
  bool operator==(const Line&) const = default;
};

// The splitter's contract (line_splitter.h) applied to one whole line: strip the '\r'
// before '\n', cut what is longer than max (backing up to a UTF-8 character start).
Line reference_line(std::string_view l, std::uint64_t end, std::size_t max, bool utf8) {
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  const bool truncated = l.size() > max;
  if (truncated) {
    std::size_t cut = max;
    if (utf8)
      for (int i = 0; i < 3 && cut > 0 && (static_cast<unsigned char>(l[cut]) & 0xC0) == 0x80; ++i) --cut;
    l = l.substr(0, cut);
  }
  return {std::string(l), end, truncated};
}

std::vector<Line> reference(std::string_view text, std::size_t max, bool utf8, bool flush) {
  std::vector<Line> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (flush) out.push_back(reference_line(text.substr(pos), text.size(), max, utf8));
      break;
    }
    out.push_back(reference_line(text.substr(pos, nl - pos), nl + 1, max, utf8));
    pos = nl + 1;
  }
  return out;
}

void check_splitter(std::uint8_t flags, std::size_t max, std::uint8_t chunking, std::string_view text) {
  const bool utf8 = flags & 1, flush = flags & 2;
  fl::LineSplitter splitter(max, utf8);
  std::vector<Line> got;
  const auto emit = [&](std::string_view l, std::uint64_t end, bool truncated) {
    require(l.size() <= max, "a line is longer than max_size");
    got.push_back({std::string(l), end, truncated});
  };
  // Chunk sizes from a small generator seeded by the input: 1 byte at a time, a few
  // bytes, or large reads, so every boundary lands somewhere.
  std::uint32_t state = chunking | 1u;
  std::size_t pos = 0;
  while (pos < text.size()) {
    state = state * 1103515245u + 12345u;
    const std::size_t step = chunking < 16    ? 1
                             : chunking < 128 ? 1 + (state >> 16) % 17
                                              : 1 + (state >> 16) % 4096;
    const std::size_t n = std::min(step, text.size() - pos);
    splitter.feed(text.substr(pos, n), emit);
    pos += n;
  }
  require(splitter.offset() == text.size(), "offset() is not the number of bytes fed");
  if (flush) splitter.flush(emit);
  require(got == reference(text, max, utf8, flush), "lines differ from the whole-text reference");
  for (std::size_t i = 1; i < got.size(); ++i)
    require(got[i].end > got[i - 1].end, "end offsets do not increase");
}

void check_checkpoint(std::string_view text) {
  std::string error;
  const auto positions = fl::parse_checkpoint(text, error);
  if (!positions) {
    require(!error.empty(), "a refused checkpoint without a message");
    return;
  }
  std::map<std::uint64_t, fl::FilePosition> by_id;
  for (std::size_t i = 0; i < positions->size(); ++i) by_id[i] = (*positions)[i];
  const auto again = fl::parse_checkpoint(fl::format_checkpoint(by_id), error);
  require(again.has_value(), "a written checkpoint does not parse");
  require(again->size() == positions->size(), "a written checkpoint lost files");
  for (std::size_t i = 0; i < again->size(); ++i) {
    const auto &a = (*positions)[i], &b = (*again)[i];
    require(a.path == b.path && a.dev == b.dev && a.ino == b.ino && a.fp_len == b.fp_len &&
                a.fp_hash == b.fp_hash && a.offset == b.offset,
            "a written checkpoint reads back different positions");
  }
}

// "<layout>\n<text>": the layout compiled, the text parsed with it; then the whole input as
// a log line through a chain of operators.
void check_operators(std::string_view input) {
  const std::size_t nl = input.find('\n');
  const std::string_view layout = input.substr(0, nl);
  const std::string_view text = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  std::string error;
  if (const auto l = fl::TimestampLayout::compile(layout, error)) {
    for (bool utc : {true, false})
      if (const auto ns = l->parse(text, utc)) require(*ns >= 0, "a layout parsed a negative time");
  } else {
    require(!error.empty(), "a refused layout without a message");
  }
  for (const char* e : {"s", "ms", "us", "ns", "s.ns"})
    if (const auto ns = fl::parse_epoch(text, e)) require(*ns >= 0, "an epoch parsed a negative time");

  using Op = tern::receiver::filelog::FilelogOperatorConfig;
  static fl::Operators* ops = [] {
    Op re;
    re.type = Op::Type::kRegexParser;
    re.regex = R"(^(?P<time>\S+)\s+(?:\[(?P<level>\w+)\]\s+)?(?P<message>.*)$)";
    re.timestamp = Op::Timestamp{"attributes.time", false, "%Y-%m-%dT%H:%M:%S.%L%z", false};
    Op::Severity sv;
    sv.parse_from = "attributes.level";
    sv.mapping = {{17, "error", 0, -1}, {13, "", 400, 499}};
    re.severity = sv;
    re.on_error = Op::OnError::kSendQuiet;
    Op json;
    json.type = Op::Type::kJsonParser;
    json.parse_from = "attributes.message";
    json.on_error = Op::OnError::kSendQuiet;
    Op epoch;
    epoch.type = Op::Type::kTimeParser;
    epoch.timestamp = Op::Timestamp{"attributes.ts", true, "s.ms", true};
    epoch.on_error = Op::OnError::kSendQuiet;
    Op move;
    move.type = Op::Type::kMove;
    move.from = "attributes.message";
    move.to = "body";
    move.on_error = Op::OnError::kSendQuiet;
    Op kv;
    kv.type = Op::Type::kKeyValueParser;
    kv.parse_from = "body";
    kv.on_error = Op::OnError::kSendQuiet;
    Op kv2 = kv;
    kv2.delimiter = ":=";
    kv2.pair_delimiter = ";;";
    Op retain;
    retain.type = Op::Type::kRetain;
    retain.fields = {"attributes.time", "attributes.level"};
    Op container;
    container.type = Op::Type::kContainer;
    container.on_error = Op::OnError::kSendQuiet;
    Op trace;
    trace.type = Op::Type::kTraceParser;
    trace.on_error = Op::OnError::kSendQuiet;
    Op csv;
    csv.type = Op::Type::kCsvParser;
    csv.delimiter = ",";
    csv.csv_header = {"c1", "c2", "c3"};
    csv.on_error = Op::OnError::kSendQuiet;
    Op lazy = csv;
    lazy.lazy_quotes = true;
    lazy.delimiter = ";";
    return new fl::Operators({container, csv, lazy, re, json, epoch, kv, kv2, trace, move, retain});
  }();
  static fl::Operators* regex_only = [] {
    Op re;
    re.type = Op::Type::kRegexParser;
    re.regex = R"(^(?P<time>\S+)\s+(?:\[(?P<level>\w+)\]\s+)?(?P<message>.*)$)";
    re.on_error = Op::OnError::kDropQuiet;
    return new fl::Operators({re});
  }();
  tern::pdata::Arena arena;
  const std::string_view line = arena.copy(input);
  tern::pdata::LogRecord rec(arena);
  rec.body = tern::pdata::AnyValue::string(line);
  rec.attributes.push_back(
      {"log.file.path", tern::pdata::AnyValue::string("/var/log/pods/ns_pod_0b3e7f3a-1c2d/app/0.log")});
  tern::pdata::Attributes resource(arena.vec<tern::pdata::KeyValue>());
  require(ops->apply(rec, arena, &resource), "send_quiet operators dropped a record");
  tern::pdata::LogRecord only(arena);
  only.body = tern::pdata::AnyValue::string(line);
  if (regex_only->apply(only, arena)) {
    for (const auto& kv : only.attributes) {  // captures: views of the line
      const auto& v = kv.value.string_value;
      require(v.data() >= line.data() && v.data() + v.size() <= line.data() + line.size(),
              "a capture is not a piece of the line");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::uint8_t flags = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  if (flags & 0x80) {
    check_checkpoint(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    return 0;
  }
  if (flags & 0x40) {
    check_operators(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    return 0;
  }
  // max_size 0..63, or a size beyond most inputs (no line is cut).
  const std::size_t max = data[1] < 0xC0 ? data[1] % 64 : 1u << 20;
  check_splitter(flags, max, data[2], rest);
  return 0;
}
