#pragma once
// Bound/logs/<variant>/<size>: how fast can an encoder of Tern's design go on this core at
// all? A sketch that writes the logs workload's documents (one resource and scope without
// attributes, scalar attributes, a string body) with everything the spec's general rules
// need stripped out, and variants that put back what a correct encoder cannot skip. Not an
// encoder: it is only right for records shaped like the workload's, which the benchmark
// checks once against Encoder's output before timing it.
//  - Unescaped: strings copied without looking at them (wrong for `"`, `\`, control
//    characters and invalid UTF-8), no checks at all.
//  - Sketch: every string escape-checked as Encoder does (json::string), nothing else.
//  - Checked: Sketch plus what a correct encoder must do per record whatever its data: the
//    routing/`event.name` key scan, excluded and geo keys, id and severity presence, dropped
//    counts, the output bounds checked per attribute.
// All three record an EncodedItem per document, as the exporter needs.
#include "encoding/encoded_batch.h"
#include "pdata/logs.h"

namespace tern::bench {

enum class SketchVariant { Unescaped, Sketch, Checked };

// Encodes the logs workload's records into `out` (cleared first).
void encode_logs_sketch(SketchVariant variant, const pdata::LogsData& logs, encoding::EncodedBatch& out);

}  // namespace tern::bench
