// produce.mjs OUTDIR: builds a known set of logs, spans and metrics with the real
// OpenTelemetry JS SDK, serializes them with @opentelemetry/otlp-transformer (protobuf and
// JSON) into OUTDIR/{logs,traces,metrics}.{pb,json}, and writes OUTDIR/expected.json: the
// same data in the canonical form of canon.mjs, built from the SDK's own records (what the
// application set, after the SDK's limits), not from the serialized bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, ValueType, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { TraceState } from '@opentelemetry/core';
import {
  JsonLogsSerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  AggregationType,
  DataPointType,
  InstrumentType,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

import { hrToNs, normId, sdkAttrs, sdkValue, spanFlags } from './canon.mjs';

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node produce.mjs OUTDIR');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const SCHEMA_RES = 'https://opentelemetry.io/schemas/1.26.0';
const SCHEMA_SCOPE = 'https://opentelemetry.io/schemas/1.27.0';

// Resource attributes may only be primitives and homogeneous arrays in the JS SDK.
const resource = resourceFromAttributes(
  {
    'service.name': 'tern-interop',
    'service.version': '1.0.0-js',
    'host.cpu.count': 8,
    'process.load': 0.75,
    'deployment.canary': false,
    'host.ip': ['10.0.0.1', '::1'],
  },
  { schemaUrl: SCHEMA_RES },
);

// ---------------------------------------------------------------------------- logs
const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';

async function makeLogs() {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource,
    logRecordLimits: { attributeCountLimit: 16 },
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('tern.interop.logs', '1.2.3', {
    schemaUrl: SCHEMA_SCOPE,
    attributes: { 'scope.attr': 'yes', 'scope.level': 3 },
  });
  const other = provider.getLogger('tern.interop.other');
  const spanCtx = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });

  // Every AnyValue kind the logs SDK takes (attributes may be any AnyValue here).
  logger.emit({
    timestamp: [1700000000, 123456789],
    observedTimestamp: [1700000000, 987654321],
    severityNumber: SeverityNumber.INFO,
    severityText: 'INFO',
    body: 'user logged in: héllo ✓ 日本',
    eventName: 'user.login',
    context: spanCtx,
    attributes: {
      str: 'value',
      'str.empty': '',
      'bool.true': true,
      'bool.false': false,
      int: 42,
      'int.negative': -7,
      'int.zero': 0,
      'int.max_safe': 9007199254740991,
      // Not beyond 2^53: the transformer writes intValue as a JSON number, and JSON.stringify
      // prints 2**62 as 4611686018427388000 (a different int64), so only safe integers.
      'int.min_safe': -9007199254740991,
      double: 3.25,
      'double.negative': -0.000123,
      'array.str': ['a', 'b', ''],
      'array.int': [1, -2, 3],
      'array.mixed': ['x', 1, 2.5, true, new Uint8Array([9])],
      map: { inner: 'v', nested: { deep: [1, { k: 'w' }], flag: true }, empty: {} },
      bytes: new Uint8Array([0, 1, 127, 128, 254, 255]),
    },
  });
  logger.emit({
    timestamp: [1700000001, 0],
    observedTimestamp: [1700000001, 1],
    severityNumber: SeverityNumber.ERROR3,
    severityText: 'error',
    body: { message: 'failed', code: 500, retry: false, ratio: 0.5, tags: ['a', 'b'], raw: new Uint8Array([1, 2]) },
    attributes: { 'exception.type': 'IOError' },
  });
  // More attributes than the limit (16): the SDK drops two and counts them.
  const many = {};
  for (let i = 0; i < 18; i++) many[`attr.${String(i).padStart(2, '0')}`] = i;
  logger.emit({
    timestamp: [1700000002, 500],
    observedTimestamp: [1700000002, 600],
    body: new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
    attributes: many,
  });
  other.emit({
    timestamp: [1700000003, 3],
    observedTimestamp: [1700000003, 4],
    severityNumber: SeverityNumber.FATAL4,
    severityText: 'FATAL',
    body: [1, 'two', 3.5, [false], {}],
  });
  other.emit({ timestamp: [1700000004, 0], observedTimestamp: [1700000004, 0], severityNumber: SeverityNumber.DEBUG, body: -12.5 });
  other.emit({ timestamp: [1700000005, 0], observedTimestamp: [1700000005, 0], severityNumber: SeverityNumber.TRACE2, body: 123 });

  await provider.forceFlush();
  const records = exporter.getFinishedLogRecords();
  if (records.length !== 6) throw new Error(`expected 6 log records, got ${records.length}`);
  return records;
}

