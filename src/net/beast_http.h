#pragma once
// <boost/beast/http.hpp>, for every file of Tern that speaks HTTP through Beast.
//
// GCC 12 at -O2 with the sanitizers (the asan preset) reports -Wmaybe-uninitialized inside
// Beast's parser, on the boost::optional that content_length_unchecked() returns: a false
// positive in a system header that surfaces wherever a parser is inlined. The diagnostic
// is located in Beast's header, so it is silenced for that header's text only; Tern's own
// code keeps the warning.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/beast/http.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
