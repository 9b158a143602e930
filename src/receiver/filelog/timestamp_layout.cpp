#include "receiver/filelog/timestamp_layout.h"

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

namespace tern::receiver::filelog {
namespace {

constexpr std::string_view kSingle = "YymoqbBdegaAHIlpPMSLfsZzijk";

constexpr std::array<std::string_view, 12> kMonths = {"january",   "february", "march",    "april",
                                                      "may",       "june",     "july",     "august",
                                                      "september", "october",  "november", "december"};
constexpr std::array<std::string_view, 7> kWeekdays = {"sunday",   "monday", "tuesday", "wednesday",
                                                       "thursday", "friday", "saturday"};

// The composite directives, as the Collector's strptime table defines them.
std::string_view expansion(char c) {
  switch (c) {
    case 'D':
      return "%m/%d/%y";
    case 'F':
      return "%Y-%m-%d";
    case 'T':
      return "%H:%M:%S";
    case 'r':
      return "%l:%M:%S %p";
    case 'c':
      return "%a %b %d %H:%M:%S %Y";
    case 'R':
      return "%H:%M";
    default:
      return {};
  }
}

bool is_fraction(char d) { return d == 'L' || d == 'f' || d == 's'; }

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  void skip(std::size_t n = 1) { i_ += n; }
  // Between min_digits and max_digits decimal digits.
  std::optional<int> number(std::size_t min_digits, std::size_t max_digits) {
    std::size_t n = 0;
    int v = 0;
    while (n < max_digits && std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + (peek() - '0');
      skip();
      ++n;
    }
    if (n < min_digits) return std::nullopt;
    return v;
  }
  // A name from `names` (case-insensitive), in full or by its first three letters.
  template <std::size_t N>
  std::optional<unsigned> name(const std::array<std::string_view, N>& names, bool full) {
    for (unsigned k = 0; k < N; ++k) {
      const std::string_view want = full ? names[k] : names[k].substr(0, 3);
      if (matches_nocase(want)) {
        skip(want.size());
        return k;
      }
    }
    return std::nullopt;
  }
  bool matches_nocase(std::string_view want) const {
    if (s_.size() - i_ < want.size()) return false;
    for (std::size_t k = 0; k < want.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(s_[i_ + k])) != want[k]) return false;
    return true;
  }
  bool literal(std::string_view lit) {
    if (s_.substr(i_, lit.size()) != lit) return false;
    skip(lit.size());
    return true;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

struct Fields {
  std::int64_t year = 0;
  unsigned month = 1, day = 1;
  int hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0;
  int pm = -1;                // -1: no AM/PM in the text
  std::optional<int> offset;  // seconds east of UTC, when the text has a zone
};

// ".123" / ",123" (`separator`) or "123": 1 to 9 digits as a fraction of a second.
bool fraction(Reader& r, bool separator, Fields& f) {
  if (separator) {
    if ((r.peek() != '.' && r.peek() != ',') || !std::isdigit(static_cast<unsigned char>(r.peek(1))))
      return true;  // omitted: allowed, as in Go's layouts
    r.skip();
  }
  std::int64_t v = 0;
  int n = 0;
  while (std::isdigit(static_cast<unsigned char>(r.peek()))) {
    if (n < 9) v = v * 10 + (r.peek() - '0'), ++n;  // beyond nanoseconds: ignored
    r.skip();
  }
  if (n == 0) return false;
  for (int k = n; k < 9; ++k) v *= 10;
  f.nanos = v;
  return true;
}

// "Z", or ±HH, ±HHMM, ±HH:MM, ±HH:MM:SS, ±HHMMSS.
bool utc_offset(Reader& r, Fields& f) {
  if (r.peek() == 'Z') {
    r.skip();
    f.offset = 0;
    return true;
  }
  const char sign = r.peek();
  if (sign != '+' && sign != '-') return false;
  r.skip();
  const auto h = r.number(2, 2);
  if (!h || *h > 23) return false;
  int seconds = *h * 3600;
  for (int part = 0; part < 2; ++part) {
    const bool colon = r.peek() == ':';
    if (!std::isdigit(static_cast<unsigned char>(r.peek(colon ? 1 : 0)))) break;
    if (colon) r.skip();
    const auto v = r.number(2, 2);
    if (!v || *v > 59) return false;
    seconds += part == 0 ? *v * 60 : *v;
  }
  f.offset = sign == '-' ? -seconds : seconds;
  return true;
}

// 1 or 2 digits in [lo, hi], after one space when the field may be space-padded.
std::optional<int> small_number(Reader& r, int lo, int hi, bool space_padded) {
  if (space_padded && r.peek() == ' ') r.skip();
  const auto v = r.number(1, 2);
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return v;
}
template <class T>
bool assign(T& out, std::optional<int> v) {
  if (!v) return false;
  out = static_cast<T>(*v);
  return true;
}

bool directive(Reader& r, char d, bool separated_fraction, Fields& f) {
  std::optional<int> v;
  switch (d) {
    case 'Y':
      if (!(v = r.number(4, 4))) return false;
      f.year = *v;
      return true;
    case 'y':
      if (!(v = r.number(2, 2))) return false;
      f.year = *v >= 69 ? 1900 + *v : 2000 + *v;  // as Go does
      return true;
    case 'm':
    case 'q':
    case 'o':
      return assign(f.month, small_number(r, 1, 12, d == 'o'));
    case 'b':
    case 'B': {
      const auto m = r.name(kMonths, d == 'B');
      if (!m) return false;
      f.month = *m + 1;
      return true;
    }
    case 'd':
    case 'e':
    case 'g':
      return assign(f.day, small_number(r, 1, 31, d == 'e'));
    case 'a':
    case 'A':
      return r.name(kWeekdays, d == 'A').has_value();  // checked, not used
    case 'H':
      return assign(f.hour, small_number(r, 0, 24, false));
    case 'I':
    case 'l':
      return assign(f.hour, small_number(r, 0, 12, true));  // space-padded, as C's %l writes it
    case 'p':
    case 'P':
      if (r.matches_nocase("am") || r.matches_nocase("pm")) {
        f.pm = std::tolower(static_cast<unsigned char>(r.peek())) == 'p';
        r.skip(2);
        return true;
      }
      return false;
    case 'M':
      return assign(f.minute, small_number(r, 0, 59, false));
    case 'S':
      return assign(f.second, small_number(r, 0, 60, false));
    case 'L':
    case 'f':
    case 's':
      return fraction(r, separated_fraction, f);
    case 'Z': {
      std::size_t n = 0;
      while (std::isalpha(static_cast<unsigned char>(r.peek(n)))) ++n;
      if (n == 0) return true;  // "or empty"
      if (r.literal("UTC") || r.literal("GMT") || (n == 1 && r.literal("Z"))) {
        f.offset = 0;
        return true;
      }
      r.skip(n);  // another abbreviation: the configured location applies
      return true;
    }
    case 'z':
    case 'i':
    case 'j':
    case 'k':
      return utc_offset(r, f);
    default:
      return false;
  }
}

}  // namespace

std::optional<TimestampLayout> TimestampLayout::compile(std::string_view layout, std::string& error) {
  TimestampLayout out;
  std::string expanded;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    if (layout[i] == '%' && i + 1 < layout.size()) {
      const std::string_view e = expansion(layout[i + 1]);
      if (!e.empty()) {
        expanded += e;
        ++i;
        continue;
      }
    }
    expanded += layout[i];
  }
  for (std::size_t i = 0; i < expanded.size(); ++i) {
    const char c = expanded[i];
    if (c != '%') {
      if (out.steps_.empty() || out.steps_.back().directive != 0) out.steps_.push_back({});
      out.steps_.back().literal += c;
      continue;
    }
    if (i + 1 == expanded.size()) {
      error = "layout ends with a lone %";
      return std::nullopt;
    }
    const char d = expanded[++i];
    const char* text = d == 'n' ? "\n" : d == 't' ? "\t" : d == '%' ? "%" : nullptr;
    if (text) {
      if (out.steps_.empty() || out.steps_.back().directive != 0) out.steps_.push_back({});
      out.steps_.back().literal += text;
      continue;
    }
    if (kSingle.find(d) == std::string_view::npos) {
      error = std::string("unknown directive %") + d;
      return std::nullopt;
    }
    if (d == 'Y' || d == 'y') out.has_year_ = true;
    out.steps_.push_back({d, {}});
  }
  if (out.steps_.empty()) {
    error = "layout is empty";
    return std::nullopt;
  }
  return out;
}