function expectedScope(scope, attributes, dropped) {
  return { name: scope.name, version: scope.version ?? '', attributes: sdkAttrs(attributes), droppedAttributesCount: dropped ?? 0 };
}
function expectedResource(res) {
  return { attributes: sdkAttrs(res.attributes), droppedAttributesCount: 0 };
}

// Groups records by resource, then by scope, in first-seen order (as the transformer does).
function group(items, resourceOf, scopeKeyOf) {
  const byResource = new Map();
  for (const item of items) {
    const res = resourceOf(item);
    if (!byResource.has(res)) byResource.set(res, new Map());
    const scopes = byResource.get(res);
    const key = scopeKeyOf(item);
    if (!scopes.has(key)) scopes.set(key, []);
    scopes.get(key).push(item);
  }
  return byResource;
}

function expectedLogs(records) {
  const byResource = group(records, (r) => r.resource, (r) => r.instrumentationScope);
  return {
    resourceLogs: [...byResource].map(([res, scopes]) => ({
      resource: expectedResource(res),
      schemaUrl: res.schemaUrl ?? '',
      scopeLogs: [...scopes].map(([scope, recs]) => ({
        scope: expectedScope(scope, scope.attributes, scope.droppedAttributesCount),
        schemaUrl: scope.schemaUrl ?? '',
        logRecords: recs.map((r) => ({
          timeUnixNano: hrToNs(r.hrTime),
          observedTimeUnixNano: hrToNs(r.hrTimeObserved),
          severityNumber: r.severityNumber ?? 0,
          severityText: r.severityText ?? '',
          body: sdkValue(r.body),
          attributes: sdkAttrs(r.attributes),
          droppedAttributesCount: r.droppedAttributesCount,
          flags: r.spanContext?.traceFlags ?? 0,
          traceId: normId(r.spanContext?.traceId),
          spanId: normId(r.spanContext?.spanId),
          eventName: r.eventName ?? '',
        })),
      })),
    })),
  };
}

// ---------------------------------------------------------------------------- traces
// Deterministic ids, so the C++ side and a reader of expected.json see stable values.
class SequenceIdGenerator {
  traces = ['0af7651916cd43dd8448eb211c80319c', 'ffffffffffffffffffffffffffffffff', '00000000000000000000000000000001'];
  spans = ['b7ad6b7169203331', '00f067aa0ba902b7', '53995c3f42cd8ad8', 'ffffffffffffff01', '0102030405060708'];
  generateTraceId() {
    return this.traces.shift();
  }
  generateSpanId() {
    return this.spans.shift();
  }
}

