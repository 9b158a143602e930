#!/usr/bin/env python3
"""Writes N JSON-ish log lines of ~215 bytes each (deterministic) for bench/peers/race.sh.

Usage: genlines.py N OUT   (writes OUT atomically: OUT.tmp, then rename)
"""
import os
import random
import sys

TARGET = 215  # bytes per line without the newline, padded to this

SERVICES = ["checkout", "cart", "payment", "search", "auth", "catalog"]
LEVELS = ["info"] * 7 + ["debug", "warn", "error"]
PATHS = ["/api/v1/cart", "/api/v1/checkout", "/api/v1/items", "/login", "/search"]
METHODS = ["GET", "POST", "PUT"]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: genlines.py N OUT")
    n = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(42)  # fixed seed: every run ships the same bytes
    base = 1_764_748_800  # 2025-12-03T08:00:00Z, a fixed start so the file is reproducible
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="ascii", buffering=1 << 20) as f:
        for i in range(n):
            t = base + i // 1000
            ms = i % 1000
            hh, rem = divmod(t % 86400, 3600)
            mm, ss = divmod(rem, 60)
            ts = "2025-12-03T%02d:%02d:%02d.%03dZ" % (hh, mm, ss, ms)
            line = (
                '{"ts":"%s","level":"%s","service":"%s","msg":"%s %s/%d %d %dms",'
                '"user_id":%d,"request_id":"%032x","seq":%d'
                % (
                    ts,
                    rng.choice(LEVELS),
                    rng.choice(SERVICES),
                    rng.choice(METHODS),
                    rng.choice(PATHS),
                    rng.randrange(100000),
                    rng.choice((200, 200, 200, 201, 404, 500)),
                    rng.randrange(1, 900),
                    rng.randrange(1, 10_000_000),
                    rng.getrandbits(128),
                    i,
                )
            )
            pad = TARGET - len(line) - len(',"pad":""}')
            line += ',"pad":"%s"}' % ("x" * max(pad, 0))
            f.write(line)
            f.write("\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
