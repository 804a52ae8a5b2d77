"""What torchrun does when a demo goes wrong: a rank that raises, a rank that never arrives, ranks that stall.

Run one case with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.faults CASE`.
"""

from __future__ import annotations

import sys
import time

import torch
import torch.distributed as dist

from snippets.phase25.distributed import ranks, torchrun

ISOLATE = True
TIMEOUT = 180
GROUP_TIMEOUT = 3  # seconds: how long rank 0 waits in the collective before the process group gives up


def crash(device: torch.device) -> dict:
    """Rank 1 raises while rank 0 is still busy with its step."""
    if dist.get_rank() == 1:
        raise ValueError("rank 1 fails on purpose")
    time.sleep(60)
    return {}


def hang(device: torch.device) -> dict:
    """Rank 1 never reaches the collective that rank 0 waits in."""
    if dist.get_rank() == 1:
        time.sleep(60)
    dist.barrier()
    return {}


def stall(device: torch.device) -> dict:
    """Both ranks are busy outside any collective, where no process group timeout can fire."""
    print(f"rank {dist.get_rank()} stalls\n", end="", flush=True)  # one write: lines of two ranks never mix
    time.sleep(600)
    return {}


CASES = {"crash": crash, "hang": hang, "stall": stall}


def main():
    print(torchrun.run(torchrun.standalone(__name__, "crash")))
    print()
    print(torchrun.run(torchrun.standalone(__name__, "hang")))


if __name__ == "__main__":
    ranks.run(CASES[sys.argv[1]], lambda results: "every rank finished", timeout=GROUP_TIMEOUT)


def claim_each_run_starts_with_its_command(main):
    """#rank-fails: each output starts with the command that produced it."""
    return [line for line in main.lines if line.startswith("$ ")] == [
        "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.faults crash",
        "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.faults hang"]


def claim_the_failed_rank_prints_its_traceback_prefixed_by_its_rank(main):
    """#rank-fails: The rank that failed prints its traceback, prefixed by its rank."""
    return ("[rank1]: ValueError: rank 1 fails on purpose" in main.between("faults crash", "faults hang")
            and main.between("faults hang").count("[rank0]: RuntimeError:") == 1)


def claim_torchrun_stops_the_other_rank_and_faulthandler_shows_where(main):
    """#rank-fails: torchrun stops every other rank with SIGTERM; the stopped rank's faulthandler prints where it was: in the first run rank 0 inside crash, in the second rank 1 inside hang."""
    crash, hang = main.between("faults crash", "faults hang"), main.between("faults hang")
    return (crash.count("Sending process <pid of rank 0> closing signal SIGTERM") == 1
            and "in crash" in crash.between("closing signal SIGTERM").lines[1]
            and hang.count("Sending process <pid of rank 1> closing signal SIGTERM") == 1
            and "in hang" in hang.between("closing signal SIGTERM").lines[1])


def claim_failures_list_the_stopped_rank_and_root_cause_the_first(main):
    """#rank-fails: under Failures the ranks it stopped, exit code -15 (SIGTERM), and under Root Cause the rank that failed first, with its exception and the traceback @record wrote."""
    for run, stopped, failed, error in (("faults crash", 0, 1, "ValueError: rank 1 fails on purpose"),
                                        ("faults hang", 1, 0, "Timed out waiting")):
        part = main.between(run, "$ torchrun" if run.endswith("crash") else None)
        failures = part.between("Failures:", "Root Cause")
        root = part.between("Root Cause (first observed failure):", "====")
        if not (f"rank      : {stopped} (local_rank: {stopped})" in failures and "exitcode  : -15" in failures
                and f"rank      : {failed} (local_rank: {failed})" in root and error in root
                and f"error_file: <tmp>/attempt_0/{failed}/error.json" in root
                and "traceback : Traceback (most recent call last):" in root):
            return False
    return True


def claim_the_error_file_is_the_root_cause(main):
    """#rank-fails: the error file holds the exception's message, the traceback and a timestamp: the traceback the report printed for the root cause."""
    for run, error in (("faults crash", "ValueError: rank 1 fails on purpose"), ("faults hang", "Timed out waiting")):
        part = main.between(run, "$ torchrun" if run.endswith("crash") else None)
        content = part.between("The error file torchrun left in TORCHELASTIC_ERROR_FILE:")
        frames = re.findall(r'File "snippets/phase25/distributed/faults\.py", line \d+, in \w+', part.between("Root Cause", "====").text)
        stack = content.line('"py_callstack": ').strip().replace('\\"', '"')
        if not (error in content.line('"message": "') and content.line('"timestamp": ').strip() == '"timestamp": "<time>"'
                and len(frames) == 1 and frames[0] in stack and stack.startswith('"py_callstack": "Traceback') and error in stack):
            return False
    return True


def claim_the_hang_ends_with_the_group_timeout_in_barrier(main):
    """#rank-fails: Rank 0 waited in barrier; after the process group's timeout, three seconds here, the collective raised."""
    root = main.between("faults hang").between("Root Cause (first observed failure):")
    return "dist.barrier()" in root and "Timed out waiting 3000ms" in root


def claim_no_omp_notice(main):
    """#robustness: The build sets OMP_NUM_THREADS, so torchrun's notice about it is not in the CPU runs of this page."""
    return "Setting OMP_NUM_THREADS" not in main and main.lines[0].startswith("$ torchrun --standalone --nproc-per-node=2 ")
