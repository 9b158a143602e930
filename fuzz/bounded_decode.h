#pragma once
// A check both OTLP decoder targets make: under a small max_decoded_bytes (4-36 KiB, from
// the input's size) a decode either gives the same batch as without the bound (its
// encoding is `expected`) or is refused for its decoded size, never for anything else.
#include <cstdlib>
#include <string>
#include <string_view>

#include "otlp/decode_error.h"

namespace tern::fuzz {

template <class Data, class Dec, class Enc>
void check_bounded_decode(std::string_view in, Dec dec, Enc enc, const std::string& expected) {
  tern::otlp::DecodeOptions bounded;
  bounded.max_depth = 16;
  bounded.max_decoded_bytes = 4096 + 64 * (in.size() % 512);
  Data small;
  if (auto err = dec(in, small, bounded)) {
    if (err->message != tern::otlp::decoded_size_message(bounded.max_decoded_bytes)) std::abort();
  } else {
    std::string same;
    enc(small, same);
    if (same != expected) std::abort();
  }
}

}  // namespace tern::fuzz
