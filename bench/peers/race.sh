#!/usr/bin/env bash
# The race (issue #8): ship the same log file with Tern (memory queue with and without gzip,
# disk queue), syslog-ng and rsyslog into a fresh `tern sink` each, and compare events/s,
# CPU-µs per event and peak RSS (median of N runs). Everything runs on 127.0.0.1; the peers
# run in the foreground with generated configs, never as system services. See docs/peers.md.
#
#   bench/peers/race.sh                      # 1,000,000 lines, 3 runs, all shippers
#   bench/peers/race.sh --lines 100000 --runs 1 --only syslog-ng,rsyslog
#
# Environment: TERN_BIN (default build/bin/tern), TERN_PEERS_CACHE (default
# /var/cache/tern-peers: unpacked rsyslog, generated line files, scratch directories).
set -euo pipefail

CMDLINE="bench/peers/race.sh${*:+ $*}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TERN_BIN="${TERN_BIN:-$ROOT/build/bin/tern}"
CACHE="${TERN_PEERS_CACHE:-/var/cache/tern-peers}"
LINES=1000000
RUNS=3
SHIPPERS="tern-memory,tern-memory-nogzip,tern-disk,tern-disk-nogzip,syslog-ng,rsyslog"
TIMEOUT=600
OUT="$HERE/results"
SETUP=1
# Peers get as many workers as Tern's default (one per core), bulk requests of 5000 lines
# (~2 MB) and room for 20000 messages in flight. Bigger windows cost them RSS (syslog-ng
# 115 MB, rsyslog 315 MB with 100000) for no CPU gain; see docs/peers.md.
WORKERS="$(nproc)"
BATCH=5000
WINDOW=20000

usage() {
  cat <<EOF
usage: $0 [--lines N] [--runs N] [--only LIST] [--timeout SECONDS] [--out DIR] [--no-setup]
  --lines N        lines in the shipped file (default $LINES; ~216 bytes each)
  --runs N         runs per shipper; the table shows the median (default $RUNS)
  --only LIST      comma list of: tern-memory, tern-memory-nogzip, tern-disk,
                   tern-disk-nogzip, syslog-ng, rsyslog (default all)
  --timeout S      give up on a run after S seconds (default $TIMEOUT)
  --out DIR        where race-N.{csv,md,png} go (default bench/peers/results)
  --no-setup       do not install anything; fail if something is missing
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --lines) LINES="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --only) SHIPPERS="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-setup) SETUP=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "race.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$LINES" =~ ^[1-9][0-9]*$ ]] || { echo "race.sh: --lines must be a positive integer" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "race.sh: --runs must be a positive integer" >&2; exit 2; }
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "race.sh: --timeout must be a positive integer" >&2; exit 2; }
IFS=, read -r -a SHIPPER_LIST <<<"$SHIPPERS"
for s in "${SHIPPER_LIST[@]}"; do
  case "$s" in
    tern-memory | tern-memory-nogzip | tern-disk | tern-disk-nogzip | syslog-ng | rsyslog) ;;
    *) echo "race.sh: unknown shipper in --only: $s" >&2; exit 2 ;;
  esac
done

