#pragma once
// Batch view -> pdata::LogsData, the input of Tern's OTLP protobuf encoder and
// Elasticsearch encoder. One ResourceLogs; one ScopeLogs per run of consecutive entries
// with the same scope. Every string is copied into the output's arena, since the view
// is only valid during the export call.
#include "pdata/logs.h"
#include "tern/sdk/logs/exporter.h"

namespace tern::sdk::logs::detail {

void ToPdata(const LogRecordBatchView& batch, pdata::LogsData& out);

}  // namespace tern::sdk::logs::detail
