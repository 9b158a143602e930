#pragma once
// Standard base64 (RFC 4648, '+' '/' and '=' padding), the one encoder for every place
// Tern writes bytes as text: OTLP/JSON bytes values, bytes in the Elasticsearch none/raw
// documents and HTTP Basic credentials. OpenSSL's EVP_EncodeBlock does the work; its
// EVP_DecodeBlock reads configured text (an Elastic Cloud ID). The OTLP/JSON decoder has its
// own decoder, fused with its parse.
#include <openssl/evp.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tern::text {

// Length of the base64 text of n bytes.
constexpr std::size_t base64_size(std::size_t n) { return 4 * ((n + 2) / 3); }

// Writes the base64 text of `s` at `d` and returns its end. Room: base64_size(s.size()) + 1
// (OpenSSL ends each piece with a NUL, overwritten by whatever the caller writes next).
inline char* base64(char* d, std::string_view s) {
  // EVP_EncodeBlock takes an int length: inputs go in pieces of a whole number of 3-byte
  // groups, whose texts concatenate to the text of the whole.
  constexpr std::size_t kPiece = std::size_t{3} << 20;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t left = s.size();
  do {
    const std::size_t n = left < kPiece ? left : kPiece;
    d += EVP_EncodeBlock(reinterpret_cast<unsigned char*>(d), p, static_cast<int>(n));
    p += n;
    left -= n;
  } while (left > 0);
  return d;
}

inline std::string base64(std::string_view s) {
  std::string out(base64_size(s.size()) + 1, '\0');
  out.resize(static_cast<std::size_t>(base64(out.data(), s) - out.data()));
  return out;
}

// The bytes of padded base64 text (as Go's base64.StdEncoding reads it); nothing when `s` is
// not that: a length that is not a multiple of 4, a character outside the alphabet, padding
// anywhere but at the end. For short configured text, not bulk data.
inline std::optional<std::string> base64_decode(std::string_view s) {
  if (s.size() % 4 != 0 || s.size() > (std::size_t{1} << 30)) return std::nullopt;
  const std::size_t pad = s.ends_with("==") ? 2 : s.ends_with('=') ? 1 : 0;
  for (std::size_t i = 0; i < s.size() - pad; ++i) {
    const char c = s[i];
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) return std::nullopt;  // EVP_DecodeBlock would skip whitespace; Go refuses it
  }
  std::string out(s.size() / 4 * 3 + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - pad);  // EVP_DecodeBlock counts the padding as zero bytes
  return out;
}

}  // namespace tern::text