std::optional<std::int64_t> TimestampLayout::parse(std::string_view text, bool utc) const {
  Reader r(text);
  Fields f;
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    if (s.directive == 0) {
      std::string_view lit = s.literal;
      // "%S.%L": the separator belongs to the fraction, which may be '.' or ',' or absent.
      const bool before_fraction = k + 1 < steps_.size() && is_fraction(steps_[k + 1].directive) &&
                                   (lit.back() == '.' || lit.back() == ',');
      if (before_fraction) lit.remove_suffix(1);
      if (!r.literal(lit)) return std::nullopt;
      continue;
    }
    const bool separated = k > 0 && steps_[k - 1].directive == 0 &&
                           (steps_[k - 1].literal.back() == '.' || steps_[k - 1].literal.back() == ',');
    if (!directive(r, s.directive, is_fraction(s.directive) && separated, f)) return std::nullopt;
    // A fraction right after the seconds is accepted even when the layout has none (Go).
    if (s.directive == 'S' && !(k + 1 < steps_.size() && steps_[k + 1].directive == 0 &&
                                (steps_[k + 1].literal[0] == '.' || steps_[k + 1].literal[0] == ','))) {
      if (!fraction(r, true, f)) return std::nullopt;
    }
  }
  if (!r.done()) return std::nullopt;
  if (f.pm == 1 && f.hour < 12) f.hour += 12;
  if (f.pm == 0 && f.hour == 12) f.hour = 0;
  if (!has_year_) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    f.year = tm.tm_year + 1900;
  }
  if (f.day > days_in_month(f.year, f.month)) return std::nullopt;
  std::int64_t seconds =
      days_from_civil(f.year, f.month, f.day) * 86400 + f.hour * 3600 + f.minute * 60 + f.second;
  if (f.offset) {
    seconds -= *f.offset;
  } else if (!utc) {
    std::tm tm{};
    tm.tm_year = static_cast<int>(f.year - 1900);
    tm.tm_mon = static_cast<int>(f.month) - 1;
    tm.tm_mday = static_cast<int>(f.day);
    tm.tm_hour = f.hour;
    tm.tm_min = f.minute;
    tm.tm_sec = f.second;
    tm.tm_isdst = -1;
    const std::time_t local = std::mktime(&tm);                      // the local zone's rules at that date
    if (local == static_cast<std::time_t>(-1)) return std::nullopt;  // out of range, or 1 s before 1970
    seconds = local;
  }
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
  if (seconds < 0 || seconds > kMax) return std::nullopt;  // before 1970: not a Unix nano time
  return seconds * 1'000'000'000 + f.nanos;
}

