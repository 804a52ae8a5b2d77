"""The four patterns side by side: calls, bytes and parameters per rank for one training step.

Run it with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare [--timed-steps N]`.
"""

from __future__ import annotations

from collections import Counter
from statistics import median

import torch
import torch.distributed as dist

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.ddp import ddp_rank
from snippets.phase25.distributed.fsdp import fsdp_rank
from snippets.phase25.distributed.pipeline import pp_rank
from snippets.phase25.distributed.tensor_parallel import tp_rank

ISOLATE = True
TIMEOUT = 300
BATCHES = (8, 64)  # sequences of 16 tokens per step
PATTERNS = {
    "DDP": (ddp_rank, {}),
    "FSDP2": (fsdp_rank, {}),
    "TP": (tp_rank, {}),
    "PP GPipe": (pp_rank, {"schedule": "GPipe"}),
    "PP 1F1B": (pp_rank, {"schedule": "1F1B"}),
}


def compare_rank(device: torch.device, batches=BATCHES, timed_steps: int = 0, names=tuple(PATTERNS)) -> dict:
    """The named patterns (all by default) at every batch size, one after the other, in one process group;
    where they ran and how the ranks were started."""
    world = dist.get_world_size()
    where = f"{world} x {torch.cuda.get_device_name(device)}" if device.type == "cuda" else f"{world} CPU processes"
    return {"where": f"{where} over {dist.get_backend()}", "launched": ranks.launched(), "timed_steps": timed_steps} | {
        f"{name} @{batch}": PATTERNS[name][0](device, batch=batch, timed_steps=timed_steps, **PATTERNS[name][1])
            for batch in batches for name in names}


def rows(results: list[dict], batches=BATCHES, names=tuple(PATTERNS)) -> list[dict]:
    """One row per pattern, from every rank's results."""
    table = []
    for name in names:
        runs = {batch: [r[f"{name} @{batch}"] for r in results] for batch in batches}
        first = runs[batches[0]]
        calls = Counter()
        for key, n in first[0]["counts"].items():
            calls[key.split(":")[1]] += n
        table.append({
            "pattern": name,
            "params": max(r["params"] for r in first),
            "calls": dict(calls),
            "sent": {batch: max(r["sent"] for r in runs[batch]) for batch in batches},
            "grad_error": max(r["grad_error"] for batch in batches for r in runs[batch]),
            "identical": len({r.get("grad_digest") for r in first}) == 1 if "grad_digest" in first[0] else None,
            "step_ms": {batch: max((r["step_ms"] for r in runs[batch]), key=lambda t: median(t) if t else 0)
                        for batch in batches},  # each timed step of the slowest rank
        })
    return table


def crossover(row: dict, baseline: dict, batches=BATCHES) -> float | None:
    """Batch size (sequences) at which a row's bytes reach the baseline's, fitting bytes = a + b * batch."""
    (b0, b1), (y0, y1), (z0, z1) = batches, (row["sent"][b] for b in batches), (baseline["sent"][b] for b in batches)
    slope = (y1 - y0) / (b1 - b0) - (z1 - z0) / (b1 - b0)
    return None if slope <= 0 else b0 + (z0 - y0) / slope


def format_table(table: list[dict], batches=BATCHES, times: bool = False) -> str:
    """The comparison as aligned text."""
    header = f"{'pattern':<9} {'params/rank':>11}  {'calls per step (rank 0)':<31}" + "".join(
        f" {'sent/rank @' + str(b):>14}" for b in batches)
    if times:
        header += "".join(f" {'ms/step @' + str(b):>12}" for b in batches)
    lines = [header + f" {'max |grad err|':>15}"]
    for row in table:
        calls = ", ".join(f"{n} {kind}" for kind, n in row["calls"].items())
        line = f"{row['pattern']:<9} {row['params']:>11,}  {calls:<31}" + "".join(
            f" {row['sent'][b]:>14,}" for b in batches)
        if times:
            line += "".join(f" {median(row['step_ms'][b]):>12.2f}" for b in batches)
        lines.append(line + f" {row['grad_error']:>15.1e}")
    return "\n".join(lines)


