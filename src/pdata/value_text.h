#pragma once
// The text the OpenTelemetry Collector makes of an AnyValue, in one place: the attributes
// processor's `convert` to string (pcommon's Value.AsString) and OTTL's string-like getter
// (what IsMatch matches) must write what the Collector writes, and the two differ only in
// bytes (base64 for AsString, hex for OTTL) and in two details of Go's JSON encoders (below).
//
// Maps and lists are JSON of Go's AsRaw(): keys sorted by bytes (encoding/json sorts; the
// jsoniter that OTTL uses keeps Go's random map order, so sorted is one order it can give),
// a repeated key's last value, <, > and & escaped as \u003c..., invalid UTF-8 as \ufffd, an
// empty value as null, empty bytes as null (Go's AsRaw gives a nil slice), bytes as base64.
// Numbers are written as Go's encoders write float64: no exponent from 1e-6 up to 1e21,
// shortest round-trip digits. Nesting is walked with an explicit stack, never recursion.
#include <string>
#include <string_view>

#include "pdata/common.h"

namespace tern::pdata {

// Go's two JSON encoders the Collector's text comes from. They differ in a float's exponent
// below 1e-6 (encoding/json: 1e-7; jsoniter: 1e-07) and in \b and \f (encoding/json since Go
// 1.22 writes \b and \f; jsoniter writes \u0008 and \u000c).
enum class GoJson { kEncodingJson, kJsoniter };

// A finite double as `flavor` writes it.
void append_go_float(std::string& out, double d, GoJson flavor);

// The JSON of `v` (any kind), or of a map or list. False when a NaN or an infinity is inside
// (Go's encoders refuse them); `out` then holds part of the text.
bool append_go_json(std::string& out, const AnyValue& v, GoJson flavor);
bool append_go_json(std::string& out, const Attributes& map, GoJson flavor);

// pcommon.Value.AsString(), which the attributes processor's convert to string sets: strings
// as they are, integers in decimal, booleans true/false, doubles as encoding/json writes them
// (a NaN or infinity as "json: unsupported value: NaN" / "+Inf" / "-Inf"), bytes as standard
// base64, maps and lists as encoding/json JSON ("" when a NaN or infinity is inside), an empty
// value as "".
std::string pcommon_as_string(const AnyValue& v);

// OTTL's StandardStringLikeGetter: strings as they are, integers and booleans as text,
// doubles and maps and lists as jsoniter writes them, bytes as lower-case hex
// (hex.EncodeToString). False for an empty value (OTTL's nil: no text) and for what jsoniter
// refuses (a NaN or infinity, alone or inside); the Collector reports those as errors.
bool ottl_string_like(const AnyValue& v, std::string& out);

}  // namespace tern::pdata
