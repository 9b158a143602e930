#!/usr/bin/env python3
"""A/B two builds of a Google Benchmark binary on a noisy machine.

The shared 2-core hosts this project is measured on change speed by 1.5-3x within minutes,
so two numbers taken a minute apart say little. This runs the two binaries alternately,
round after round, on the same benchmarks, and reports per round the median of each
binary's repetitions and their ratio; a change is real when B wins in (nearly) every round.

  bench/ab.py OLD_BINARY NEW_BINARY --filter 'Encode/logs/direct/xlarge' [--rounds 6]
              [--repetitions 5] [--min-time 0.2] [--counter events_per_second] [--simultaneous]

Each round runs A then B (B then A on odd rounds, so neither always goes first). With
--simultaneous both run at the same time, each pinned to its own core (taskset), the cores
swapped every round: both then see the same host noise, which a sequential A/B does not
cancel (on the 2-core hosts, sequential rounds of the same binary differed by 5 % where
simultaneous ones differed by 3 %). Needs only python3 (and taskset for --simultaneous); the
binaries must accept --benchmark_format=json.
"""
import argparse
import json
import statistics
import subprocess
import sys


def command(binary, args):
    return [binary, f"--benchmark_filter={args.filter}", f"--benchmark_min_time={args.min_time}",
            f"--benchmark_repetitions={args.repetitions}", "--benchmark_format=json"]


def run(binary, args):
    return medians(subprocess.run(command(binary, args), check=True, capture_output=True, text=True).stdout, args)


def run_together(a, b, swap, args):
    """A and B at once, on cores 0 and 1 (1 and 0 when `swap`)."""
    cores = ("1", "0") if swap else ("0", "1")
    procs = [subprocess.Popen(["taskset", "-c", core] + command(binary, args), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for core, binary in zip(cores, (a, b))]
    outs = [p.communicate()[0] for p in procs]
    for p in procs:
        if p.returncode:
            raise subprocess.CalledProcessError(p.returncode, p.args)
    return {"A": medians(outs[0], args), "B": medians(outs[1], args)}


def medians(out, args):
    values = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration" or args.counter not in b:
            continue
        values.setdefault(b["run_name"], []).append(float(b[args.counter]))
    return {name: statistics.median(v) for name, v in values.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="baseline binary")
    p.add_argument("b", help="candidate binary")
    p.add_argument("--filter", required=True, help="--benchmark_filter regex")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--min-time", default="0.2")
    p.add_argument("--counter", default="events_per_second", help="a user counter (higher is better)")
    p.add_argument("--simultaneous", action="store_true", help="run A and B at once, one core each")
    args = p.parse_args()

    wins, ratios = {}, {}
    for r in range(args.rounds):
        if args.simultaneous:
            got = run_together(args.a, args.b, r % 2 == 1, args)
        else:
            order = [("A", args.a), ("B", args.b)] if r % 2 == 0 else [("B", args.b), ("A", args.a)]
            got = {label: run(binary, args) for label, binary in order}
        for name in sorted(got["A"]):
            if name not in got["B"]:
                continue
            a, b = got["A"][name], got["B"][name]
            ratio = b / a if a else float("nan")
            ratios.setdefault(name, []).append(ratio)
            wins[name] = wins.get(name, 0) + (b > a)
            print(f"round {r + 1}: {name}: A {a:,.0f}  B {b:,.0f}  B/A {ratio:.3f}", flush=True)
    print()
    for name, rs in ratios.items():
        print(f"{name}: B/A median {statistics.median(rs):.3f} (min {min(rs):.3f}, max {max(rs):.3f}), "
              f"B ahead in {wins[name]} of {len(rs)} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