log() { printf '[race %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'race.sh: error: %s\n' "$*" >&2; exit 1; }

RSYSLOG_ROOT="$CACHE/rsyslog"
RSYSLOGD="$RSYSLOG_ROOT/usr/sbin/rsyslogd"
RSYSLOG_MODDIR="$RSYSLOG_ROOT/usr/lib/x86_64-linux-gnu/rsyslog"
PYTHON="$(command -v python3 || true)"

# ---------------------------------------------------------------------------------------
# Setup (idempotent): Debian packages, rsyslog unpacked next to (not instead of) syslog-ng,
# the line file.
# ---------------------------------------------------------------------------------------

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

apt_install() {
  local missing=()
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  [[ $SETUP -eq 1 ]] || die "missing packages: ${missing[*]} (run without --no-setup, as root)"
  [[ $EUID -eq 0 ]] || die "missing packages: ${missing[*]}; run as root or: apt-get install ${missing[*]}"
  log "installing ${missing[*]}"
  # Installing syslog-ng must not start a system daemon: policy-rc.d exit 101 forbids
  # invoke-rc.d from starting services. Ours is only put in place when there is none.
  local own_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >"$CACHE/apt.log" 2>&1 || rc=$?
  [[ $own_policy -eq 1 ]] && rm -f /usr/sbin/policy-rc.d
  [[ $rc -eq 0 ]] || die "apt-get install failed, see $CACHE/apt.log"
  # Belt and braces where systemd does run: keep the packaged service off.
  if installed syslog-ng-core && command -v systemctl >/dev/null && [[ -d /run/systemd/system ]]; then
    systemctl disable --now syslog-ng.service >/dev/null 2>&1 || true
  fi
}

setup_rsyslog() {
  [[ -x "$RSYSLOGD" && -f "$RSYSLOG_MODDIR/omelasticsearch.so" && -f "$RSYSLOG_MODDIR/imfile.so" ]] && return 0
  [[ $SETUP -eq 1 ]] || die "rsyslog is not unpacked in $RSYSLOG_ROOT (run without --no-setup)"
  # rsyslog conflicts with syslog-ng-core (both provide system-log-daemon), so it is never
  # installed: its packages are downloaded and unpacked, and rsyslogd runs from there.
  log "unpacking rsyslog and rsyslog-elasticsearch into $RSYSLOG_ROOT"
  local debs="$CACHE/debs"
  rm -rf "$debs" "$RSYSLOG_ROOT"
  mkdir -p "$debs"
  chown _apt "$debs" 2>/dev/null || true # lets apt download without its sandbox warning
  (cd "$debs" && apt-get download rsyslog rsyslog-elasticsearch >"$CACHE/apt-download.log" 2>&1) ||
    die "apt-get download rsyslog rsyslog-elasticsearch failed, see $CACHE/apt-download.log"
  for d in "$debs"/*.deb; do dpkg -x "$d" "$RSYSLOG_ROOT"; done
  [[ -x "$RSYSLOGD" ]] || die "unpacked rsyslog has no $RSYSLOGD"
}

setup() {
  mkdir -p "$CACHE" || die "cannot create $CACHE (set TERN_PEERS_CACHE)"
  local pkgs=(curl python3 gnuplot-nox)
  if [[ ",$SHIPPERS," == *,syslog-ng,* ]]; then
    pkgs+=(syslog-ng-core syslog-ng-mod-http syslog-ng-scl)
  fi
  if [[ ",$SHIPPERS," == *,rsyslog,* ]]; then
    # rsyslog's and omelasticsearch's shared-library dependencies (they do not conflict).
    pkgs+=(libestr0 libfastjson4 liblognorm5 libcurl4 libzstd1 libuuid1)
  fi
  apt_install "${pkgs[@]}"
  PYTHON="$(command -v python3)"
  [[ ",$SHIPPERS," == *,rsyslog,* ]] && setup_rsyslog
  # The sink is Tern's even when only the peers race.
  [[ -x "$TERN_BIN" ]] || die "no tern binary at $TERN_BIN (needed for tern sink; set TERN_BIN)"
  LINES_FILE="$CACHE/lines-$LINES.log"
  if [[ ! -s "$LINES_FILE" ]]; then
    log "generating $LINES lines into $LINES_FILE"
    "$PYTHON" "$HERE/genlines.py" "$LINES" "$LINES_FILE"
  fi
  local got
  got=$(wc -l <"$LINES_FILE")
  [[ "$got" -eq "$LINES" ]] || die "$LINES_FILE has $got lines, expected $LINES (delete it)"
}

# ---------------------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------------------

SINK_PID=""
SHIP_PID=""
cleanup() {
  # Only the processes this script started, by pid.
  if [[ -n "$SHIP_PID" ]]; then kill -KILL "$SHIP_PID" 2>/dev/null || true; fi
  if [[ -n "$SINK_PID" ]]; then kill -TERM "$SINK_PID" 2>/dev/null || true; fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_pid() { # pid: TERM, then KILL after 30 s
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

start_sink() { # dir -> sets SINK_PID, SINK_URL
  local dir="$1" i port=""
  "$TERN_BIN" sink --listen 127.0.0.1:0 --threads 2 >"$dir/sink.out" 2>"$dir/sink.err" &
  SINK_PID=$!
  for ((i = 0; i < 100; i++)); do
    # The file may not exist yet: the background shell opens it after the fork.
    port=$(sed -n 's/^tern sink listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/sink.out" 2>/dev/null || true)
    [[ -n "$port" ]] && break
    kill -0 "$SINK_PID" 2>/dev/null || die "tern sink exited: $(cat "$dir/sink.err")"
    sleep 0.05
  done
  [[ -n "$port" ]] || die "tern sink did not report its port"
  SINK_URL="http://127.0.0.1:$port"
}

sink_stats() { curl -s --max-time 5 "$SINK_URL/_sink/stats" || true; }
stat_docs() { sed -n 's/^{"docs":\([0-9]*\),.*/\1/p' <<<"$1"; }

# CPU seconds (utime+stime, all threads) of a live process, from /proc/PID/stat; the fields
# after the command name (which may contain spaces) are counted from its closing ')'.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
peak_rss_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }

render() { # template out key=value...
  local tpl="$1" out="$2"
  shift 2
  local args=() kv
  for kv in "$@"; do args+=(-e "s|@${kv%%=*}@|${kv#*=}|g"); done
  sed "${args[@]}" "$tpl" >"$out"
}

start_shipper() { # shipper dir -> sets SHIP_PID
  local s="$1" dir="$2"
  case "$s" in
    tern-*)
      mkdir -p "$dir/queue" "$dir/filelog" # the disk variant's queue and offset checkpoints
      render "$HERE/$s.yaml.in" "$dir/tern.yaml" FILE="$LINES_FILE" URL="$SINK_URL" WORKDIR="$dir"
      "$TERN_BIN" run -c "$dir/tern.yaml" >"$dir/shipper.out" 2>"$dir/shipper.err" &
      ;;
    syslog-ng)
      render "$HERE/syslog-ng.conf.in" "$dir/syslog-ng.conf" FILE="$LINES_FILE" URL="$SINK_URL" \
        WORKERS="$WORKERS" BATCH="$BATCH" BATCH_BYTES=5000000 WINDOW="$WINDOW"
      syslog-ng -F -f "$dir/syslog-ng.conf" -R "$dir/syslog-ng.persist" -p "$dir/syslog-ng.pid" \
        -c "$dir/syslog-ng.ctl" >"$dir/shipper.out" 2>"$dir/shipper.err" &
      ;;
    rsyslog)
      mkdir -p "$dir/rsyslog-work"
      render "$HERE/rsyslog.conf.in" "$dir/rsyslog.conf" FILE="$LINES_FILE" \
        PORT="${SINK_URL##*:}" WORKERS="$WORKERS" BATCH="$BATCH" WINDOW="$WINDOW" WORKDIR="$dir/rsyslog-work"
      "$RSYSLOGD" -n -f "$dir/rsyslog.conf" -i "$dir/rsyslog.pid" -M "$RSYSLOG_MODDIR" \
        >"$dir/shipper.out" 2>"$dir/shipper.err" &
      ;;
  esac
  SHIP_PID=$!
}

