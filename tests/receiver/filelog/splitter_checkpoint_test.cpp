// LineSplitter (line ends, offsets, truncation) and CheckpointTracker (the settled prefix,
// persistence) on their own, without files being followed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "receiver/filelog/checkpoint.h"
#include "receiver/filelog/line_splitter.h"
#include "test_util.h"

namespace tern::receiver::filelog {
namespace {

struct Out {
  std::string line;
  std::uint64_t end;
  bool truncated;
  bool operator==(const Out& o) const { return line == o.line && end == o.end && truncated == o.truncated; }
};
std::ostream& operator<<(std::ostream& os, const Out& o) {
  return os << "{" << o.line << ", " << o.end << ", " << o.truncated << "}";
}

std::vector<Out> split(const std::string& input, std::size_t max, std::size_t step, bool utf8 = true) {
  LineSplitter s(max, utf8);
  std::vector<Out> out;
  for (std::size_t i = 0; i < input.size(); i += step)
    s.feed(std::string_view(input).substr(i, step), [&](std::string_view l, std::uint64_t end, bool t) {
      out.push_back({std::string(l), end, t});
    });
  return out;
}

TEST(LineSplitter, SplitsOnNewlineStripsCrAndReportsEndOffsetsWhateverTheChunking) {
  const std::string in = "one\r\ntwo\n\nthree\rx\nfour";
  const std::vector<Out> want{{"one", 5, false}, {"two", 9, false}, {"", 10, false}, {"three\rx", 18, false}};
  for (std::size_t step : {1u, 2u, 3u, 7u, 100u}) EXPECT_EQ(split(in, 100, step), want) << "step " << step;
}

TEST(LineSplitter, HoldsTheUnterminatedLineUntilFlush) {
  LineSplitter s(100, true);
  std::vector<std::string> got;
  auto emit = [&](std::string_view l, std::uint64_t, bool) { got.emplace_back(l); };
  s.feed("a\npart", emit);
  EXPECT_EQ(got, std::vector<std::string>{"a"});
  EXPECT_EQ(s.offset(), 6u);
  s.feed("ial", emit);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_TRUE(s.flush(emit));
  EXPECT_EQ(got, (std::vector<std::string>{"a", "partial"}));
  EXPECT_FALSE(s.flush(emit));
}

TEST(LineSplitter, TruncatesLongLinesAndSkipsTheirRestUpToTheNewline) {
  const std::string long_line(50, 'x');
  const std::string in = "12345678\r\n" + std::string("123456789") + "\n" + long_line + "\nok\n";
  const std::vector<Out> want{
      {"12345678", 10, false}, {"12345678", 20, true}, {"xxxxxxxx", 71, true}, {"ok", 74, false}};
  for (std::size_t step : {1u, 4u, 9u, 1000u}) EXPECT_EQ(split(in, 8, step), want) << "step " << step;
}

TEST(LineSplitter, CutsAtAUtf8CharacterBoundary) {
  // "aé€" = 61 c3a9 e282ac: a cut at 4 bytes would split the euro sign.
  const std::string in = "a\xc3\xa9\xe2\x82\xac\n";
  EXPECT_EQ(split(in, 4, 100), (std::vector<Out>{{"a\xc3\xa9", 7, true}}));
  // Raw bytes (encoding nop): cut exactly.
  EXPECT_EQ(split(in, 4, 100, false), (std::vector<Out>{{"a\xc3\xa9\xe2", 7, true}}));
}

FilePosition pos(std::uint64_t offset, std::uint64_t ino = 7) {
  FilePosition p;
  p.path = "/x.log";
  p.dev = 1;
  p.ino = ino;
  p.fp_len = 3;
  p.fp_hash = 0xabcdef;
  p.offset = offset;
  return p;
}

TEST(CheckpointTracker, CommitsOnlyTheLongestPrefixOfAcceptedAndSettledBatches) {
  CheckpointTracker t("");
  t.set(1, pos(0));
  std::vector<std::uint64_t> seq;
  for (int i = 1; i <= 4; ++i) seq.push_back(t.begin_batch({{1, pos(10 * i)}}));
  for (auto s : seq) t.accepted(s, 0);
  // Out of order and from other threads.
  std::thread([&] { t.settle(seq[2], 0, true); }).join();
  std::thread([&] { t.settle(seq[1], 0, true); }).join();
  EXPECT_EQ(t.committed().at(1).offset, 0u);
  t.settle(seq[0], 0, true);
  EXPECT_EQ(t.committed().at(1).offset, 30u);
  // Settled before being accepted (a consumer that drops the token at once): waits for accepted.
  const auto s5 = t.begin_batch({{1, pos(50)}});
  t.settle(s5, 0, true);
  EXPECT_EQ(t.committed().at(1).offset, 30u);
  t.settle(seq[3], 0, true);
  EXPECT_EQ(t.committed().at(1).offset, 40u);
  t.accepted(s5, 0);
  EXPECT_EQ(t.committed().at(1).offset, 50u);
  EXPECT_EQ(t.pending(), 0u);
}

TEST(CheckpointTracker, AFailedBatchStopsThePrefixAndRefusedAttemptsAreIgnored) {
  CheckpointTracker t("");
  const auto a = t.begin_batch({{1, pos(10)}});
  const auto b = t.begin_batch({{1, pos(20)}});
  const auto c = t.begin_batch({{1, pos(30)}});
  // `a` was refused once: the first attempt's late "delivered" must not count.
  const auto a1 = t.next_attempt(a);
  EXPECT_EQ(a1, 1u);
  t.accepted(a, 0);
  t.settle(a, 0, true);
  EXPECT_TRUE(t.committed().empty());
  t.accepted(a, a1);
  t.settle(a, a1, true);
  EXPECT_EQ(t.committed().at(1).offset, 10u);
  t.accepted(b, 0);
  t.settle(b, 0, false);  // not delivered
  t.accepted(c, 0);
  t.settle(c, 0, true);
  EXPECT_EQ(t.committed().at(1).offset, 10u);
  t.set(2, pos(5, 8));  // even positions that need no delivery wait behind it
  EXPECT_EQ(t.committed().count(2), 0u);
}

TEST(CheckpointTracker, SkippedInvalidBatchesAndForgottenFilesCommitInOrder) {
  CheckpointTracker t("");
  const auto a = t.begin_batch({{1, pos(10)}});
  t.forget(1);
  EXPECT_EQ(t.committed().count(1), 0u);
  t.skip(a);
  EXPECT_TRUE(t.committed().empty());  // a then the forget: gone
  EXPECT_EQ(t.pending(), 0u);
}

TEST(CheckpointTracker, PersistsAtomicallyAndLoadsBack) {
  test::TempDir dir;
  const std::string path = dir / "cp.json";
  CheckpointTracker t(path);
  std::string error;
  auto none = t.load(error);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  t.set(1, pos(42));
  t.set(2, pos(7, 9));
  ASSERT_TRUE(t.persist_if_changed());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto loaded = CheckpointTracker(path).load(error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].offset, 42u);
  EXPECT_EQ((*loaded)[0].fp_hash, 0xabcdefu);
  EXPECT_EQ((*loaded)[0].fp_len, 3u);
  EXPECT_EQ((*loaded)[1].ino, 9u);
  EXPECT_EQ((*loaded)[1].path, "/x.log");

