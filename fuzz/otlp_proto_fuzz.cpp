// libFuzzer target: every OTLP/protobuf decoder on arbitrary bytes, then re-encode and
// decode again; what the encoder writes must always decode, to the same bytes again. A
// decode under a small max_decoded_bytes gives the same batch or the size refusal.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bounded_decode.h"
#include "otlp/proto_codec.h"

namespace {
template <class Data, class Dec, class Enc>
void check(std::string_view in, Dec dec, Enc enc) {
  tern::otlp::DecodeOptions opt;
  opt.max_depth = 16;
  Data data;
  const bool failed = dec(in, data, opt).has_value();
  // UTF-8 validation only adds a reason to refuse: what it accepts decodes the same without it.
  opt.validate_utf8 = true;
  Data validated;
  if (!dec(in, validated, opt).has_value()) {
    if (failed) std::abort();
    std::string a, b;
    enc(data, a);
    enc(validated, b);
    if (a != b) std::abort();
  }
  if (failed) return;
  std::string out;
  enc(data, out);
  tern::fuzz::check_bounded_decode<Data>(in, dec, enc, out);
  Data again;
  if (dec(out, again, tern::otlp::DecodeOptions{})) std::abort();
  std::string twice;
  enc(again, twice);
  if (twice != out) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  using namespace tern::otlp;
  using namespace tern::pdata;
  check<LogsData>(in, decode_logs_proto, encode_logs_proto);
  check<TracesData>(in, decode_traces_proto, encode_traces_proto);
  check<MetricsData>(in, decode_metrics_proto, encode_metrics_proto);
  return 0;
}
