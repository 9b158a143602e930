#pragma once
// Splits a byte stream (a file read in chunks) into lines, remembering where each ends
// in the file so that the checkpoint can point just past the last line handed on.
//
// A line ends at '\n'; the '\n' and one '\r' before it are stripped. A line longer than
// `max_size` is cut to `max_size` bytes (at a UTF-8 character boundary when asked) and
// the rest of it, up to its '\n', is skipped; the cut line is only emitted once its '\n'
// is seen, so that its end offset is the real end of the line. An unterminated last line
// is held until more data arrives (or flush()).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tern::receiver::filelog {

class LineSplitter {
 public:
  LineSplitter(std::size_t max_size, bool utf8) : max_(max_size), utf8_(utf8) {}

  // Feeds the bytes at file offset offset(); calls emit(line, end_offset, truncated) for
  // each complete line. `line` is valid only during the call.
  template <class Emit>
  void feed(std::string_view data, Emit&& emit) {
    while (!data.empty()) {
      const void* nl = std::memchr(data.data(), '\n', data.size());
      if (!nl) {
        hold(data);
        offset_ += data.size();
        return;
      }
      const std::size_t n = static_cast<const char*>(nl) - data.data();
      offset_ += n + 1;
      if (pending_.empty() && !over_) {
        finish(data.substr(0, n), false, emit);
      } else {
        hold(data.substr(0, n));
        finish(pending_, over_, emit);
        pending_.clear();
        over_ = false;
      }
      data.remove_prefix(n + 1);
    }
  }

  // Emits the held unterminated line, if any (the file will not grow any more).
  template <class Emit>
  bool flush(Emit&& emit) {
    if (pending_.empty() && !over_) return false;
    finish(pending_, over_, emit);
    pending_.clear();
    over_ = false;
    return true;
  }

  // Starts again at `offset` (a new file, or a truncated one), dropping any held bytes.
  void reset(std::uint64_t offset) {
    offset_ = offset;
    pending_.clear();
    over_ = false;
  }

  // The offset of the next byte to feed.
  std::uint64_t offset() const { return offset_; }

 private:
  // Keeps at most max+1 bytes: enough to tell "exactly max bytes, then \r\n" from "too long".
  void hold(std::string_view part) {
    const std::size_t cap = max_ + 1;
    if (pending_.size() < cap) {
      const std::size_t take = std::min(part.size(), cap - pending_.size());
      pending_.append(part.data(), take);
      part.remove_prefix(take);
    }
    if (!part.empty()) over_ = true;
  }

  template <class Emit>
  void finish(std::string_view line, bool over, Emit& emit) {
    if (!over && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool truncated = over;
    if (line.size() > max_) {
      truncated = true;
      std::size_t cut = max_;
      // Back up over UTF-8 continuation bytes so that a character is not split in two.
      if (utf8_)
        for (int i = 0; i < 3 && cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80; ++i)
          --cut;
      line = line.substr(0, cut);
    }
    emit(line, offset_, truncated);
  }

  std::size_t max_;
  bool utf8_;
  std::uint64_t offset_ = 0;
  std::string pending_;
  bool over_ = false;  // the held line went past max_+1 bytes: the rest is being skipped
};

}  // namespace tern::receiver::filelog
