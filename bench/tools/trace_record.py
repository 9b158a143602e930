#!/usr/bin/env python3
"""Follows one log record through the encoder's record loop, instruction by instruction.

  bench/tools/trace_record.py BUILD/bin/tern-bench-encoding OUT.txt

Runs `Encode/logs/direct/xlarge` under gdb, stops at the record loop's head (the
`severity_text.size() <= 256` test of `Encoder::encode_scope_logs_otel`) after 2,000
records, single-steps to the next record and writes the executed instructions to OUT.txt
(and OUT.txt.s, as assembly). Prints what the front end of a core sees for that record:
instructions, taken branches, distinct 64- and 32-byte fetch windows per run of straight
code, and llvm-mca's cycle estimate for the sequence (Zen 3 model: `-mcpu=znver3`).

A probe for layout questions on machines without hardware counters (needs gdb and
llvm-mca: `apt-get install gdb llvm`). On the 2026-12-06 Zen 4 host none of these numbers
predicted which of two builds was faster (docs/benchmarks.md): measure time with
bench/ab.py.
"""
import os
import re
import subprocess
import sys


def main():
    binary, out = sys.argv[1], sys.argv[2]
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    fn, lines = None, []
    for line in dis:
        m = re.match(r"^([0-9a-f]+) <tern::encoding::es::Encoder::encode_scope_logs_otel", line)
        if m and "clone" not in line:
            fn = int(m.group(1), 16)
            continue
        if fn is not None:
            if not line.strip():
                break
            lines.append(line)
    if fn is None:
        sys.exit("encode_scope_logs_otel not found")
    candidates = [int(l.split(":")[0], 16) for l in lines if re.search(r"cmp\s+\$0x100,%r", l)]

    def trace(head):
        script = f"""set pagination off
set confirm off
set breakpoint pending on
python
import gdb
gdb.execute("break tern::encoding::es::Encoder::encode_scope_logs_otel")
gdb.execute("run --benchmark_filter='^Encode/logs/direct/xlarge$' --benchmark_min_time=0.01 > /dev/null")
sym = int(gdb.parse_and_eval("(long)&'tern::encoding::es::Encoder::encode_scope_logs_otel'"))
loop = sym - {fn} + {head}
gdb.execute("delete")
gdb.execute("break *%d" % loop)
gdb.execute("ignore 2 2000")
gdb.execute("continue")
o = open('{out}', 'w')
for i in range(5000):
    gdb.execute("stepi", to_string=True)
    pc = int(gdb.parse_and_eval("$pc"))
    o.write(gdb.execute("x/i $pc", to_string=True))
    if pc == loop:
        break
o.close()
gdb.execute("kill")
end
"""
        with open(out + ".gdb", "w") as f:
            f.write(script)
        if os.path.exists(out):
            os.remove(out)
        subprocess.run(["timeout", "120", "gdb", "-q", "-batch", "-x", out + ".gdb", binary],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return [l for l in open(out) if "0x" in l] if os.path.exists(out) else []

    executed = []
    for head in candidates:  # the loop's head is the candidate reached once per record
        executed = trace(head)
        if 300 < len(executed) < 3000:
            break
    if not executed:
        sys.exit("no record traced")
    addrs = [int(re.search(r"(0x[0-9a-f]+)", l).group(1), 16) for l in executed]
    runs, run = [], [addrs[0]]
    for a, b in zip(addrs, addrs[1:]):
        if b <= a or b > a + 15:  # a taken branch
            runs.append(run)
            run = [b]
        else:
            run.append(b)
    runs.append(run)
    windows = lambda shift: sum(len({a >> shift for a in r}) for r in runs)
    asm = [re.sub(r"\s+#.*$", "", re.sub(r" <[^>]*>$", "", re.sub(r"^(=> )?0x[0-9a-f]+( <[^>]*>)?:\s*", "",
                                                                   l.strip()))) for l in executed]
    with open(out + ".s", "w") as f:
        f.write("\n".join(asm) + "\n")
    mca = subprocess.run(["llvm-mca", "-mcpu=znver3", "-iterations=200", out + ".s"], capture_output=True,
                         text=True).stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", mca).group(1)) / 200
    uops = int(re.search(r"Total uOps:\s+(\d+)", mca).group(1)) / 200
    print(f"instructions {len(addrs)}  taken branches {len(runs) - 1}  64-byte windows {windows(6)}  "
          f"32-byte windows {windows(5)}  llvm-mca cycles {cycles:.1f}  uops {uops:.0f}")


if __name__ == "__main__":
    main()
