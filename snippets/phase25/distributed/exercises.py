"""Solutions of the survey's exercises, each one run on 2 gloo ranks: smaller DDP buckets, FSDP2
without resharding, a pipeline with more micro-batches, and where tensor parallel's bytes pass DDP's.

Run one with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.exercises CASE`.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.comm import ring_bytes_sent
from snippets.phase25.distributed.fsdp import quiet_view_warning
from snippets.phase25.distributed.harness import forward_backward, metered_step
from snippets.phase25.distributed.model import D_MODEL, SEQ_LEN, build_model, make_batch
from snippets.phase25.distributed.pipeline import pp_both_rank
from snippets.phase25.distributed.report import call_sizes, per_pass
from snippets.phase25.distributed.timeline import idle_ticks, peak_in_flight, place

ISOLATE = True
TIMEOUT = 180
BATCH = 8
BUCKET_MB = 0.25
MICROBATCHES = 8


def ddp_buckets_rank(device: torch.device, bucket_cap_mb: float) -> dict:
    """One DDP step on this rank's half of the batch, with buckets of `bucket_cap_mb` MiB."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(BATCH, device)
    mine = slice(rank * BATCH // world, (rank + 1) * BATCH // world)
    ddp = DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    comm = metered_step(forward_backward(ddp, inputs[mine], targets[mine]), optimizer, world)
    return {**comm, "params": sum(p.numel() for p in model.parameters())}


def buckets_report(results: list[dict]) -> str:
    """Rank 0's all-reduces against the bucket cap."""
    r = results[0]
    return "\n".join([f"gradients: {r['params']:,} parameters x 4 B = {4 * r['params']:,} B; "
                      f"bucket_cap_mb={BUCKET_MB} ({int(BUCKET_MB * 2**20):,} B)",
                      f"calls per pass: {per_pass(r['counts'])}",
                      f"calls by size:  {call_sizes(r['calls'])}",
                      f"payload of all the calls: {r['payload']:,} B"])


def fsdp_reshard_rank(device: torch.device, reshard_after_forward: bool) -> dict:
    """One FSDP2 step with the blocks resharded after forward, or kept gathered until backward."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(BATCH, device)
    mine = slice(rank * BATCH // world, (rank + 1) * BATCH // world)
    mesh = init_device_mesh(device.type, (world,))
    quiet_view_warning()
    for block in model.blocks:
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return metered_step(forward_backward(model, inputs[mine], targets[mine]), optimizer, world)


def both_reshard_settings_rank(device: torch.device) -> dict:
    """The default (True) and False, one after the other in the same process group."""
    return {str(setting): fsdp_reshard_rank(device, setting) for setting in (True, False)}


def reshard_report(results: list[dict]) -> str:
    """Rank 0's calls and bytes with each setting, against DDP's one all-reduce."""
    lines = [f"DDP's one all-reduce, for comparison: {4 * sum(p.numel() for p in build_model().parameters()):,} B"]
    for setting, comm in results[0].items():
        lines += [f"reshard_after_forward={setting}:", f"  calls per pass: {per_pass(comm['counts'])}",
                  f"  sent by this rank: {comm['sent']:,} B"]
    return "\n".join(lines)


def microbatches_report(results: list[dict]) -> str:
    """Each schedule's bubble, the micro-batches each rank held at once, and rank 0's messages."""
    lines = []
    for name, first in results[0].items():
        actions = [r[name]["actions"] for r in results]
        idle, total = idle_ticks(place(actions))
        lines += [f"{name}, {MICROBATCHES} micro-batches of {BATCH // MICROBATCHES} sequence(s):",
                  f"  idle ticks per rank {idle} of {total}; bubble {idle[0] / total:.3f}",
                  f"  peak micro-batches held per rank {[peak_in_flight(a) for a in actions]}",
                  f"  rank 0 calls by size: {call_sizes(first['calls'])}"]
    return "\n".join(lines)


CASES = {"buckets": (ddp_buckets_rank, buckets_report, {"bucket_cap_mb": BUCKET_MB}),
         "no-reshard": (both_reshard_settings_rank, reshard_report, {}),
         "microbatches": (pp_both_rank, microbatches_report, {"microbatches": MICROBATCHES})}


def smaller_buckets():
    print(torchrun.run(torchrun.standalone(__name__, "buckets")))


def no_reshard():
    print(torchrun.run(torchrun.standalone(__name__, "no-reshard")))


def more_microbatches():
    print(torchrun.run(torchrun.standalone(__name__, "microbatches")))


def crossover_by_hand():
    params = sum(p.numel() for p in build_model().parameters())
    activations = SEQ_LEN * D_MODEL * 4  # bytes of one sequence's activations
    print(f"DDP: one all-reduce of every gradient: {params:,} x 4 B = {4 * params:,} B")
    print(f"TP: 4 all-reduces of batch x {activations:,} B (2 blocks, forward and backward)")
    print(f"equal bytes at batch = {4 * params:,} / (4 x {activations:,}) = {params / (4 * SEQ_LEN * D_MODEL):.1f}")
    for world in (2, 4, 8):
        ddp, tp = ring_bytes_sent("all_reduce", 4 * params, world), 4 * ring_bytes_sent("all_reduce", activations, world)
        print(f"{world} ranks: DDP {ddp:,} B, TP {tp:,} B a sequence, equal at {ddp / tp:.1f} sequences")


if __name__ == "__main__":
    parser = ranks.arguments(__doc__)
    parser.add_argument("case", choices=CASES)
    options = parser.parse_args()
    demo, report, kwargs = CASES[options.case]
    ranks.run(demo, report, results=options.json, **kwargs)


def claim_three_buckets(smaller_buckets):
    """#exercises: Three all-reduces, and together they still carry every gradient, four bytes per parameter; every bucket but the last is a little over the cap."""
    cap = int(smaller_buckets.line("bucket_cap_mb").split("(")[1].split()[0].replace(",", ""))
    sizes = [int(s.split(" of ")[1].split()[0].replace(",", ""))
             for s in smaller_buckets.line("calls by size").split(":", 1)[1].split(", ")]
    total = int(smaller_buckets.line("gradients:").split("= ")[1].split()[0].replace(",", ""))
    return (smaller_buckets.line("calls per pass") == "calls per pass: forward: none; backward: 3 all_reduce; optimizer: none"
            and sum(sizes) == total == int(smaller_buckets.line("payload of all").split(": ")[1].split()[0].replace(",", ""))
            and all(size > cap for size in sizes[:-1]) and sizes[-1] <= cap)


def claim_no_backward_all_gathers(no_reshard):
    """#exercises: The two backward all-gathers disappear, and the bytes fall to exactly DDP's."""
    kept = no_reshard.between("reshard_after_forward=False")
    return (no_reshard.between("reshard_after_forward=True", "reshard_after_forward=False").line("calls per pass").endswith(
                "backward: 2 all_gather, 3 reduce_scatter; optimizer: none")
            and kept.line("calls per pass").endswith("forward: 3 all_gather; backward: 3 reduce_scatter; optimizer: none")
            and kept.line("sent by this rank").split(": ")[1] == no_reshard.line("DDP's one all-reduce").split(": ")[1])


def claim_bubble_one_ninth(more_microbatches):
    """#exercises: the bubble is 1/9 of the step for both schedules; rank 0 sends twice as many messages, each half as large; GPipe holds all 8 micro-batches at once, 1F1B at most 2 on the first stage."""
    gpipe, one_f_one_b = more_microbatches.between("GPipe,", "1F1B,"), more_microbatches.between("1F1B,")
    return (more_microbatches.count("idle ticks per rank [2, 2] of 18; bubble 0.111") == 2
            and more_microbatches.count("8 x send of 4,096 B, 8 x recv of 4,096 B") == 2
            and "peak micro-batches held per rank [8, 8]" in gpipe
            and "peak micro-batches held per rank [2, 1]" in one_f_one_b)


def claim_crossover_does_not_move(crossover_by_hand):
    """#exercises: tensor parallel's bytes pass DDP's from about 44 sequences, 16 tokens x 64 features x 4 bytes per sequence, and the crossing point does not move on 4 or 8 ranks."""
    points = [line.split("equal at ")[1].split()[0] for line in crossover_by_hand.lines if " ranks: " in line]
    return ("batch x 4,096 B" in crossover_by_hand and 4096 == 16 * 64 * 4 and len(points) == 3
            and set(points) == {crossover_by_hand.line("equal bytes at").split("= ")[-1]} and round(float(points[0])) == 44)
