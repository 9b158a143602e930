#pragma once
// Elasticsearch's rule for index names, on its own so that `tern sink` (which refuses such
// names as Elasticsearch does) can use it without the encoder.
#include <string_view>

namespace tern::encoding::es {

// The characters Elasticsearch refuses in an index name (besides upper case): the encoder's
// sanitizing turns each into '_'; `tern sink` refuses names that hold one.
inline constexpr std::string_view kIndexNameForbidden = "\\/*?\"<>| ,#:";

}  // namespace tern::encoding::es
