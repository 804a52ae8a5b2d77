"""The same comparison on two GPUs with NCCL, started by the same torchrun command, now with step times:
the spread of each pattern's steps, and each pattern's steps against DDP's."""

from __future__ import annotations

from snippets.phase25.distributed import compare, torchrun
from snippets.phase25.distributed.compare import BATCHES, rows
from snippets.timing import compare as versus
from snippets.timing import spread

DEVICES = ("cuda",)
GPUS = 2
ISOLATE = True
TIMEOUT = 300
TIMED_STEPS = 20
DEADLINE = 240  # seconds for the torchrun command, NCCL's start-up included


def spreads(table: list[dict]) -> list[str]:
    """Each pattern's spread of its timed steps, (max - min) / median, at each batch size."""
    return [f"{row['pattern']:<9} " + ", ".join(f"@{batch}: {spread(row['step_ms'][batch]):.1%}" for batch in BATCHES)
            for row in table]


def against_ddp(table: list[dict]) -> list[str]:
    """Each pattern's timed steps against DDP's, at each batch size: a gap within the spread is a tie."""
    by_name = {row["pattern"]: row["step_ms"] for row in table}
    return [f"@{batch}: {versus({'DDP': by_name['DDP'][batch], name: times[batch]}, 'DDP', name)}"
            for batch in BATCHES for name, times in by_name.items() if name != "DDP"]


def main():
    output, results = torchrun.measure(compare.__name__, "--timed-steps", TIMED_STEPS, deadline=DEADLINE)
    table = rows(results)
    print(output)
    print(f"spread of each pattern's {TIMED_STEPS} timed steps, slowest rank ((max - min) / median):")
    print("\n".join(f"  {line}" for line in spreads(table)))
    print(f"step times against DDP's ({TIMED_STEPS} steps each; a gap within the larger spread, or under 1%, is a tie):")
    print("\n".join(f"  {line}" for line in against_ddp(table)))


def claim_started_by_torchrun(main):
    """#nccl: the same torchrun command, with --timed-steps 20 added; torchrun started 2 processes on one node, and each rank runs NCCL on a GPU of its own."""
    return (main.lines[0].startswith("$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare "
                                     "--timed-steps 20 --json ")
            and "over nccl (started by torchrun: 1 node x 2 processes per node)" in main.line("One training step on 2 x "))


def claim_same_counts_and_bytes(main):
    """#nccl: The counts and bytes come from the same code as the CPU table: DDP's one all-reduce carries four bytes per parameter, DDP's and FSDP's bytes do not change with the batch, and both pipeline schedules have their rows."""
    rows = {line[:9].strip(): line[9:].split() for line in main.between("pattern ", "DDP gradients").lines}
    ddp = [int(v.replace(",", "")) for v in rows["DDP"] if "," in v and v.replace(",", "").isdigit()]
    fsdp = [int(v.replace(",", "")) for v in rows["FSDP2"] if "," in v and v.replace(",", "").isdigit()]
    return (set(rows) == {"DDP", "FSDP2", "TP", "PP GPipe", "PP 1F1B"} and ddp[1] == ddp[2] == 4 * ddp[0]
            and fsdp[1] == fsdp[2] and all(float(cells[-1]) < 1e-6 for cells in rows.values()))


def claim_every_spread_printed(main):
    """#nccl: the lines after the report give the spread of each pattern's twenty steps at each batch size."""
    lines = main.between("spread of each pattern's 20 timed steps", "step times against DDP's").lines
    return len(lines) == 5 and all(re.fullmatch(r"\s+\S+( \S+)?\s+@8: [\d.]+%, @64: [\d.]+%", line) for line in lines)


def claim_batch_far_from_eightfold(main):
    """#nccl: although the batch grows eightfold, no pattern's median step takes even twice as long at 64 sequences as at 8."""
    rows = [line.split() for line in main.between("pattern ", "DDP gradients").lines if line.strip()]
    ratios = [float(row[-2]) / float(row[-3]) for row in rows]
    return len(ratios) == 5 and max(ratios) < 2


def claim_no_pattern_beats_ddp(main):
    """#pick: the GPU step times below show what the extra calls cost there: no pattern's step is shorter than DDP's by more than the run's spread."""
    lines = main.between("step times against DDP's").lines
    return len(lines) == 8 and all(" tie (" in line or ": DDP is " in line for line in lines)