def verdicts(table: list[dict], batches=BATCHES) -> list[str]:
    """What the numbers say, computed from them."""
    by_name = {row["pattern"]: row for row in table}
    ddp = by_name["DDP"]
    fewest = min(table, key=lambda row: sum(row["calls"].values()))
    lines = [f"DDP gradients bitwise identical on every rank: {ddp['identical']}",
             f"fewest calls per step: {fewest['pattern']} ({sum(fewest['calls'].values())})",
             f"fewest parameters per rank: {min(table, key=lambda row: row['params'])['pattern']}"]
    for row in table:
        if row is not ddp:
            grows = row["sent"][batches[-1]] > row["sent"][batches[0]]
            point = crossover(row, ddp, batches) if grows else None
            ratio = row["sent"][batches[0]] / ddp["sent"][batches[0]]
            lines.append(f"{row['pattern']}: {ratio:.2f} x DDP's bytes at {batches[0]} sequences; "
                         + ("they grow with the batch" if grows else "they do not depend on the batch")
                         + (f" and pass DDP's from about {point:.0f} sequences" if grows and point else ""))
    return lines


def report(results: list[dict], batches=BATCHES) -> str:
    """What rank 0 prints: the table, with median step times when steps were timed, and the verdicts."""
    steps = results[0]["timed_steps"]
    table = rows(results, batches)
    header = (f"One training step on {results[0]['where']} ({results[0]['launched']}); batches of "
              f"{' and '.join(map(str, batches))} sequences of 16 tokens; bytes each rank sends (ring algorithms)")
    if steps:
        header += f"; median step time of {steps} steps, slowest rank"
    return "\n".join([header, format_table(table, batches, times=bool(steps)), *verdicts(table, batches)])


def main():
    print(torchrun.run(torchrun.standalone(__name__)))


if __name__ == "__main__":
    parser = ranks.arguments(__doc__)
    parser.add_argument("--timed-steps", type=int, default=0, help="also time this many steps of each pattern")
    parser.add_argument("--batches", type=int, nargs="+", default=BATCHES, help="sequences per step")
    options = parser.parse_args()
    batches = tuple(options.batches)
    ranks.run(compare_rank, lambda results: report(results, batches), results=options.json,
              batches=batches, timed_steps=options.timed_steps)


def claim_starts_with_its_command(main):
    """#comparison: the output starts with the command that produced it."""
    return main.lines[0] == "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare"


def claim_bytes_by_batch(main):
    """#comparison: DDP and FSDP communicate parameters and gradients, so their bytes do not change with the batch; tensor and pipeline parallel communicate activations, so theirs grow in proportion to it. Every pattern reproduces the single-process gradients to rounding."""
    rows = {line[:9].strip(): line[9:].split() for line in main.between("pattern ", "DDP gradients").lines}
    sent = {name: [int(v.replace(",", "")) for v in cells if "," in v and v.replace(",", "").isdigit()][1:3] for name, cells in rows.items()}
    return (set(rows) == {"DDP", "FSDP2", "TP", "PP GPipe", "PP 1F1B"}
            and all(sent[name][0] == sent[name][1] for name in ("DDP", "FSDP2"))
            and all(sent[name][1] == 8 * sent[name][0] for name in ("TP", "PP GPipe", "PP 1F1B"))
            and all(float(cells[-1]) < 1e-6 for cells in rows.values()))


def claim_small_batch_fewer_bytes_more_calls(main):
    """#pick: Tensor and pipeline parallel do send fewer bytes at a small batch, but they pay in more calls (tensor parallel)."""
    return (main.number("TP:") < 1 and main.number("PP GPipe:") < 1 and main.number("PP 1F1B:") < 1
            and main.line("fewest calls per step") == "fewest calls per step: DDP (1)")


def claim_schedules_make_the_same_calls(main):
    """#traffic: 1F1B makes the same calls as GPipe (in another order)."""
    rows = {line[:9].strip(): line[9:] for line in main.between("pattern ", "DDP gradients").lines}
    return rows["PP GPipe"] == rows["PP 1F1B"]
