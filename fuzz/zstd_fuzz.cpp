// zstd as the OTLP/HTTP receiver meets it (`Content-Encoding: zstd`): request bodies from
// the network.
//  - ZstdDecompressor on arbitrary bytes under a limit (byte 0): either true with at most
//    `limit` bytes, or false with an error message; never a crash, a hang or a buffer the
//    size of what a frame header claims;
//  - the rest of the input compressed at a level (byte 1), as one frame or as two frames
//    split at byte 2 (concatenated frames): decodes back to exactly the input, and a limit
//    one byte short of it is refused as too large.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "compression/zstd.h"
#include "require.h"

namespace {

using tern::fuzz::require;
namespace cz = tern::compression;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  static cz::ZstdDecompressor d;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  std::string out, err;

  // Arbitrary bytes: limits from 0 to 64 KiB (steps of 256 bytes).
  const std::size_t limit = static_cast<std::size_t>(data[0]) * 256;
  if (d.decompress(rest, out, limit, &err)) {
    require(out.size() <= limit, "decoded more than the limit");
  } else {
    require(!err.empty(), "a refused body has an error message");
    require(out.capacity() <= std::max<std::size_t>({limit, rest.size() * 4, 4096}) * 2 + 64,
            "the buffer is sized by the input and the limit");
  }

  // Round trips, one or two frames.
  cz::ZstdCompressor c(1 + data[1] % 9);
  const std::size_t split = rest.empty() ? 0 : data[2] % (rest.size() + 1);
  std::string z, second;
  if (data[2] & 1) {
    c.compress(rest, z);
  } else {
    c.compress(rest.substr(0, split), z);
    c.compress(rest.substr(split), second);
    z += second;
  }
  require(d.decompress(z, out, rest.size(), &err), "a compressed input decodes");
  require(out == rest, "and decodes to exactly the input");
  if (!rest.empty()) {
    require(!d.decompress(z, out, rest.size() - 1, &err), "a limit below the size is refused");
    require(err.find("exceeds") != std::string::npos, "as too large");
  }
  return 0;
}