# Appends one CSV row; prints the status to stderr. Sets RUN_STATUS.
run_one() {
  local s="$1" n="$2"
  local dir="$WORK/$s-$n"
  rm -rf "$dir"
  mkdir -p "$dir"
  start_sink "$dir"
  cat "$LINES_FILE" >/dev/null # same warm page cache for every shipper
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  local t0 t1 docs=0 stats="" ticks="" rss="" status="ok"
  t0=$(date +%s%N)
  start_shipper "$s" "$dir"
  local deadline=$((t0 + TIMEOUT * 1000000000))
  while :; do
    stats=$(sink_stats)
    docs=$(stat_docs "$stats")
    docs=${docs:-0}
    if ((docs >= LINES)); then
      t1=$(date +%s%N)
      # Read before stopping: the exit path is not part of shipping.
      ticks=$(cpu_ticks "$SHIP_PID")
      rss=$(peak_rss_kb "$SHIP_PID")
      break
    fi
    if ! kill -0 "$SHIP_PID" 2>/dev/null; then
      wait "$SHIP_PID" 2>/dev/null || true
      if grep -q 'not available' "$dir/shipper.err"; then
        status="not available"
      else
        status="exited early"
      fi
      break
    fi
    if (($(date +%s%N) > deadline)); then
      status="timeout ($docs of $LINES docs)"
      break
    fi
    sleep 0.05
  done
  stop_pid "$SHIP_PID"
  SHIP_PID=""
  # Anything that arrives after the count was reached (duplicates) or was refused shows here.
  stats=$(sink_stats)
  stop_pid "$SINK_PID"
  SINK_PID=""
  echo "$stats" >"$dir/sink-stats.json"
  local final
  final=$(stat_docs "$stats")
  RUN_STATUS="$status"
  if [[ "$status" != ok ]]; then
    log "$s run $n: $status"
    sed 's/^/    /' "$dir/shipper.err" | tail -5 >&2
    printf '%s,%s,%s,%s,,,,,,%s,%s\n' "$s" "$n" "$LINES" "\"$status\"" "${final:-0}" "$load" >>"$CSV"
    return 0
  fi
  if [[ "$stats" != *'"items_by_status":{"201":'"$final"'}'* ]]; then
    log "$s run $n: warning: the sink refused items: $stats"
  fi
  ((final == LINES)) || log "$s run $n: warning: $final documents for $LINES lines"
  local tck
  tck=$(getconf CLK_TCK)
  awk -v s="$s" -v n="$n" -v lines="$LINES" -v t0="$t0" -v t1="$t1" -v ticks="$ticks" \
    -v tck="$tck" -v rss="$rss" -v final="$final" -v load="$load" 'BEGIN {
      wall = (t1 - t0) / 1e9; cpu = ticks / tck
      printf "%s,%d,%d,ok,%.3f,%.0f,%.2f,%.3f,%.1f,%d,%s\n", s, n, lines, wall, lines / wall,
        cpu, cpu * 1e6 / lines, rss / 1024, final, load }' >>"$CSV"
  log "$s run $n: $(tail -1 "$CSV")"
}

