"""FSDP2: every parameter sharded across ranks, gathered for compute, gradients reduce-scattered.

Run it with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.fsdp`.
"""

from __future__ import annotations

import warnings

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.harness import forward_backward, grad_error, metered_step, step_times_ms
from snippets.phase25.distributed.model import build_model, make_batch, reference_grads
from snippets.phase25.distributed.report import comm_lines, shape

ISOLATE = True
TIMEOUT = 240
SHOWN = ("tok_emb.weight", "pos_emb.weight", "blocks.0.ln1.weight", "blocks.0.attn.qkv.weight",
         "blocks.0.mlp.fc.weight", "blocks.0.mlp.proj.weight", "lm_head.weight", "lm_head.bias")


def quiet_view_warning() -> None:
    """FSDP2 warns that the root returns a view (the logits), which an in-place op would detach from its
    backward hook; nothing here changes the logits in place."""
    warnings.filterwarnings("ignore", "FSDP2-wrapped module")


def fsdp_rank(device: torch.device, batch: int = 8, timed_steps: int = 0) -> dict:
    """One rank of FSDP2: shard each block and the root, train one step on half the batch."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(batch, device)
    reference = reference_grads(model, inputs, targets)
    mine = slice(rank * batch // world, (rank + 1) * batch // world)
    mesh = init_device_mesh(device.type, (world,))
    quiet_view_warning()
    for block in model.blocks:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)  # the root: embedding and LM head
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    step = forward_backward(model, inputs[mine], targets[mine])
    comm = metered_step(step, optimizer, world)
    return {"rank": rank, **comm,
            "shards": {name: [list(p.shape), list(p.to_local().shape)] for name, p in model.named_parameters()},
            "placements": sorted({str(p.placements) for p in model.parameters()}),
            "params": sum(p.to_local().numel() for p in model.parameters()),
            "grad_error": grad_error(model.named_parameters(), reference),
            "step_ms": step_times_ms(step, optimizer, device, timed_steps)}


def report(results: list[dict]) -> str:
    """What rank 0 prints: the placements, the shards of a few tensors, each rank's share, rank 0's communication."""
    lines = [f"FSDP2 on {len(results)} ranks over {dist.get_backend()}: fully_shard on each block, then on the root; "
             f"every parameter is now a DTensor placed {', '.join(results[0]['placements'])}",
             f"{'parameter':<25} {'full':>8}" + "".join(f" {'rank ' + str(r['rank']):>8}" for r in results)]
    for name in SHOWN:
        full = results[0]["shards"][name][0]
        lines.append(f"{name:<25} {shape(full):>8}" + "".join(f" {shape(r['shards'][name][1]):>8}" for r in results))
    lines.append(f"... and {len(results[0]['shards']) - len(SHOWN)} more tensors, each cut the same way along dim 0")
    total = sum(r["params"] for r in results)
    lines += [f"rank {r['rank']} holds {r['params']:,} of {total:,} parameters; "
              f"max |grad - one process| {r['grad_error']:.1e}" for r in results]
    return "\n".join(lines + comm_lines(results[0]))


def main():
    print(torchrun.run(torchrun.standalone(__name__)))


if __name__ == "__main__":
    ranks.run(fsdp_rank, report, results=ranks.arguments(__doc__).parse_args().json)


def claim_starts_with_its_command(main):
    """#fsdp: the output starts with the command that produced it."""
    return main.lines[0] == "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.fsdp"


def claim_each_rank_holds_half(main):
    """#fsdp: Every tensor is cut in two along its first dimension, so each rank holds half of the model."""
    held = [line.split() for line in main.lines if " holds " in line]
    return (len(held) == 2 and all(2 * int(row[3].replace(",", "")) == int(row[5].replace(",", "")) for row in held)
            and "each cut the same way along dim 0" in main)


def claim_three_units(main):
    """#fsdp: Three units give three all-gathers in forward and three reduce-scatters in backward; backward has only two all-gathers; the optimizer updates its half with no communication."""
    return main.line("calls per pass") == ("calls per pass: forward: 3 all_gather; backward: 2 all_gather, "
                                           "3 reduce_scatter; optimizer: none")


def claim_reduce_scatters_four_bytes_per_parameter(main):
    """#fsdp: the reduce-scatters together carry exactly four bytes per parameter, as DDP's all-reduce does."""
    sizes = main.line("calls by size").split(":", 1)[1].split(", ")
    scattered = sum(int(s.split(" x ")[0]) * int(s.split(" of ")[1].split()[0].replace(",", "")) for s in sizes if "reduce_scatter" in s)
    parameters = int(main.line("rank 0 holds").split(" of ")[1].split()[0].replace(",", ""))
    return scattered == 4 * parameters


def claim_qkv_first_half(main):
    """#tensor-parallel: the fused qkv Linear splits its output into three 64-wide pieces; split by columns, rank 0
    gets the first 96 output features (all of q and half of k)."""
    full, half = main.line("blocks.0.attn.qkv.weight").split()[1:3]
    d_model = int(main.line("pos_emb.weight").split()[1].split("x")[1])
    return full == f"{3 * d_model}x{d_model}" and half == f"{3 * d_model // 2}x{d_model}" and d_model == 64
