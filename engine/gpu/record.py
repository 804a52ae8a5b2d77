"""Record on an NVIDIA GPU every CUDA snippet whose recording is missing or stale.

Usage: python -m engine.gpu.record [--all] [--dry-run] [--only TEXT] [--jobs N]
Needs only Python and a CUDA build of torch: no docs stack.

A recording cannot be spoiled by the machine that makes it: a snippet that declares more GPUs or more
memory per GPU than the machine has (`GPUS = 2`, `GPU_MEMORY_GIB = 100`) is skipped, a current recording
made with more GPU memory is never replaced by one made with less (a stale one is: it shows what the code
no longer prints), an output that shows the environment failing (a CUDA error, an invalid device
ordinal, an out-of-memory, a rank that never started or never finished) is reported and not written, and
so is one that breaks a claim. A call whose output holds a verdict (it reads a clock, or compiles) runs
twice, and a claim that holds on one run and not on the other refuses the recording, naming the verdict
that moved. Independent recordings run side by side in four lanes, given to the GPUs in
turn; a call that reads a clock, or needs several GPUs, runs with nothing beside it (engine/run/schedule.py).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import sys
import time
import traceback
from functools import partial
from pathlib import Path

from engine.source import claims
from engine.gpu import recordings
from engine.run import schedule
from engine.source.includes import page_includes
from engine.run.forkserver import ForkServer
from engine.run.runner import child_env, mask_addresses
from engine.run.schedule import ALONE, Job
from engine.source.sources import Declarations, compiles, declarations, measures_time, module_name, snippet_path

ROOT = Path(__file__).resolve().parents[2]
# What an output shows when the machine, not the snippet, failed.
ENVIRONMENT_FAILURES = re.compile(
    r"CUDA error|invalid device ordinal|out of memory|OutOfMemoryError|NCCL error|ncclInternalError"
    r"|ncclSystemError|ncclUnhandledCudaError|CUBLAS_STATUS_(?!SUCCESS)|cudaError|device-side assert"
    r"|no kernel image|no CUDA GPUs are available|never started|did not start|did not finish",
    re.IGNORECASE)
MEMORY_TOLERANCE = 0.95  # two boards of one model report slightly different totals
LANES = 4  # calls that share the GPUs (none of them reads a clock)


def cuda_calls(root: Path) -> list[tuple[Path, str]]:
    """(snippet file, function) for every CUDA snippet call whose recording a page shows: the calls pages
    include, and those whose recordings an included snippet reads (a page showing a recording folded)."""
    found = set()
    for page in sorted((root / "docs").rglob("*.md")):
        for include in page_includes(page.read_text(encoding="utf-8")):
            path = snippet_path(root, include.path)
            calls = [(path, include.call)] if include.call else []
            found.update((p, call) for p, call in calls + recordings.read_calls(root, path)
                         if "cuda" in declarations(p).devices)
    return sorted(found)


def provenance() -> dict[str, str]:
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = "absent"
    return {
        "gpu": torch.cuda.get_device_name(0),
        "gpu_count": str(torch.cuda.device_count()),
        "gpu_memory_gib": f"{torch.cuda.get_device_properties(0).total_memory / 2**30:.1f}",
        "torch": torch.__version__,
        "triton": triton_version,
        "cuda": str(torch.version.cuda),
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def lacking(needs: Declarations, machine: dict[str, str], recorded: dict[str, str] | None,
            stale: bool = False) -> str | None:
    """Why this machine must not record the call, or None: it has fewer GPUs than the snippet declares
    (GPUs beyond those, which the call never uses, do not count) or less memory per GPU
    (GPU_MEMORY_GIB); or the recording is current and was made with more memory per GPU than this
    machine has. A stale recording shows what the code no longer prints: any machine that meets what the
    snippet declares replaces it (the label names the GPU that made it)."""
    gpus, memory = int(machine["gpu_count"]), float(machine.get("gpu_memory_gib") or 0)
    if gpus < needs.gpus:
        return f"needs {needs.gpus} GPUs (GPUS = {needs.gpus}), this machine has {gpus}"
    if memory and memory < needs.gpu_memory_gib:
        return (f"needs {needs.gpu_memory_gib:g} GiB per GPU (GPU_MEMORY_GIB), this machine's {machine['gpu']} "
                f"has {memory:g} GiB")
    if recorded is None or stale:
        return None
    memory_before = recorded.get("gpu_memory_gib")
    if memory and memory_before and memory < MEMORY_TOLERANCE * float(memory_before):
        return (f"the recording was made on {recorded['gpu']} with {memory_before} GiB per GPU, "
                f"this machine's {machine['gpu']} has {machine['gpu_memory_gib']} GiB; it is current, so it is kept")
    return None


def environment_failure(output: str) -> str | None:
    """The first line of an output that shows the environment failing, or None."""
    for line in output.splitlines():
        if ENVIRONMENT_FAILURES.search(line):
            return line.strip()
    return None


def verdict(path: Path, call: str, runs: list[tuple[str, bool, str | None]], info: dict[str, str]) -> str | None:
    """None when the output of the first run may be written; otherwise the report of why not. `runs` holds
    (output, ok, error) of each run of the call."""
    for output, ok, error in runs:
        failure = environment_failure(output + "\n" + (error or ""))
        if failure:
            return (f"NOT RECORDED: the output shows the environment failing ({failure})"
                    f"\n--- output ---\n{output}{error or ''}")
        if not ok:
            return f"FAILED\n{output}\n{error}"
    false = [claims.check(path, call, claims.Output(output, "cuda", info)) for output, _, _ in runs]
    moved = sorted({line for lines in false for line in lines} - set.intersection(*map(set, false)))
    if moved:
        held = [", ".join(str(i + 1) for i, lines in enumerate(false) if line not in lines) for line in moved]
        return (f"NOT RECORDED: a verdict moved between its {len(runs)} runs\n"
                + "\n".join(f"{line.partition(' is false against')[0]} held on run {runs_held} only"
                             for line, runs_held in zip(moved, held, strict=True))
                + "".join(f"\n--- output of run {i + 1} ---\n{output}" for i, (output, _, _) in enumerate(runs)))
    if false[0]:
        return ("NOT RECORDED: its output breaks what the pages say\n" + "\n".join(false[0])
                + f"\n--- output ---\n{runs[0][0]}")
    return None


def runs_needed(root: Path, path: Path, call: str) -> int:
    """Two runs for a call whose output holds a verdict its claims read (it reads a clock, or compiles:
    a timing comparison, an autotuner's pick, a tolerance check of compiled code), else one."""
    return 2 if claims.claims(path, call) and (measures_time(root, path) or compiles(root, path)) else 1


class Recorder:
    """Runs the calls in lanes (engine/run/schedule.py) and writes the recordings that pass every check."""

    def __init__(self, root: Path, info: dict[str, str], lanes: int):
        self.root, self.info, self.lanes = root, info, lanes
        self.failed = 0

    def record(self, server: ForkServer, path: Path, call: str, lane: int | None):
        """Run the call (twice where its output holds a verdict) on the lane's GPU, every GPU for a call run
        alone (lane None), waiting for each run without holding up the other lanes; then write its
        recording, or say why not."""
        name = f"{module_name(self.root, path)}.{call}()"
        gpus = int(self.info["gpu_count"])
        env = {"CUDA_VISIBLE_DEVICES": str(lane % gpus)} if gpus > 1 and lane is not None else {}
        start = time.monotonic()
        try:
            runs = []
            for _ in range(runs_needed(self.root, path, call)):
                running = server.submit(module_name(self.root, path), call, declarations(path).timeout * 3, env)
                yield running
                result = running.result()
                runs.append((mask_addresses(result.output), result.ok, result.error))
            report = verdict(path, call, runs, self.info)
            if report is None:
                recordings.save(self.root, path, call, runs[0][0], self.info)
        except Exception:  # noqa: BLE001 - a server that died, a recording not written: counted, not fatal
            report = f"ENGINE ERROR\n{traceback.format_exc()}"
        seconds = time.monotonic() - start
        if report is None:
            runs_said = f" ({len(runs)} runs, the same verdicts)" if len(runs) > 1 else ""
            print(f"recorded {name} in {seconds:.0f} s{runs_said}", flush=True)
        else:
            self.failed += 1
            print(f"{name} ({seconds:.0f} s): {report}", flush=True)

    def run(self, calls: list[tuple[Path, str]], env: dict[str, str]) -> None:
        """Calls that share: `lanes` at a time, each lane on one GPU (round robin); then each call
        that reads a clock or needs several GPUs, alone, with every GPU visible. Every call is a fork of one
        server that has imported torch, and Dynamo when a call may compile (engine/run/forkserver.py), or a
        fresh interpreter where forking is not safe."""
        if not calls:
            return
        alone = [c for c in calls if measures_time(self.root, c[0]) or declarations(c[0]).gpus > 1]
        shared = [c for c in calls if c not in alone]
        server = ForkServer(self.root, env, any(compiles(self.root, path) for path, _ in calls))
        try:
            print("calls run as " + ("forks of a server that has imported torch" if server.forks
                                     else "fresh interpreters (forking is not safe here)"), flush=True)
            jobs = [Job(f"{module_name(self.root, path)}.{call}", partial(self.record, server, path, call),
                        frozenset({ALONE}) if (path, call) in alone else frozenset()) for path, call in calls]
            schedule.run(jobs, min(self.lanes, len(shared)))
        finally:
            server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="re-record current recordings too")
    parser.add_argument("--dry-run", action="store_true", help="list what would be recorded")
    parser.add_argument("--only", default="", help="record only modules whose name contains this")
    parser.add_argument("--jobs", type=int, default=LANES, help=f"lanes of calls side by side, given to the "
                                                                f"GPUs in turn (default: {LANES})")
    args = parser.parse_args(argv)
    started = time.monotonic()
    todo = [(p, c) for p, c in cuda_calls(ROOT)
            if (args.all or recordings.stale_reason(ROOT, p, c)) and args.only in module_name(ROOT, p)]
    print(f"{len(todo)} recording(s) to make", flush=True)
    if args.dry_run or not todo:
        for path, call in todo:
            print(f"  {module_name(ROOT, path)}.{call}()")
        return 0
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: run `make record` on a machine with an NVIDIA GPU", file=sys.stderr)
        return 2
    info = provenance()
    allowed = []
    for path, call in todo:
        recorded = recordings.load(ROOT, path, call)
        reason = lacking(declarations(path), info, recorded.provenance if recorded else None,
                         stale=recordings.stale_reason(ROOT, path, call) is not None)
        if reason:
            print(f"skipped {module_name(ROOT, path)}.{call}(): {reason}; its recording is left as it is", flush=True)
        else:
            allowed.append((path, call))
    env = child_env(ROOT)
    env.pop("TRITON_INTERPRET", None)
    gpus = int(info["gpu_count"])
    recorder = Recorder(ROOT, info, args.jobs)
    recorder.run(allowed, env)
    print(f"{len(allowed) - recorder.failed} recorded, {recorder.failed} not, {len(todo) - len(allowed)} skipped, "
          f"in {time.monotonic() - started:.0f} s on {gpus} x {info['gpu']}", flush=True)
    return 1 if recorder.failed else 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
