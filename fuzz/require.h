#pragma once
// The fuzz targets' check: on failure, name it and abort (libFuzzer then saves the input;
// the replay driver's test fails).
#include <cstdio>
#include <cstdlib>

namespace tern::fuzz {
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}
}  // namespace tern::fuzz
