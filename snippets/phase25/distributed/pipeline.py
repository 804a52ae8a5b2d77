"""Pipeline parallel: the model cut in two stages, micro-batches flowing through GPipe or 1F1B.

Run it with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.pipeline`.
"""

from __future__ import annotations

import functools

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.harness import grad_error, metered_step, step_times_ms
from snippets.phase25.distributed.model import build_model, loss_fn, make_batch, reference_grads
from snippets.phase25.distributed.report import comm_lines
from snippets.phase25.distributed.timeline import draw, idle_ticks, peak_in_flight, place

ISOLATE = True
TIMEOUT = 240
SCHEDULES = {"GPipe": ScheduleGPipe, "1F1B": Schedule1F1B}


class FirstStage(nn.Module):
    """Stage 0 of the MiniGPT: token and position embeddings, then block 0 (the model's own modules)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.tok_emb, self.pos_emb, self.block = model.tok_emb, model.pos_emb, model.blocks[0]

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1], device=idx.device)
        return self.block(self.tok_emb(idx) + self.pos_emb(positions))


class LastStage(nn.Module):
    """Stage 1 of the MiniGPT: block 1, the final LayerNorm and the LM head."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.block, self.ln_f, self.lm_head = model.blocks[1], model.ln_f, model.lm_head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.ln_f(self.block(x)))


def record_actions(stage: PipelineStage, actions: list[str]) -> None:
    """Append to `actions` every forward (F) and backward (B) the schedule runs on this stage."""
    for method, label in [("forward_one_chunk", "F"), ("backward_one_chunk", "B")]:
        original = getattr(stage, method)

        @functools.wraps(original)
        def logged(chunk, *args, _original=original, _label=label, **kwargs):
            actions.append(f"{_label}{chunk}")
            return _original(chunk, *args, **kwargs)

        setattr(stage, method, logged)


def planned_actions(pipe, rank: int) -> list[str] | None:
    """The schedule's own plan for this rank (its `pipeline_order`, where torch has one) as F/B."""
    plan = getattr(pipe, "pipeline_order", None)
    if plan is None:
        return None
    return [f"{a.computation_type.value}{a.microbatch_index}" for a in plan[rank]
            if a is not None and a.computation_type.value in ("F", "B")]


def pp_rank(device: torch.device, schedule: str = "GPipe", batch: int = 8, microbatches: int = 4,
            timed_steps: int = 0) -> dict:
    """One rank of a two-stage pipeline: rank 0 feeds the batch, the last rank computes the loss."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(batch, device)
    reference = reference_grads(model, inputs, targets)
    module = (FirstStage if rank == 0 else LastStage)(model)
    stage = PipelineStage(module, rank, world, device)
    pipe = SCHEDULES[schedule](stage, n_microbatches=microbatches, loss_fn=loss_fn)
    actions = []
    record_actions(stage, actions)
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)

    def step(mark):
        actions.clear()
        if rank == 0:
            pipe.step(inputs)
        else:
            pipe.step(target=targets)

    comm = metered_step(step, optimizer, world, comm_debug=False, pipeline_rank=rank)
    mine = {id(p) for p in module.parameters()}
    return {"rank": rank, "schedule": schedule, **comm, "actions": list(actions),
            "planned": planned_actions(pipe, rank),
            "params": sum(p.numel() for p in module.parameters()),
            "grad_error": grad_error([(n, p) for n, p in model.named_parameters() if id(p) in mine], reference),
            "step_ms": step_times_ms(step, optimizer, device, timed_steps)}


def pp_both_rank(device: torch.device, **kwargs) -> dict:
    """GPipe, then 1F1B, in the same pair of processes."""
    return {name: pp_rank(device, schedule=name, **kwargs) for name in SCHEDULES}


def report(results: list[dict]) -> str:
    """What rank 0 prints: for each schedule, the chart of what the stages ran, and each rank's numbers."""
    lines = []
    for name in SCHEDULES:
        runs = [r[name] for r in results]
        actions = [r["actions"] for r in runs]
        idle, total = idle_ticks(place(actions))
        lines += [f"{name}: {len(runs)} stages, {len(actions[0]) // 2} micro-batches; "
                  "one tick per forward (F) or backward (B), ·· = bubble", draw(actions)]
        for r, waits in zip(runs, idle):
            plan = "the same" if r["planned"] == r["actions"] else " ".join(r["planned"] or ["none"])
            lines += [f"rank {r['rank']} ran {' '.join(r['actions'])}; the schedule's pipeline_order: {plan}",
                      f"  idle {waits} of {total} ticks; at most {peak_in_flight(r['actions'])} micro-batches "
                      "of activations held at once",
                      f"  {r['params']:,} parameters; max |grad - one process| {r['grad_error']:.1e}",
                      *("  " + line for line in comm_lines(r))]
        lines.append("")
    return "\n".join(lines)


def main():
    print(torchrun.run(torchrun.standalone(__name__)))


if __name__ == "__main__":
    ranks.run(pp_both_rank, report, results=ranks.arguments(__doc__).parse_args().json)


def claim_starts_with_its_command(main):
    """#pipeline: the output starts with the command that produced it."""
    return main.lines[0] == "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.pipeline"


def claim_gpipe_then_1f1b_order(main):
    """#pipeline: GPipe runs every forward, then every backward; 1F1B starts each micro-batch's backward as soon as it can and alternates."""
    gpipe, one_f_one_b = main.between("GPipe:", "1F1B:"), main.between("1F1B:")
    return (all(line.split(" ran ")[1].startswith("F0 F1 F2 F3 B0 B1 B2 B3") for line in gpipe.lines if " ran " in line)
            and one_f_one_b.line("rank 1 ran").startswith("rank 1 ran F0 B0 F1 B1 F2 B2 F3 B3"))


def claim_same_bubble(main):
    """#pipeline: Both leave the same bubble, (p-1)/(m+p-1) of the step for p stages and m micro-batches."""
    idle = [line.split() for line in main.lines if line.strip().startswith("idle ")]
    p, m = 2, 4
    return len(idle) == 4 and all(int(row[1]) / int(row[3]) == (p - 1) / (m + p - 1) for row in idle)


def claim_1f1b_holds_fewer(main):
    """#pipeline: What 1F1B saves is memory: it keeps fewer micro-batches of activations alive."""
    def held(section):
        return [int(line.split("at most ")[1].split()[0]) for line in section.lines if "at most " in line]
    gpipe, one_f_one_b = held(main.between("GPipe:", "1F1B:")), held(main.between("1F1B:"))
    return max(one_f_one_b) < min(gpipe)


def claim_one_send_one_receive_per_micro_batch(main):
    """#pipeline: The stages exchange exactly one send and one receive per micro-batch, each the size of one micro-batch of activations (2 sequences x 16 tokens x 64 features x 4 bytes)."""
    sizes = [line.split(":", 1)[1].strip() for line in main.lines if "calls by size" in line]
    size = f"{2 * 16 * 64 * 4:,} B"
    return len(sizes) == 4 and all(s in (f"4 x send of {size}, 4 x recv of {size}", f"4 x recv of {size}, 4 x send of {size}")
                                   for s in sizes)


def claim_1f1b_plan_names_micro_batch_4(main):
    """#pipeline: for 1F1B, the schedule's own plan for the last stage names micro-batches 1 to 4, of which 4 does not exist, while the stage ran 0 to 3."""
    line = main.between("1F1B:").line("rank 1 ran")
    ran, plan = line.split(" ran ")[1].split(";")[0], line.split("pipeline_order: ")[1]
    return "F4" in plan and "F0" not in plan and "F4" not in ran and "F0" in ran
