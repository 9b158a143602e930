#pragma once
// The Elasticsearch exporter in a pipeline: memory queue + otel-mode encoder + bulk sender.
//
// Early encoding (default): the encoder runs in the producer's thread inside consume_*,
// the queue holds encoded bytes, and the request's decoded batch is freed right away.
// Late encoding (`encoding: late`): the queue holds the decoded batch and the queue
// consumers encode it. Producers own their encoders (thread-local, no lock on the encode
// path). A batch that does not fit the queue is refused with kRetryLater.
#include <memory>

#include "component/exporter.h"
#include "exporter/elasticsearch/config.h"

namespace tern::exporter::es {

std::unique_ptr<component::Exporter> make_elasticsearch_exporter(std::string id,
                                                                 const ElasticsearchExporterConfig& c,
                                                                 component::BatchSettings batch);

}  // namespace tern::exporter::es
