"""The same patterns on two GPUs with NCCL, now with the time of a training step."""

from __future__ import annotations

import torch

from snippets.phase25.distributed.compare import PATTERNS, compare_rank, format_table, rows, verdicts
from snippets.phase25.distributed.launch import RankFailed, run_ranks

DEVICES = ("cuda",)
GPUS = 2
ISOLATE = True
TIMEOUT = 300
TIMED_STEPS = 20
PATTERN_TIMEOUT = 45  # seconds for one pattern's group, NCCL start-up included


def run_patterns() -> tuple[list[dict], dict[str, str]]:
    """Each pattern in its own 2-GPU NCCL group: the results of those that finished, and why the others did not."""
    ranks, failed = [{}, {}], {}
    for name in PATTERNS:
        try:
            for mine, result in zip(ranks, run_ranks(compare_rank, world_size=2, backend="nccl",
                                                     timeout=PATTERN_TIMEOUT, timed_steps=TIMED_STEPS,
                                                     names=(name,))):
                mine.update(result)
        except RankFailed as error:
            failed[name] = str(error).replace("\n", "; ")
    return ranks, failed


def main():
    ranks, failed = run_patterns()
    finished = tuple(name for name in PATTERNS if name not in failed)
    print(f"One training step on 2 x {torch.cuda.get_device_name(0)} with NCCL; batches of 8 and 64 sequences "
          f"of 16 tokens; bytes each rank sends; median step time of {TIMED_STEPS} steps, slowest rank")
    table = rows(ranks, names=finished)
    print(format_table(table, times=True))
    if "DDP" in finished:
        print("\n".join(verdicts(table)))
    for name, reason in failed.items():
        print(f"{name} did not finish on NCCL: {reason}")


def claim_same_counts_and_bytes(main):
    """#nccl: The counts and bytes come from the same code as the CPU table: DDP's one all-reduce carries four bytes per parameter, DDP's and FSDP's bytes do not change with the batch, and both pipeline schedules have their rows."""
    rows = {line[:9].strip(): line[9:].split() for line in main.between("pattern ", "DDP gradients").lines}
    ddp = [int(v.replace(",", "")) for v in rows["DDP"] if "," in v and v.replace(",", "").isdigit()]
    fsdp = [int(v.replace(",", "")) for v in rows["FSDP2"] if "," in v and v.replace(",", "").isdigit()]
    return (set(rows) == {"DDP", "FSDP2", "TP", "PP GPipe", "PP 1F1B"} and ddp[1] == ddp[2] == 4 * ddp[0]
            and fsdp[1] == fsdp[2] and all(float(cells[-1]) < 1e-6 for cells in rows.values()))


def claim_ddp_fastest_step(main):
    """#pick: the GPU step times below show the price of the extra calls: DDP has the shortest step at both batch
    sizes, and by far (one run prints no spread, so every other step must take over 1.5 times DDP's)."""
    rows = {line[:9].strip(): line[9:].split() for line in main.between("pattern ", "DDP gradients").lines}
    times = {name: (float(cells[-3]), float(cells[-2])) for name, cells in rows.items()}
    return all(times[name][i] > 1.5 * times["DDP"][i] for name in times if name != "DDP" for i in (0, 1))
