#pragma once
// The Elasticsearch exporter in a pipeline: memory queue + otel-mode encoder + bulk sender.
//
// Early encoding (default): the encoder runs in the producer's thread inside consume_*,
// the queue holds encoded bytes, and the request's decoded batch is freed right away.
// Late encoding (`encoding: late`): the queue holds the decoded batch and the queue
// consumers encode it. Producers own their encoders (thread-local, no lock on the encode
// path). A batch that does not fit the queue is refused with kRetryLater.
#include <memory>

#include "config/config.h"
#include "pipeline/exporter_stage.h"

namespace tern::pipeline {

std::unique_ptr<ExporterStage> make_elasticsearch_stage(std::string id,
                                                        const config::ElasticsearchExporterConfig& c,
                                                        BatchSettings batch);

}  // namespace tern::pipeline
