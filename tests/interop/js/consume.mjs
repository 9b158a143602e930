// consume.mjs INDIR [--prefix=tern-] [--formats=pb,json] [--signals=logs,traces,metrics]
//               [--expected=FILE]
//
// The reverse direction of the interop test: decodes the OTLP requests Tern encoded,
// INDIR/<prefix>{logs,traces,metrics}.{pb,json}, on the JS side (protobuf with protobufjs
// and the OTLP message set in otlp.proto; JSON with JSON.parse and the OTLP/JSON rules:
// hex ids, base64 bytes, 64-bit integers as strings or numbers, omitted defaults), and
// compares every field with expected.json (written by produce.mjs from the SDK's records).
// Exits 1 with one line per mismatching field, 2 on bad usage or unreadable input.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import protobuf from 'protobufjs';

import { diff, hex, normId } from './canon.mjs';

const args = process.argv.slice(2);
const inDir = args.find((a) => !a.startsWith('--'));
const opt = (name, dflt) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? dflt : a.slice(name.length + 3);
};
if (!inDir) {
  console.error('usage: node consume.mjs INDIR [--prefix=tern-] [--formats=pb,json] [--signals=logs,traces,metrics] [--expected=FILE]');
  process.exit(2);
}
const prefix = opt('prefix', 'tern-');
const formats = opt('formats', 'pb,json').split(',').filter(Boolean);
const signals = opt('signals', 'logs,traces,metrics').split(',').filter(Boolean);
const expected = JSON.parse(readFileSync(opt('expected', join(inDir, 'expected.json')), 'utf8'));

const root = protobuf.loadSync(join(dirname(fileURLToPath(import.meta.url)), 'otlp.proto'));
const REQUEST = {
  logs: root.lookupType('tern.interop.otlp.ExportLogsServiceRequest'),
  traces: root.lookupType('tern.interop.otlp.ExportTraceServiceRequest'),
  metrics: root.lookupType('tern.interop.otlp.ExportMetricsServiceRequest'),
};

// ---- value readers that accept both the protobufjs object form and OTLP/JSON
const isBytes = (v) => v instanceof Uint8Array;
const id = (v) => (v == null ? '' : isBytes(v) ? normId(hex(v)) : normId(String(v)));
const int64 = (v) => (v == null ? '0' : BigInt(v).toString());
const int32 = (v) => (v == null ? 0 : Number(v));
const str = (v) => (v == null ? '' : String(v));
const bool = (v) => v === true;
const dbl = (v) => {
  if (v == null) return 0;
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new Error(`not a double: ${JSON.stringify(v)}`);
};
const optDbl = (v) => (v == null ? null : dbl(v));
const bytesHex = (v) => (v == null ? '' : isBytes(v) ? hex(v) : Buffer.from(v, 'base64').toString('hex'));
const list = (v) => v ?? [];
const has = (o, k) => o != null && Object.prototype.hasOwnProperty.call(o, k) && o[k] != null;

function anyValue(v) {
  if (v == null) return {};
  if (has(v, 'stringValue')) return { s: str(v.stringValue) };
  if (has(v, 'boolValue')) return { b: bool(v.boolValue) };
  if (has(v, 'intValue')) return { i: int64(v.intValue) };
  if (has(v, 'doubleValue')) return { d: dbl(v.doubleValue) };
  if (has(v, 'bytesValue')) return { x: bytesHex(v.bytesValue) };
  if (has(v, 'arrayValue')) return { a: list(v.arrayValue.values).map(anyValue) };
  if (has(v, 'kvlistValue')) return { kv: attrs(v.kvlistValue.values) };
  return {};
}
const attrs = (kvs) => list(kvs).map((kv) => ({ key: str(kv.key), value: anyValue(kv.value) }));
const resource = (r) => ({ attributes: attrs(r?.attributes), droppedAttributesCount: int32(r?.droppedAttributesCount) });
const scope = (s) => ({
  name: str(s?.name),
  version: str(s?.version),
  attributes: attrs(s?.attributes),
  droppedAttributesCount: int32(s?.droppedAttributesCount),
});