  std::ofstream(path) << "{\"version\": 1, \"files\": [{\"path\": 3}]}";
  EXPECT_FALSE(CheckpointTracker(path).load(error));
  EXPECT_NE(error.find("not a valid checkpoint"), std::string::npos) << error;
  std::ofstream(path) << "garbage";
  EXPECT_FALSE(CheckpointTracker(path).load(error));
}

TEST(CheckpointFormat, WhatIsWrittenParsesBackExactly) {
  std::map<std::uint64_t, FilePosition> positions;
  positions[1] = FilePosition{"/var/log/a.log", 1, 2, 1024, 0xffffffffffffffffull, 123};
  positions[7] = FilePosition{"/var/log/\u00e9t\u00e9 \"q\".log", UINT64_MAX, 0, 0, 0, UINT64_MAX};
  std::string error;
  const auto parsed = parse_checkpoint(format_checkpoint(positions), error);
  ASSERT_TRUE(parsed) << error;
  ASSERT_EQ(parsed->size(), 2u);
  for (std::size_t i = 0; const auto& [id, want] : positions) {
    const FilePosition& got = (*parsed)[i++];
    EXPECT_EQ(got.path, want.path);
    EXPECT_EQ(got.dev, want.dev);
    EXPECT_EQ(got.ino, want.ino);
    EXPECT_EQ(got.fp_len, want.fp_len);
    EXPECT_EQ(got.fp_hash, want.fp_hash);
    EXPECT_EQ(got.offset, want.offset);
  }
}

TEST(CheckpointFormat, ADamagedFileIsAnErrorWithItsReasonNotMadeUpPositions) {
  const auto entry = [](std::string_view field, std::string_view value) {
    nlohmann::json f = {{"path", "/a.log"},      {"dev", 1},   {"ino", 2}, {"fingerprint_size", 3},
                        {"fingerprint", "00ab"}, {"offset", 4}};
    f[std::string(field)] = nlohmann::json::parse(value);
    return nlohmann::json{{"version", 1}, {"files", {f}}}.dump();
  };
  std::string error;
  ASSERT_TRUE(parse_checkpoint(entry("offset", "5"), error)) << error;
  EXPECT_EQ((*parse_checkpoint(entry("fingerprint", "\"ABCdef0123456789\""), error))[0].fp_hash,
            0xabcdef0123456789ull);
  const std::pair<std::string_view, std::string_view> damaged[] = {
      {"offset", "-1"},     // would wrap to 2^64 - 1
      {"offset", "1e300"},  // would be an out-of-range cast
      {"offset", "4.5"},
      {"dev", "\"1\""},
      {"ino", "null"},
      {"fingerprint_size", "true"},
      {"fingerprint", "\"\""},
      {"fingerprint", "\"-1\""},  // strtoull would read 2^64 - 1
      {"fingerprint", "\"0x1f\""},
      {"fingerprint", "\"12zz\""},
      {"fingerprint", "\"00000000000000001\""},  // 17 digits
      {"fingerprint", "17"},
      {"path", "3"},
  };
  for (const auto& [field, value] : damaged) {
    error.clear();
    EXPECT_FALSE(parse_checkpoint(entry(field, value), error)) << field << "=" << value;
    EXPECT_NE(error.find("not a valid checkpoint"), std::string::npos) << error;
    EXPECT_NE(error.find(field), std::string::npos) << error;
  }
  for (std::string_view text : {"", "[]", "3", "{}", "{\"version\":1}", "{\"version\":1,\"files\":{}}",
                                "{\"version\":1,\"files\":[3]}", "{\"version\":1,\"files\":[{}]}"}) {
    error.clear();
    EXPECT_FALSE(parse_checkpoint(text, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
  for (std::string_view text : {"{\"version\":2,\"files\":[]}", "{\"version\":1e300,\"files\":[]}",
                                "{\"version\":\"1\",\"files\":[]}"}) {
    error.clear();
    EXPECT_FALSE(parse_checkpoint(text, error)) << text;
    EXPECT_NE(error.find("unknown checkpoint version"), std::string::npos) << error;
  }
}

TEST(CheckpointTracker, AfterDetachEveryChangeIsWrittenAtOnce) {
  test::TempDir dir;
  const std::string path = dir / "cp.json";
  CheckpointTracker t(path);
  const auto a = t.begin_batch({{1, pos(99)}});
  t.accepted(a, 0);
  t.detach();
  std::thread([&] { t.settle(a, 0, true); }).join();
  std::string error;
  auto loaded = CheckpointTracker(path).load(error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].offset, 99u);
}

}  // namespace
}  // namespace tern::receiver::filelog
