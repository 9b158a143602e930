#pragma once
// Growing a std::string for bytes that are written right after, without resize()'s zero
// fill (the encoders size their output first, then write every byte; the HTTP server reads
// a body of known length into it).
//
// resize_and_overwrite is C++23; GCC 12's libstdc++ has it only under -std=c++2b, so the
// files that use this are compiled that way on their own (json_writer.cpp, proto_encode.cpp,
// http_server.cpp and sink_server.cpp, see their CMakeLists.txt); anywhere else this is a
// plain resize().
// The definition differs between those translation units and the C++20 ones, hence `static`.
#include <cstddef>
#include <string>

namespace tern::text {

// s.size() becomes n (n >= s.size()); the bytes past the old size are unspecified.
static inline void grow_for_overwrite(std::string& s, std::size_t n) {
#if defined(__cpp_lib_string_resize_and_overwrite)
  // Return n, not the count the operation is given: GCC 12's libstdc++ passes the grown
  // capacity there when it reallocates (asked for 3000, it passes 5888).
  s.resize_and_overwrite(n, [n](char*, std::size_t) noexcept { return n; });
#else
  s.resize(n);
#endif
}

}  // namespace tern::text