// ---- the three signals in canonical form (see canon.mjs)
const canonLogs = (req) => ({
  resourceLogs: list(req.resourceLogs).map((rl) => ({
    resource: resource(rl.resource),
    schemaUrl: str(rl.schemaUrl),
    scopeLogs: list(rl.scopeLogs).map((sl) => ({
      scope: scope(sl.scope),
      schemaUrl: str(sl.schemaUrl),
      logRecords: list(sl.logRecords).map((r) => ({
        timeUnixNano: int64(r.timeUnixNano),
        observedTimeUnixNano: int64(r.observedTimeUnixNano),
        severityNumber: int32(r.severityNumber),
        severityText: str(r.severityText),
        body: anyValue(r.body),
        attributes: attrs(r.attributes),
        droppedAttributesCount: int32(r.droppedAttributesCount),
        flags: int32(r.flags),
        traceId: id(r.traceId),
        spanId: id(r.spanId),
        eventName: str(r.eventName),
      })),
    })),
  })),
});

const canonTraces = (req) => ({
  resourceSpans: list(req.resourceSpans).map((rs) => ({
    resource: resource(rs.resource),
    schemaUrl: str(rs.schemaUrl),
    scopeSpans: list(rs.scopeSpans).map((ss) => ({
      scope: scope(ss.scope),
      schemaUrl: str(ss.schemaUrl),
      spans: list(ss.spans).map((s) => ({
        traceId: id(s.traceId),
        spanId: id(s.spanId),
        traceState: str(s.traceState),
        parentSpanId: id(s.parentSpanId),
        flags: int32(s.flags),
        name: str(s.name),
        kind: int32(s.kind),
        startTimeUnixNano: int64(s.startTimeUnixNano),
        endTimeUnixNano: int64(s.endTimeUnixNano),
        attributes: attrs(s.attributes),
        droppedAttributesCount: int32(s.droppedAttributesCount),
        events: list(s.events).map((e) => ({
          timeUnixNano: int64(e.timeUnixNano),
          name: str(e.name),
          attributes: attrs(e.attributes),
          droppedAttributesCount: int32(e.droppedAttributesCount),
        })),
        droppedEventsCount: int32(s.droppedEventsCount),
        links: list(s.links).map((l) => ({
          traceId: id(l.traceId),
          spanId: id(l.spanId),
          traceState: str(l.traceState),
          attributes: attrs(l.attributes),
          droppedAttributesCount: int32(l.droppedAttributesCount),
          flags: int32(l.flags),
        })),
        droppedLinksCount: int32(s.droppedLinksCount),
        status: { code: int32(s.status?.code), message: str(s.status?.message) },
      })),
    })),
  })),
});

