// send.mjs --http URL --grpc HOST:PORT --run-id ID [--ca FILE]
//
// Sends a known set of logs, spans and metrics to a collector with the real OpenTelemetry
// JavaScript SDK and its OTLP exporters, once per transport: protobuf over HTTP ("proto"),
// JSON over HTTP ("json") and gRPC ("grpc"). Every record, span, span event and data point
// carries the attributes transport=<proto|json|grpc> and run.id=ID, and all timestamps and
// ids are fixed, so e2e_test.cpp knows exactly which documents must come out of the
// collector. Providers are shut down (flushing everything); the process exits 1 if any
// export reported a failure, 2 on bad arguments. What the data set is: see DATA below and
// the expectations in e2e_test.cpp, which must be kept in sync.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, ValueType, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as LogsGrpc } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as LogsJson } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as LogsProto } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as MetricsGrpc } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { AggregationTemporalityPreference, OTLPMetricExporter as MetricsJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as MetricsProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as TracesGrpc } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as TracesJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as TracesProto } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

let args;
try {
  ({ values: args } = parseArgs({
    options: { http: { type: 'string' }, grpc: { type: 'string' }, 'run-id': { type: 'string' }, ca: { type: 'string' } },
    strict: true,
  }));
} catch (e) {
  console.error(`send.mjs: ${e.message}`);
  process.exit(2);
}
if (!args.http || !args.grpc || !args['run-id']) {
  console.error('usage: node send.mjs --http http[s]://HOST:PORT --grpc HOST:PORT --run-id ID [--ca FILE]');
  process.exit(2);
}
const httpBase = args.http.replace(/\/+$/, '');
const runId = args['run-id'];
// --ca FILE: TLS, trusting that CA. HTTP: the https:// URL and the agent's `ca`; gRPC: an
// https:// URL and SSL channel credentials (grpc-js, which the gRPC exporters depend on).
const ca = args.ca ? readFileSync(args.ca) : undefined;
const grpcUrl = `${ca ? 'https' : 'http'}://${args.grpc}`;
const httpTls = ca ? { httpAgentOptions: { ca } } : {};
const grpcTls = ca ? { credentials: (await import('@grpc/grpc-js')).credentials.createSsl(ca) } : {};