namespace {
std::int64_t epoch_unit(std::string_view layout) {
  if (layout == "ms") return 1'000'000;
  if (layout == "us") return 1'000;
  if (layout == "ns") return 1;
  return 1'000'000'000;  // s, s.ms, s.us, s.ns
}
}  // namespace

bool valid_epoch_layout(std::string_view layout) {
  for (std::string_view l : {"s", "ms", "us", "ns", "s.ms", "s.us", "s.ns"})
    if (layout == l) return true;
  return false;
}

std::optional<std::int64_t> parse_epoch(std::string_view text, std::string_view layout) {
  const std::int64_t unit = epoch_unit(layout);
  std::size_t i = 0;
  std::int64_t whole = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (whole > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
    whole = whole * 10 + (text[i++] - '0');
  }
  if (i == 0) return std::nullopt;
  std::int64_t frac = 0, scale = unit;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (scale >= 10) {
        scale /= 10;
        frac += (text[i] - '0') * scale;
      }
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  if (whole > std::numeric_limits<std::int64_t>::max() / unit) return std::nullopt;
  return whole * unit + frac;
}

std::optional<std::int64_t> epoch_from_integer(std::int64_t value, std::string_view layout) {
  const std::int64_t unit = epoch_unit(layout);
  if (value < 0 || value > std::numeric_limits<std::int64_t>::max() / unit) return std::nullopt;
  return value * unit;
}

std::optional<std::int64_t> epoch_from_number(double value, std::string_view layout) {
  const double ns = value * static_cast<double>(epoch_unit(layout));
  if (!(ns >= 0) || ns >= 9.2e18) return std::nullopt;  // also NaN
  return static_cast<std::int64_t>(std::llround(ns));
}

}  // namespace tern::receiver::filelog
