// libFuzzer target: every OTLP/JSON decoder on arbitrary bytes, then re-encode and
// decode again; a re-encoded batch must always decode (the encoder writes valid JSON)
// and encode to the same bytes again (nothing is lost or changed on the way). A decode
// under a small max_decoded_bytes gives the same batch or the size refusal.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bounded_decode.h"
#include "otlp/json_codec.h"

namespace {
template <class Data, class Dec, class Enc>
void check(std::string_view in, Dec dec, Enc enc) {
  tern::otlp::DecodeOptions opt;
  opt.max_depth = 16;
  Data data;
  if (dec(in, data, opt)) return;
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
  check<LogsData>(in, decode_logs_json, encode_logs_json);
  check<TracesData>(in, decode_traces_json, encode_traces_json);
  check<MetricsData>(in, decode_metrics_json, encode_metrics_json);
  return 0;
}