// Wraps an exporter so that every export result is checked (the batch processors and the
// metric reader only log failures through diag).
const failures = [];
function checked(name, exporter) {
  return new Proxy(exporter, {
    get(target, prop) {
      if (prop === 'export') {
        return (items, done) =>
          target.export(items, (result) => {
            if (result.code !== 0) failures.push(`${name}: ${result.error?.message ?? `code ${result.code}`}`);
            done(result);
          });
      }
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const resource = resourceFromAttributes({ 'service.name': 'tern-e2e-js', 'service.version': '1.2.3' });

// Trace and span ids: fixed per transport (t = 1, 2, 3), so the test can check them exactly.
// trace id  5b8efff798038103d269b633813fc6<0t>, span ids eee19b7ec3c1b1<t><n> (n = 1, 2, 3).
class FixedIds {
  constructor(t) {
    this.t = t;
    this.n = 0;
  }
  generateTraceId() {
    return `5b8efff798038103d269b633813fc60${this.t}`;
  }
  generateSpanId() {
    this.n += 1;
    return `eee19b7ec3c1b1${this.t}${this.n}`;
  }
}

// ------------------------------------------------------------------------------ DATA
// Times: seconds 1700000000 + t (transport index), nanosecond parts chosen to test padding.
async function sendTraces(t, transport, exporter) {
  const provider = new BasicTracerProvider({
    resource,
    idGenerator: new FixedIds(t),
    spanProcessors: [new BatchSpanProcessor(checked(`${transport} traces`, exporter), { scheduledDelayMillis: 60000 })],
  });
  const tracer = provider.getTracer('tern.e2e.traces', '0.1.0');
  const tag = { transport, 'run.id': runId };
  const s = 1700000000 + t;
  // Root: SERVER, OK, two events. Child: CLIENT, ERROR, one event. Third: PRODUCER, unset.
  const root = tracer.startSpan(
    'GET /orders',
    { kind: SpanKind.SERVER, startTime: [s, 1000], attributes: { ...tag, 'http.method': 'GET', 'http.status_code': 200, ok: true, ratio: 0.25 } },
    ROOT_CONTEXT,
  );
  root.addEvent('cache.miss', { ...tag, key: 'orders:42', size: 3 }, [s, 2000]);
  root.addEvent('retry', { ...tag }, [s, 3000]);
  const rootCtx = trace.setSpan(ROOT_CONTEXT, root);
  const child = tracer.startSpan(
    'SELECT orders',
    { kind: SpanKind.CLIENT, startTime: [s, 4000], attributes: { ...tag, 'db.system': 'postgresql', rows: ['a', 'b'] } },
    rootCtx,
  );
  child.addEvent('exception', { ...tag, 'exception.message': 'timeout' }, [s, 5000]);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'query timed out' });
  child.end([s, 6000]);
  const producer = tracer.startSpan('publish', { kind: SpanKind.PRODUCER, startTime: [s, 7000], attributes: { ...tag } }, rootCtx);
  producer.end([s, 8000]);
  root.setStatus({ code: SpanStatusCode.OK });
  root.end([s, 1000001000]);
  await provider.shutdown();
  return root.spanContext();
}

async function sendLogs(t, transport, exporter, spanContext) {
  const provider = new LoggerProvider({
    resource,
    processors: [new BatchLogRecordProcessor({ exporter: checked(`${transport} logs`, exporter), scheduledDelayMillis: 60000 })],
  });
  const logger = provider.getLogger('tern.e2e.logs', '0.2.0');
  const other = provider.getLogger('tern.e2e.other');
  const tag = { transport, 'run.id': runId };
  const s = 1700000000 + t;
  logger.emit({
    timestamp: [s, 123456789],
    observedTimestamp: [s, 987654321],
    severityNumber: SeverityNumber.INFO,
    severityText: 'INFO',
    body: 'user logged in: héllo ✓',
    eventName: 'user.login',
    context: trace.setSpanContext(ROOT_CONTEXT, spanContext),
    attributes: { ...tag, str: 'value', int: 42, double: 3.25, bool: true, 'array.str': ['a', 'b'], map: { inner: 'v', n: 1 } },
  });
  logger.emit({
    timestamp: [s, 5],
    observedTimestamp: [s, 6],
    severityNumber: SeverityNumber.ERROR,
    severityText: 'ERROR',
    body: { message: 'failed', code: 500 },
    attributes: { ...tag, 'exception.type': 'IOError' },
  });
  logger.emit({ timestamp: [s, 0], observedTimestamp: [s, 0], severityNumber: SeverityNumber.WARN, body: 42, attributes: { ...tag } });
  other.emit({
    timestamp: [s, 999000],
    observedTimestamp: [s, 999000],
    severityNumber: SeverityNumber.DEBUG,
    severityText: 'debug',
    body: 'from the other logger',
    attributes: { ...tag },
  });
  await provider.shutdown();
}

async function sendMetrics(transport, exporter) {
  const reader = new PeriodicExportingMetricReader({
    exporter: checked(`${transport} metrics`, exporter),
    exportIntervalMillis: 600000,
  });
  const provider = new MeterProvider({ resource, readers: [reader] });
  const meter = provider.getMeter('tern.e2e.metrics', '0.3.0');
  const tag = { transport, 'run.id': runId };
  // One document each (distinct units / attributes): counter /a = 5, counter /b = 7,
  // gauge 21.5, histogram [10, 100] of 5, 50, 60, 500.
  const counter = meter.createCounter('e2e.requests', { unit: '{request}', valueType: ValueType.INT });
  counter.add(3, { ...tag, route: '/a' });
  counter.add(2, { ...tag, route: '/a' });
  counter.add(7, { ...tag, route: '/b' });
  const gauge = meter.createGauge('e2e.temperature', { unit: 'Cel' });
  gauge.record(21.5, { ...tag });
  const histogram = meter.createHistogram('e2e.latency', { unit: 'ms', advice: { explicitBucketBoundaries: [10, 100] } });
  for (const v of [5, 50, 60, 500]) histogram.record(v, { ...tag });
  await provider.shutdown();
}

const delta = { temporalityPreference: AggregationTemporalityPreference.DELTA };
const transports = [
  {
    t: 1,
    name: 'proto',
    logs: () => new LogsProto({ url: `${httpBase}/v1/logs`, ...httpTls }),
    traces: () => new TracesProto({ url: `${httpBase}/v1/traces`, ...httpTls }),
    metrics: () => new MetricsProto({ url: `${httpBase}/v1/metrics`, ...delta, ...httpTls }),
  },
  {
    t: 2,
    name: 'json',
    logs: () => new LogsJson({ url: `${httpBase}/v1/logs`, ...httpTls }),
    traces: () => new TracesJson({ url: `${httpBase}/v1/traces`, ...httpTls }),
    metrics: () => new MetricsJson({ url: `${httpBase}/v1/metrics`, ...delta, ...httpTls }),
  },
  {
    t: 3,
    name: 'grpc',
    logs: () => new LogsGrpc({ url: grpcUrl, ...grpcTls }),
    traces: () => new TracesGrpc({ url: grpcUrl, ...grpcTls }),
    metrics: () => new MetricsGrpc({ url: grpcUrl, ...delta, ...grpcTls }),
  },
];

try {
  for (const tr of transports) {
    const rootContext = await sendTraces(tr.t, tr.name, tr.traces());
    await sendLogs(tr.t, tr.name, tr.logs(), rootContext);
    await sendMetrics(tr.name, tr.metrics());
  }
} catch (e) {
  failures.push(`exception: ${e?.stack ?? e}`);
}
if (failures.length > 0) {
  for (const f of failures) console.error(`send.mjs: export failed: ${f}`);
  process.exit(1);
}
console.log('send.mjs: ok');
