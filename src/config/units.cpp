#include "config/units.h"
#include "text/ascii.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>

namespace tern::config {
namespace {

// Reads a non-negative decimal number ("12", "1.5", ".5") at the front of `s`.
std::optional<double> take_number(std::string_view& s) {
  std::size_t i = 0;
  bool digits = false;
  double v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    ++i;
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    double scale = 0.1;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      v += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
      digits = true;
    }
  }
  if (!digits || !std::isfinite(v)) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

// Whether `number` (as take_number reads it: digits, one optional '.') times `scale` is an
// integer, exactly: the fraction F / 10^f makes whole bytes iff 10^f / gcd(scale, 10^f)
// divides F (doubles cannot say it: 1.1 * 1e6 is 1100000.0000000002).
bool is_whole_bytes(std::string_view number, std::uint64_t scale) {
  const auto dot = number.find('.');
  if (dot == std::string_view::npos) return true;
  std::string_view fraction = number.substr(dot + 1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.empty()) return true;
  // Beyond 19 digits 10^f leaves 64 bits; no size is written that finely.
  if (fraction.size() > 19) return false;
  std::uint64_t f = 0, power = 1;
  for (char c : fraction) {
    f = f * 10 + static_cast<std::uint64_t>(c - '0');
    power *= 10;
  }
  return f % (power / std::gcd(scale, power)) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_name_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

}  // namespace

Parsed<Duration> parse_duration(std::string_view text) {
  std::string_view s = trim(text);
  auto fail = [&](std::string why) {
    return Parsed<Duration>{std::nullopt, fmt::format("invalid duration \"{}\": {}", text, why)};
  };
  if (s.empty()) return fail("empty");
  if (s.front() == '-') return fail("must not be negative");
  if (s.front() == '+') s.remove_prefix(1);
  if (s == "0") return {Duration{0}, {}};
  double total_ns = 0;
  while (!s.empty()) {
    auto n = take_number(s);
    if (!n) return fail("expected a number (e.g. \"200ms\", \"1s\", \"1m30s\")");
    std::size_t u = 0;
    while (u < s.size() && !std::isdigit(static_cast<unsigned char>(s[u])) && s[u] != '.') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    double scale;
    if (unit == "ns") {
      scale = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      scale = 1e3;
    } else if (unit == "ms") {
      scale = 1e6;
    } else if (unit == "s") {
      scale = 1e9;
    } else if (unit == "m") {
      scale = 60e9;
    } else if (unit == "h") {
      scale = 3600e9;
    } else if (unit.empty()) {
      return fail("missing unit (one of ns, us, ms, s, m, h)");
    } else {
      return fail(fmt::format("unknown unit \"{}\" (one of ns, us, ms, s, m, h)", unit));
    }
    total_ns += *n * scale;
  }
  // Checked before the cast: converting an out-of-range double is undefined.
  if (!(total_ns < 9.2e18)) return fail("too large");
  return {Duration{static_cast<std::int64_t>(std::llround(total_ns))}, {}};
}

std::string without_digit_groups(std::string_view text) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (text.find('_') == std::string_view::npos || text.empty() || !digit(text.front()) || !digit(text.back()))
    return std::string(text);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (digit(text[i])) {
      out += text[i];
    } else if (text[i] != '_' || !digit(text[i + 1]) || !digit(text[i - 1])) {
      return std::string(text);  // not a grouped integer: left for the caller to refuse
    }
  }
  return out;
}

