#pragma once
// Standard base64 (RFC 4648, '+' '/' and '=' padding), the one encoder for every place
// Tern writes bytes as text: OTLP/JSON bytes values, bytes in the Elasticsearch none/raw
// documents and HTTP Basic credentials. OpenSSL's EVP_EncodeBlock does the work.
#include <openssl/evp.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace tern::encoding {

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

}  // namespace tern::encoding
