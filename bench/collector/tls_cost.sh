#!/bin/bash
# What TLS costs the collector: OTLP/HTTP protobuf logs from `tern gen` (2 workers, 1000
# records per request) into one `tern run` with two receivers, plaintext and TLS (a
# throw-away P-256 certificate), both into the Elasticsearch exporter and `tern sink`.
# The phases alternate (plain, tls) for ROUNDS rounds; each prints the collector's CPU time
# (utime + stime from /proc, read 1.5 s after the generator ends so the export is counted)
# per event, and the generator's rate. Loopback only; ports 14318, 14319 and 19200.
#
#   bash bench/collector/tls_cost.sh [RECORDS_PER_WORKER=500000] [ROUNDS=3]
set -euo pipefail
B=${TERN_BIN_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin}
N=${1:-500000}
ROUNDS=${2:-3}
D=$(mktemp -d)
trap 'kill $RUN $SINK 2>/dev/null || true; rm -rf "$D"' EXIT
key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
openssl req -x509 $key -days 2 -subj /CN=bench-ca -keyout "$D/ca.key" -out "$D/ca.crt" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
openssl req $key -subj /CN=server -keyout "$D/server.key" -out "$D/server.csr" 2>/dev/null
echo "subjectAltName=IP:127.0.0.1" >"$D/ext"
openssl x509 -req -days 2 -in "$D/server.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" -CAcreateserial \
  -extfile "$D/ext" -out "$D/server.crt" 2>/dev/null
cat >"$D/c.yaml" <<YAML
receivers:
  otlp/plain:
    protocols:
      http: {endpoint: 127.0.0.1:14318}
  otlp/tls:
    protocols:
      http:
        endpoint: 127.0.0.1:14319
        tls: {cert_file: $D/server.crt, key_file: $D/server.key}
exporters:
  elasticsearch:
    endpoint: http://127.0.0.1:19200
service:
  telemetry: {metrics: {address: 127.0.0.1:0}}
  pipelines:
    logs: {receivers: [otlp/plain, otlp/tls], exporters: [elasticsearch]}
YAML
"$B/tern" sink --listen 127.0.0.1:19200 >"$D/sink.log" 2>&1 &
SINK=$!
"$B/tern" run -c "$D/c.yaml" >"$D/run.log" 2>&1 &
RUN=$!
for _ in $(seq 50); do grep -q "tern run: ready" "$D/run.log" && break; sleep 0.1; done
cpu() { awk '{print $14 + $15}' "/proc/$RUN/stat"; }
TICK=$(getconf CLK_TCK)
for round in $(seq "$ROUNDS"); do
  for mode in plain tls; do
    if [ $mode = plain ]; then
      args=(--otlp-insecure --otlp-endpoint 127.0.0.1:14318)
    else
      args=(--ca-cert "$D/ca.crt" --otlp-endpoint 127.0.0.1:14319)
    fi
    c0=$(cpu); t0=$(date +%s.%N)
    "$B/tern" gen logs --otlp-http "${args[@]}" --workers 2 --batch-size 1000 --logs "$N" \
      --otlp-retries 1000 >"$D/gen.out" 2>&1 || { cat "$D/gen.out"; exit 1; }
    t1=$(date +%s.%N); sleep 1.5; c1=$(cpu)
    awk -v c0="$c0" -v c1="$c1" -v tk="$TICK" -v ev=$((2 * N)) -v t0="$t0" -v t1="$t1" -v m=$mode -v r="$round" \
      'BEGIN { printf "round %d %-5s collector %.3f CPU-us/event, %.0f events/s\n", r, m, (c1 - c0) / tk * 1e6 / ev, ev / (t1 - t0) }'
  done
done