async function makeSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource,
    sampler: new AlwaysOnSampler(),
    idGenerator: new SequenceIdGenerator(),
    spanLimits: { attributeCountLimit: 12, eventCountLimit: 3, linkCountLimit: 2 },
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('tern.interop.traces', '0.9.0', { schemaUrl: SCHEMA_SCOPE });
  const other = provider.getTracer('tern.interop.other-tracer');

  // 1. A root server span with span attributes of every kind the trace SDK takes
  //    (primitives and homogeneous arrays), events, links, an error status.
  const linkState = new TraceState('vendor1=opaque,vendor2=x:y');
  const root = tracer.startSpan('GET /users/{id}', {
    kind: SpanKind.SERVER,
    startTime: [1700000100, 1000],
    attributes: {
      'http.request.method': 'GET',
      'http.response.status_code': 500,
      'server.port': -1,
      'user.ratio': 0.125,
      'user.admin': true,
      'array.str': ['x', 'y'],
      'array.int': [1, 2, 3],
      'array.double': [1.5, -2.5],
      'array.bool': [true, false],
      'empty.str': '',
    },
    links: [
      {
        context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: linkState },
        attributes: { 'link.kind': 'follows', 'link.n': 2 },
      },
      { context: { traceId: '11111111111111111111111111111111', spanId: '2222222222222222', traceFlags: TraceFlags.NONE } },
    ],
  });
  root.addEvent('cache.miss', { 'cache.key': 'u:1', 'cache.size': 1024, 'cache.hit_ratio': 0.5 }, [1700000100, 2000]);
  root.addEvent('no.attributes', [1700000100, 3000]);
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream failed: ✗' });
  root.end([1700000101, 999999999]);

  // 2. A client span under a remote parent, which carries a trace state; status OK.
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: 'abcdef0123456789abcdef0123456789',
    spanId: 'fedcba9876543210',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'),
  });
  const client = tracer.startSpan('SELECT users', { kind: SpanKind.CLIENT, startTime: [1700000102, 0] }, parent);
  client.setStatus({ code: SpanStatusCode.OK });
  client.end([1700000102, 500]);

  // 3. A local child of span 1 (parent not remote) over the span limits: 14 attributes
  //    (12 kept), 4 events (3 kept), 3 links (2 kept).
  const local = trace.setSpan(ROOT_CONTEXT, root);
  const attrs = {};
  for (let i = 0; i < 14; i++) attrs[`a${i}`] = `v${i}`;
  const links = [];
  for (let i = 0; i < 3; i++) links.push({ context: { traceId: '0123456789abcdef0123456789abcdef', spanId: `000000000000000${i + 1}`, traceFlags: TraceFlags.SAMPLED } });
  const limited = tracer.startSpan('limited', { kind: SpanKind.INTERNAL, startTime: [1700000103, 7], attributes: attrs, links }, local);
  for (let i = 0; i < 4; i++) limited.addEvent(`e${i}`, { i }, [1700000103, 10 + i]);
  limited.end([1700000103, 100]);

  // 4, 5. Producer and consumer spans from a second tracer (no version, no schema URL).
  const producer = other.startSpan('send', { kind: SpanKind.PRODUCER, startTime: [1700000104, 0] });
  producer.end([1700000104, 1]);
  const consumer = other.startSpan('receive', { kind: SpanKind.CONSUMER, startTime: [1700000105, 0], attributes: { 'messaging.batch.message_count': 3 } });
  consumer.end([1700000105, 2]);

  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  if (spans.length !== 5) throw new Error(`expected 5 spans, got ${spans.length}`);
  return spans;
}

