// The canonical form both sides of the interop test compare in (see interop_test.cpp,
// which builds the same form from Tern's pdata).
//
// Every message has every field, defaults included, so a missing or extra field shows:
//   AnyValue     {} (empty) | {s: str} | {b: bool} | {i: "int64 decimal"} | {d: number}
//                | {x: "bytes as lowercase hex"} | {a: [AnyValue]} | {kv: [KeyValue]}
//   KeyValue     {key, value: AnyValue}
//   ids          lowercase hex, "" when absent (all zero)
//   64-bit ints  decimal strings (times, counts, int values); 32-bit ints as numbers
//   doubles      numbers; optional doubles (histogram sum/min/max) null when absent

export const hex = (bytes) => Buffer.from(bytes ?? []).toString('hex');
const isZeroHex = (h) => /^0*$/.test(h);
export const normId = (h) => (h == null || isZeroHex(h) ? '' : String(h).toLowerCase());

export const hrToNs = (hr) => (BigInt(Math.trunc(hr[0])) * 1000000000n + BigInt(Math.trunc(hr[1]))).toString();

// An SDK attribute/body value (what the application set) in canonical form, with the
// OTLP mapping rules of the JS SDK: integral numbers are int_value, others double_value.
export function sdkValue(v) {
  if (v === undefined || v === null) return {};
  if (typeof v === 'string') return { s: v };
  if (typeof v === 'boolean') return { b: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { i: BigInt(v).toString() } : { d: v };
  if (v instanceof Uint8Array) return { x: hex(v) };
  if (Array.isArray(v)) return { a: v.map(sdkValue) };
  if (typeof v === 'object') return { kv: sdkAttrs(v) };
  throw new Error(`unsupported SDK value ${String(v)}`);
}
export const sdkAttrs = (obj) => Object.keys(obj ?? {}).map((key) => ({ key, value: sdkValue(obj[key]) }));

// The JS SDK's span flags: low 8 bits are the W3C trace flags, then HAS_IS_REMOTE (0x100)
// and IS_REMOTE (0x200).
export const spanFlags = (traceFlags, isRemote) => (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);

// Compares two canonical trees; returns a list of "path: expected X, got Y" strings.
export function diff(expected, actual, path = '$', out = []) {
  if (out.length > 50) return out;
  const te = Array.isArray(expected) ? 'array' : expected === null ? 'null' : typeof expected;
  const ta = Array.isArray(actual) ? 'array' : actual === null ? 'null' : typeof actual;
  if (te !== ta) {
    out.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  } else if (te === 'array') {
    if (expected.length !== actual.length)
      out.push(`${path}: expected ${expected.length} elements, got ${actual.length}: ${JSON.stringify(actual).slice(0, 300)}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) diff(expected[i], actual[i], `${path}[${i}]`, out);
  } else if (te === 'object') {
    for (const k of Object.keys(expected)) {
      if (!(k in actual)) out.push(`${path}.${k}: missing (expected ${JSON.stringify(expected[k])})`);
      else diff(expected[k], actual[k], `${path}.${k}`, out);
    }
    for (const k of Object.keys(actual)) if (!(k in expected)) out.push(`${path}.${k}: unexpected ${JSON.stringify(actual[k])}`);
  } else if (!Object.is(expected, actual)) {
    out.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
  return out;
}
