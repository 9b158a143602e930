#pragma once
// The OTLP exporter in a pipeline (`otlp`: OTLP/gRPC, `otlphttp`: OTLP/HTTP protobuf):
// memory queue + protobuf encoder + retrying senders, towards another collector.
//
// Early encoding: consume_* encodes the batch to an Export*ServiceRequest in the
// producer's thread, the queue holds only those bytes. Queue consumers concatenate the
// consecutive requests of one signal that a pop returns into one request (protobuf
// concatenation of repeated fields) and send it. Retryable failures (HTTP 429/502/503/504,
// connection errors, gRPC UNAVAILABLE, RESOURCE_EXHAUSTED with RetryInfo, ...) are retried with
// exponential back-off, or after the server's Retry-After / RetryInfo, until shutdown's
// deadline; permanent ones (HTTP 400, gRPC INVALID_ARGUMENT, ...) drop the request,
// counted and logged. A batch that does not fit the queue is refused with kRetryLater.
#include <memory>
#include <string>

#include "component/exporter.h"
#include "exporter/otlp/config.h"

namespace tern::exporter::otlp {

// Throws std::invalid_argument for an endpoint the client cannot use.
std::unique_ptr<component::Exporter> make_otlp_exporter(std::string id, const OtlpExporterConfig& c,
                                                        component::BatchSettings batch);

}  // namespace tern::exporter::otlp