function expectedTraces(spans) {
  const byResource = group(
    spans,
    (s) => s.resource,
    (s) => `${s.instrumentationScope.name}@${s.instrumentationScope.version || ''}:${s.instrumentationScope.schemaUrl || ''}`,
  );
  return {
    resourceSpans: [...byResource].map(([res, scopes]) => ({
      resource: expectedResource(res),
      schemaUrl: res.schemaUrl ?? '',
      scopeSpans: [...scopes].map(([, list]) => {
        const scope = list[0].instrumentationScope;
        return {
          scope: expectedScope(scope, scope.attributes, scope.droppedAttributesCount),
          schemaUrl: scope.schemaUrl ?? '',
          spans: list.map((s) => {
            const ctx = s.spanContext();
            return {
              traceId: normId(ctx.traceId),
              spanId: normId(ctx.spanId),
              traceState: ctx.traceState?.serialize() ?? '',
              parentSpanId: normId(s.parentSpanContext?.spanId),
              flags: spanFlags(ctx.traceFlags, s.parentSpanContext?.isRemote),
              name: s.name,
              kind: s.kind + 1, // the API's enum has no UNSPECIFIED
              startTimeUnixNano: hrToNs(s.startTime),
              endTimeUnixNano: hrToNs(s.endTime),
              attributes: sdkAttrs(s.attributes),
              droppedAttributesCount: s.droppedAttributesCount,
              events: s.events.map((e) => ({
                timeUnixNano: hrToNs(e.time),
                name: e.name,
                attributes: sdkAttrs(e.attributes),
                droppedAttributesCount: e.droppedAttributesCount ?? 0,
              })),
              droppedEventsCount: s.droppedEventsCount,
              links: s.links.map((l) => ({
                traceId: normId(l.context.traceId),
                spanId: normId(l.context.spanId),
                traceState: l.context.traceState?.serialize() ?? '',
                attributes: sdkAttrs(l.attributes),
                droppedAttributesCount: l.droppedAttributesCount ?? 0,
                flags: spanFlags(l.context.traceFlags, l.context.isRemote),
              })),
              droppedLinksCount: s.droppedLinksCount,
              status: { code: s.status.code, message: s.status.message ?? '' },
            };
          }),
        };
      }),
    })),
  };
}

// ---------------------------------------------------------------------------- metrics
class ManualReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}

async function makeMetrics() {
  const reader = new ManualReader({
    aggregationTemporalitySelector: (type) =>
      type === InstrumentType.COUNTER || type === InstrumentType.HISTOGRAM ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE,
  });
  const provider = new MeterProvider({
    resource,
    views: [{ instrumentName: 'tern.payload.size', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM, options: { maxSize: 8 } } }],
    readers: [reader],
  });
  const meter = provider.getMeter('tern.interop.metrics', '2.0.0', { schemaUrl: SCHEMA_SCOPE });

  const requests = meter.createCounter('tern.requests', { description: 'Requests served', unit: '{request}', valueType: ValueType.INT });
  requests.add(3, { route: '/a', ok: true });
  requests.add(4, { route: '/b', ok: false });
  requests.add(2, { route: '/a', ok: true });
  const bytes = meter.createCounter('tern.bytes', { unit: 'By', valueType: ValueType.DOUBLE });
  bytes.add(1.5);
  bytes.add(2.25);
  const depth = meter.createUpDownCounter('tern.queue.depth', { description: 'Queue depth', valueType: ValueType.INT });
  depth.add(10, { queue: 'q1' });
  depth.add(-15, { queue: 'q1' });
  const latency = meter.createHistogram('tern.latency', {
    description: 'Latency',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.5, 1, 2.5, 10] },
  });
  for (const v of [0.1, 0.7, 0.7, 3, 12.5]) latency.record(v, { method: 'GET' });
  latency.record(0.25, { method: 'POST' });
  const payload = meter.createHistogram('tern.payload.size', { unit: 'By' });
  // (The JS SDK drops negative histogram values, so the negative buckets stay empty.)
  for (const v of [0, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.0041]) payload.record(v);
  const temperature = meter.createGauge('tern.temperature', { unit: 'Cel', valueType: ValueType.DOUBLE });
  temperature.record(21.5, { room: 'a' });
  temperature.record(-3.75, { room: 'b' });
  const cores = meter.createGauge('tern.cores', { valueType: ValueType.INT });
  cores.record(8);

  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length) throw new Error(`metric collection errors: ${errors}`);
  return resourceMetrics;
}

const temporality = (t) => (t === AggregationTemporality.DELTA ? 1 : t === AggregationTemporality.CUMULATIVE ? 2 : 0);
const str = (n) => BigInt(n).toString();
const optDouble = (v) => (v === undefined || v === null ? null : v);

