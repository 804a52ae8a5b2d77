"""The same patterns on two GPUs with NCCL, now with the time of a training step."""

from __future__ import annotations

import torch

from snippets.phase25.distributed.compare import BATCHES, PATTERNS, compare_rank, format_table, rows, verdicts
from snippets.phase25.distributed.launch import RankFailed, run_ranks
from snippets.timing import compare

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


def against_ddp(table: list[dict]) -> list[str]:
    """Each pattern's timed steps against DDP's, at each batch size: a gap within the spread is a tie."""
    by_name = {row["pattern"]: row["step_ms"] for row in table}
    return [f"@{batch}: {compare({'DDP': by_name['DDP'][batch], name: times[batch]}, 'DDP', name)}"
            for batch in BATCHES for name, times in by_name.items() if name != "DDP"]


def main():
    ranks, failed = run_patterns()
    finished = tuple(name for name in PATTERNS if name not in failed)
    print(f"One training step on 2 x {torch.cuda.get_device_name(0)} with NCCL; batches of 8 and 64 sequences "
          f"of 16 tokens; bytes each rank sends; median step time of {TIMED_STEPS} steps, slowest rank")
    table = rows(ranks, names=finished)
    print(format_table(table, times=True))
    if "DDP" in finished:
        print("\n".join(verdicts(table)))
        print(f"step times against DDP's ({TIMED_STEPS} steps each; spread = (max - min) / median):")
        print("\n".join(f"  {line}" for line in against_ddp(table)))
    for name, reason in failed.items():
        print(f"{name} did not finish on NCCL: {reason}")


def claim_same_counts_and_bytes(main):
    """#nccl: The counts and bytes come from the same code as the CPU table: DDP's one all-reduce carries four bytes per parameter, DDP's and FSDP's bytes do not change with the batch, and both pipeline schedules have their rows."""
    rows = {line[:9].strip(): line[9:].split() for line in main.between("pattern ", "DDP gradients").lines}
    ddp = [int(v.replace(",", "")) for v in rows["DDP"] if "," in v and v.replace(",", "").isdigit()]
    fsdp = [int(v.replace(",", "")) for v in rows["FSDP2"] if "," in v and v.replace(",", "").isdigit()]
    return (set(rows) == {"DDP", "FSDP2", "TP", "PP GPipe", "PP 1F1B"} and ddp[1] == ddp[2] == 4 * ddp[0]
            and fsdp[1] == fsdp[2] and all(float(cells[-1]) < 1e-6 for cells in rows.values()))


def claim_no_pattern_beats_ddp(main):
    """#pick: the GPU step times below show what the extra calls cost there: no pattern's step is shorter than DDP's by more than the run's spread."""
    lines = main.between("step times against DDP's").lines
    return len(lines) == 8 and all(" tie (" in line or ": DDP is " in line for line in lines)


def claim_batch_moves_less_than_the_gaps(main):
    """#nccl: Going from 8 to 64 sequences changes each pattern's step time by less than half the smallest gap
    between DDP and another pattern."""
    rows = [line.split() for line in main.between("pattern ", "DDP gradients").lines if line.strip()]
    changes = [max(t8, t64) / min(t8, t64) - 1 for t8, t64 in (map(float, row[-3:-1]) for row in rows)]
    gaps = [float(g) / 100 for g in re.findall(r"DDP is ([\d.]+)% faster", main.between("step times against DDP's").text)]
    return len(changes) == 5 and len(gaps) == 8 and max(changes) < min(gaps) / 2