// One OTLP/gRPC logs Export over a raw HTTP/2 stream (node:http2), so that the message can
// carry a compression gRPC libraries will not send: `node grpc_raw.mjs HOST:PORT ENCODING FILE`
// sends FILE's bytes as the message, flagged compressed with `grpc-encoding: ENCODING` (or
// uncompressed for `identity`), and prints the answer's status as JSON.
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';

const [, , target, encoding, file] = process.argv;
const message = readFileSync(file);
const prefix = Buffer.alloc(5);
prefix[0] = encoding === 'identity' ? 0 : 1;  // the compressed flag
prefix.writeUInt32BE(message.length, 1);
const client = http2.connect(`http://${target}`);
const headers = {
  ':method': 'POST',
  ':path': '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
  'content-type': 'application/grpc',
  te: 'trailers',
};
if (encoding !== 'identity') headers['grpc-encoding'] = encoding;
const req = client.request(headers);
const out = {};
req.on('response', (h) => {
  out.http = h[':status'];
  if (h['grpc-status'] !== undefined) out.grpc_status = h['grpc-status'];  // trailers-only answer
});
req.on('trailers', (t) => {
  out.grpc_status = t['grpc-status'];
  out.grpc_message = t['grpc-message'];
});
req.on('data', () => {});
req.on('end', () => {
  console.log(JSON.stringify(out));
  client.close();
});
req.on('error', (e) => {
  console.log(JSON.stringify({ error: String(e) }));
  process.exitCode = 1;
});
req.end(Buffer.concat([prefix, message]));