function expectedDataPoint(m, dp) {
  const base = {
    attributes: sdkAttrs(dp.attributes),
    startTimeUnixNano: hrToNs(dp.startTime),
    timeUnixNano: hrToNs(dp.endTime),
  };
  switch (m.dataPointType) {
    case DataPointType.SUM:
    case DataPointType.GAUGE:
      return m.descriptor.valueType === ValueType.INT
        ? { ...base, valueType: 'int', value: str(dp.value), exemplars: [], flags: 0 }
        : { ...base, valueType: 'double', value: dp.value, exemplars: [], flags: 0 };
    case DataPointType.HISTOGRAM:
      return {
        ...base,
        count: str(dp.value.count),
        sum: optDouble(dp.value.sum),
        bucketCounts: dp.value.buckets.counts.map(str),
        explicitBounds: dp.value.buckets.boundaries,
        exemplars: [],
        flags: 0,
        min: optDouble(dp.value.min),
        max: optDouble(dp.value.max),
      };
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return {
        ...base,
        count: str(dp.value.count),
        sum: optDouble(dp.value.sum),
        scale: dp.value.scale,
        zeroCount: str(dp.value.zeroCount),
        positive: { offset: dp.value.positive.offset, bucketCounts: dp.value.positive.bucketCounts.map(str) },
        negative: { offset: dp.value.negative.offset, bucketCounts: dp.value.negative.bucketCounts.map(str) },
        flags: 0,
        exemplars: [],
        min: optDouble(dp.value.min),
        max: optDouble(dp.value.max),
        zeroThreshold: 0,
      };
  }
  throw new Error(`unknown data point type ${m.dataPointType}`);
}

const TYPE_NAMES = {
  [DataPointType.GAUGE]: 'gauge',
  [DataPointType.SUM]: 'sum',
  [DataPointType.HISTOGRAM]: 'histogram',
  [DataPointType.EXPONENTIAL_HISTOGRAM]: 'exponentialHistogram',
};

function expectedMetrics(rm) {
  return {
    resourceMetrics: [
      {
        resource: expectedResource(rm.resource),
        schemaUrl: rm.resource.schemaUrl ?? '',
        scopeMetrics: rm.scopeMetrics.map((sm) => ({
          scope: expectedScope(sm.scope, sm.scope.attributes, sm.scope.droppedAttributesCount),
          schemaUrl: sm.scope.schemaUrl ?? '',
          metrics: sm.metrics.map((m) => ({
            name: m.descriptor.name,
            description: m.descriptor.description ?? '',
            unit: m.descriptor.unit ?? '',
            type: TYPE_NAMES[m.dataPointType],
            temporality: m.dataPointType === DataPointType.GAUGE ? 0 : temporality(m.aggregationTemporality),
            isMonotonic: m.dataPointType === DataPointType.SUM ? Boolean(m.isMonotonic) : false,
            dataPoints: m.dataPoints.map((dp) => expectedDataPoint(m, dp)),
            metadata: [],
          })),
        })),
      },
    ],
  };
}

// ---------------------------------------------------------------------------- main
const logs = await makeLogs();
const spans = await makeSpans();
const metrics = await makeMetrics();

const write = (name, bytes) => writeFileSync(join(outDir, name), bytes);
write('logs.pb', ProtobufLogsSerializer.serializeRequest(logs));
write('logs.json', JsonLogsSerializer.serializeRequest(logs));
write('traces.pb', ProtobufTraceSerializer.serializeRequest(spans));
write('traces.json', JsonTraceSerializer.serializeRequest(spans));
write('metrics.pb', ProtobufMetricsSerializer.serializeRequest(metrics));
write('metrics.json', JsonMetricsSerializer.serializeRequest(metrics));

const expected = { logs: expectedLogs(logs), traces: expectedTraces(spans), metrics: expectedMetrics(metrics) };
write('expected.json', JSON.stringify(expected, null, 1) + '\n');
console.log(`produce: wrote ${logs.length} log records, ${spans.length} spans, ${metrics.scopeMetrics[0].metrics.length} metrics to ${outDir}`);