# ---------------------------------------------------------------------------------------

setup
mkdir -p "$OUT"
WORK="$CACHE/work"
rm -rf "$WORK"
mkdir -p "$WORK"
CSV="$OUT/race-$LINES.csv"
echo "shipper,run,lines,status,wall_s,events_per_s,cpu_s,cpu_us_per_event,peak_rss_mb,docs,load1" >"$CSV"
log "tern: $TERN_BIN ($("$TERN_BIN" --version 2>/dev/null | head -1))"
log "file: $LINES_FILE ($LINES lines, $(stat -c %s "$LINES_FILE") bytes); $RUNS runs each"
for s in "${SHIPPER_LIST[@]}"; do
  for ((n = 1; n <= RUNS; n++)); do
    run_one "$s" "$n"
    # A variant that is not in this build stays unavailable: no point in asking again.
    [[ "$RUN_STATUS" == "not available" ]] && break
  done
done

versions="tern $("$TERN_BIN" --version 2>/dev/null | head -1 | awk '{print $NF}')"
command -v syslog-ng >/dev/null && versions+=", syslog-ng $(syslog-ng --version | sed -n 's/^Installer-Version: //p')"
[[ -x "$RSYSLOGD" ]] && versions+=", rsyslog $("$RSYSLOGD" -v | sed -n '1s/^rsyslogd  *\([^ ,]*\).*/\1/p')"
"$PYTHON" "$HERE/report.py" "$CSV" "$OUT/race-$LINES.md" "$OUT/race-$LINES.dat" \
  "$(date -u +%Y-%m-%d) on $(nproc) cores, $versions; command: \`$CMDLINE\`"
if [[ -s "$OUT/race-$LINES.dat" ]]; then
  gnuplot -e "datafile='$OUT/race-$LINES.dat'; outfile='$OUT/race-$LINES.png'; lines='$LINES'" \
    "$HERE/chart.gp"
  rm -f "$OUT/race-$LINES.dat"
fi
cat "$OUT/race-$LINES.md"
log "wrote $CSV, $OUT/race-$LINES.md, $OUT/race-$LINES.png"
rm -rf "$WORK"