const exemplar = (e) => ({
  filteredAttributes: attrs(e.filteredAttributes),
  timeUnixNano: int64(e.timeUnixNano),
  ...(has(e, 'asInt') ? { valueType: 'int', value: int64(e.asInt) } : { valueType: 'double', value: dbl(e.asDouble) }),
  spanId: id(e.spanId),
  traceId: id(e.traceId),
});
const pointBase = (dp) => ({
  attributes: attrs(dp.attributes),
  startTimeUnixNano: int64(dp.startTimeUnixNano),
  timeUnixNano: int64(dp.timeUnixNano),
});
const numberPoint = (dp) => ({
  ...pointBase(dp),
  ...(has(dp, 'asInt')
    ? { valueType: 'int', value: int64(dp.asInt) }
    : has(dp, 'asDouble')
      ? { valueType: 'double', value: dbl(dp.asDouble) }
      : { valueType: 'none', value: null }),
  exemplars: list(dp.exemplars).map(exemplar),
  flags: int32(dp.flags),
});
const histogramPoint = (dp) => ({
  ...pointBase(dp),
  count: int64(dp.count),
  sum: optDbl(dp.sum),
  bucketCounts: list(dp.bucketCounts).map(int64),
  explicitBounds: list(dp.explicitBounds).map(dbl),
  exemplars: list(dp.exemplars).map(exemplar),
  flags: int32(dp.flags),
  min: optDbl(dp.min),
  max: optDbl(dp.max),
});
const buckets = (b) => ({ offset: int32(b?.offset), bucketCounts: list(b?.bucketCounts).map(int64) });
const expHistogramPoint = (dp) => ({
  ...pointBase(dp),
  count: int64(dp.count),
  sum: optDbl(dp.sum),
  scale: int32(dp.scale),
  zeroCount: int64(dp.zeroCount),
  positive: buckets(dp.positive),
  negative: buckets(dp.negative),
  flags: int32(dp.flags),
  exemplars: list(dp.exemplars).map(exemplar),
  min: optDbl(dp.min),
  max: optDbl(dp.max),
  zeroThreshold: dbl(dp.zeroThreshold),
});
const summaryPoint = (dp) => ({
  ...pointBase(dp),
  count: int64(dp.count),
  sum: dbl(dp.sum),
  quantileValues: list(dp.quantileValues).map((q) => ({ quantile: dbl(q.quantile), value: dbl(q.value) })),
  flags: int32(dp.flags),
});

function metric(m) {
  const out = { name: str(m.name), description: str(m.description), unit: str(m.unit) };
  const kinds = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'].filter((k) => has(m, k));
  if (kinds.length > 1) throw new Error(`metric ${out.name} has more than one data kind: ${kinds}`);
  const type = kinds[0] ?? 'empty';
  const data = m[type] ?? {};
  const points = {
    gauge: numberPoint,
    sum: numberPoint,
    histogram: histogramPoint,
    exponentialHistogram: expHistogramPoint,
    summary: summaryPoint,
    empty: () => null,
  }[type];
  return {
    ...out,
    type,
    temporality: int32(data.aggregationTemporality),
    isMonotonic: bool(data.isMonotonic),
    dataPoints: list(data.dataPoints).map(points),
    metadata: attrs(m.metadata),
  };
}
const canonMetrics = (req) => ({
  resourceMetrics: list(req.resourceMetrics).map((rm) => ({
    resource: resource(rm.resource),
    schemaUrl: str(rm.schemaUrl),
    scopeMetrics: list(rm.scopeMetrics).map((sm) => ({
      scope: scope(sm.scope),
      schemaUrl: str(sm.schemaUrl),
      metrics: list(sm.metrics).map(metric),
    })),
  })),
});

const CANON = { logs: canonLogs, traces: canonTraces, metrics: canonMetrics };

function decode(signal, format, bytes) {
  if (format === 'pb') {
    const msg = REQUEST[signal].decode(bytes);
    // Longs as decimal strings (unsigned for fixed64, signed for int64/sfixed64); bytes
    // stay Uint8Array; only fields present on the wire for oneofs and proto3 optionals.
    return REQUEST[signal].toObject(msg, { longs: String, defaults: false, arrays: true });
  }
  return JSON.parse(Buffer.from(bytes).toString('utf8'));
}

let failures = 0;
for (const signal of signals) {
  for (const format of formats) {
    const file = join(inDir, `${prefix}${signal}.${format}`);
    if (!existsSync(file)) {
      console.error(`consume: ${file} is missing`);
      process.exit(2);
    }
    let problems;
    try {
      problems = diff(expected[signal], CANON[signal](decode(signal, format, readFileSync(file))));
    } catch (err) {
      problems = [`cannot decode: ${err.message}`];
    }
    if (problems.length) {
      failures++;
      console.error(`consume: ${file}: ${problems.length} mismatch(es) against expected.json`);
      for (const p of problems) console.error(`  ${p}`);
    } else {
      console.log(`consume: ${file}: OK`);
    }
  }
}
process.exit(failures ? 1 : 0);
