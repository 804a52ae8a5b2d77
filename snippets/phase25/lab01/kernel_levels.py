"""The float32 sweep under two of ATen's CPU kernel levels: the same code, other last bits."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LEVELS = ("default", "avx2")
SWEEP = ("import json, torch; from snippets.phase25.lab01.float32_error import sweep; "
         "print(json.dumps({'level': torch.backends.cpu.get_cpu_capability(), 'rows': sweep()}))")


def sweep_at(level: str) -> dict:
    """float32_error.sweep() in a fresh interpreter whose ATen kernels are `level`'s: torch reads
    ATEN_CPU_CAPABILITY once, as it loads, so one process cannot show two levels."""
    env = {**os.environ, "ATEN_CPU_CAPABILITY": level}
    done = subprocess.run([sys.executable, "-c", SWEEP], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def cell(row: dict) -> str:
    return f"{row['where']:<16} {row['ulps']:>5.1f}  {'yes' if row['error'] <= 1e-7 else 'no':<3}"


def main():
    runs = {level: sweep_at(level) for level in LEVELS}
    print("the float32 sweep under two levels of ATen's CPU kernels, one fresh process each\n"
          "(ATEN_CPU_CAPABILITY, read as torch loads)")
    heads = [f"{level} (torch: {run['level']})" for level, run in runs.items()]
    print(("      " + "".join(f"{head:<33}" for head in heads)).rstrip())
    print(f"{'seed':>4}  " + f"{'largest error at':<16} {'ulps':>5}  {'<= 1e-7':<8} " * 2 + "differs")
    differing = 0
    for row_a, row_b in zip(*(run["rows"] for run in runs.values()), strict=True):
        differs = (row_a["where"], row_a["error"]) != (row_b["where"], row_b["error"])
        differing += differs
        print(f"{row_a['seed']:>4}  {cell(row_a)}      {cell(row_b)}      {'*' if differs else ''}".rstrip())
    print(f"rows that differ: {differing} of {len(runs[LEVELS[0]]['rows'])}")
    for level, run in runs.items():
        failing = [row["seed"] for row in run["rows"] if row["error"] > 1e-7]
        close = sum(row["all_close"] for row in run["rows"])
        print(f"{level}: seeds failing 1e-7: {failing}; assert_close holds on {close} of {len(run['rows'])}")


def claim_two_levels(main):
    """#float32: The same sweep, under two of those levels, each in a fresh process."""
    return "default (torch: DEFAULT)" in main and "avx2 (torch: AVX2)" in main


def claim_rows_moved(main):
    """#float32: The rows marked `*` moved: another worst entry, another count of ulps."""
    rows = [line.split() for line in main.lines if line[:4].strip().isdigit()]
    moved = [row for row in rows if row[-1] == "*"]
    return len(rows) == 10 and 0 < len(moved) < 10 and main.number("rows that differ:") == len(moved)


def claim_verdicts_stay(main):
    """#float32: under both levels the same single seed fails the 1e-7 test, and `assert_close` holds on every seed."""
    verdicts = [line for line in main.lines if ": seeds failing 1e-7:" in line]
    failing = {line.partition("failing 1e-7: ")[2].partition(";")[0] for line in verdicts}
    return (len(verdicts) == 2 and len(failing) == 1 and failing.pop().count(",") == 0
            and all(line.endswith("holds on 10 of 10") for line in verdicts))