Parsed<std::uint64_t> parse_size(std::string_view text) {
  const std::string plain = without_digit_groups(trim(text));
  std::string_view s = plain;
  auto fail = [&](std::string why) {
    return Parsed<std::uint64_t>{std::nullopt, fmt::format("invalid size \"{}\": {}", text, why)};
  };
  if (s.empty()) return fail("empty");
  if (s.front() == '-') return fail("must not be negative");
  // Plain byte counts are read exactly: going through a double would round values above 2^53.
  if (std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return fail("too large");
    return {v, {}};
  }
  const std::string_view number_text = s;
  auto n = take_number(s);
  if (!n) return fail("expected a number of bytes, optionally with a unit (e.g. \"5MB\", \"5MiB\")");
  const std::string_view digits = number_text.substr(0, number_text.size() - s.size());
  std::string unit = tern::text::ascii_lower(trim(s));
  std::uint64_t scale;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "kb" || unit == "k") {
    scale = 1'000;
  } else if (unit == "mb" || unit == "m") {
    scale = 1'000'000;
  } else if (unit == "gb" || unit == "g") {
    scale = 1'000'000'000;
  } else if (unit == "tb" || unit == "t") {
    scale = 1'000'000'000'000;
  } else if (unit == "kib" || unit == "ki") {
    scale = std::uint64_t{1} << 10;
  } else if (unit == "mib" || unit == "mi") {
    scale = std::uint64_t{1} << 20;
  } else if (unit == "gib" || unit == "gi") {
    scale = std::uint64_t{1} << 30;
  } else if (unit == "tib" || unit == "ti") {
    scale = std::uint64_t{1} << 40;
  } else {
    return fail(fmt::format("unknown unit \"{}\" (one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", trim(s)));
  }
  // A size counts bytes: "1.5" or "1.1KiB" (1126.4) is no number of bytes, and rounding it
  // silently made a value nobody wrote. "1.5GiB" and "0.5KB" are whole numbers of bytes.
  if (!is_whole_bytes(digits, scale)) return fail("not a whole number of bytes");
  double bytes = *n * static_cast<double>(scale);
  if (!(bytes < 9.2e18)) return fail("too large");
  return {static_cast<std::uint64_t>(std::llround(bytes)), {}};
}

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Parsed<std::string> substitute_env(std::string_view text, const EnvLookup& env) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      out += c;
      continue;
    }
    // The matching '}': a default may hold references of its own, `${env:A:-${env:B}}`
    // (expanded when the default is used, as the Collector's resolver does).
    std::size_t close = std::string_view::npos;
    for (std::size_t j = i + 2, depth = 1; j < text.size(); ++j) {
      if (text[j] == '$' && j + 1 < text.size() && text[j + 1] == '{') {
        ++depth;
        ++j;
      } else if (text[j] == '}' && --depth == 0) {
        close = j;
        break;
      }
    }
    if (close == std::string_view::npos) {
      return {std::nullopt, fmt::format("unterminated \"${{\" in \"{}\"", text)};
    }
    std::string_view ref = text.substr(i + 2, close - i - 2);
    std::string_view whole = text.substr(i, close - i + 1);
    if (ref.starts_with("env:")) {
      ref.remove_prefix(4);
    } else if (auto colon = ref.find(':');
               colon != std::string_view::npos && colon > 0 && ref.substr(colon, 2) != ":-") {
      return {std::nullopt, fmt::format("unsupported config source \"{}\" in \"{}\" (only env is supported)",
                                        ref.substr(0, colon), whole)};
    }
    std::optional<std::string_view> def;
    if (auto d = ref.find(":-"); d != std::string_view::npos) {
      def = ref.substr(d + 2);
      ref = ref.substr(0, d);
    }
    bool valid = !ref.empty();
    for (std::size_t k = 0; k < ref.size() && valid; ++k) valid = is_name_char(ref[k], k == 0);
    if (!valid) {
      return {std::nullopt, fmt::format("invalid environment variable name \"{}\" in \"{}\"", ref, whole)};
    }
    auto value = env ? env(ref) : std::nullopt;
    if (def && (!value || value->empty())) {
      Parsed<std::string> expanded = substitute_env(*def, env);
      if (!expanded.value) return expanded;
      out += *expanded.value;
    } else if (value) {
      out += *value;
    } else {
      return {std::nullopt,
              fmt::format("environment variable \"{}\" is not set (write ${{{}:-default}} to give "
                          "a default)",
                          ref, ref)};
    }
    i = close;
  }
  return {std::move(out), {}};
}

}  // namespace tern::config
