"""Tensor parallel with DTensor: each block's MLP split, fc by columns then proj by rows.

Run it with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.tensor_parallel`.
"""

from __future__ import annotations

import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.harness import forward_backward, grad_error, metered_step, step_times_ms
from snippets.phase25.distributed.model import build_model, make_batch, reference_grads
from snippets.phase25.distributed.report import comm_lines, shape

ISOLATE = True
TIMEOUT = 240


def split_attention(model: nn.Module, mesh, inputs: torch.Tensor) -> str:
    """Try the same column-then-row split on (a copy of) block 0's attention: what happens."""
    attention = copy.deepcopy(model.blocks[0].attn)
    parallelize_module(attention, mesh, {"qkv": ColwiseParallel(), "proj": RowwiseParallel()})
    try:
        with torch.no_grad():
            attention(model.tok_emb(inputs))
    except ValueError as error:
        return f"{type(error).__name__}: {error}"
    return "it ran"


def tp_rank(device: torch.device, batch: int = 8, timed_steps: int = 0) -> dict:
    """One rank of tensor parallel: both ranks see the whole batch and hold half of each block."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(batch, device)
    reference = reference_grads(model, inputs, targets)
    mesh = init_device_mesh(device.type, (world,))
    attention = split_attention(model, mesh, inputs)
    for block in model.blocks:
        parallelize_module(block.mlp, mesh, {"fc": ColwiseParallel(), "proj": RowwiseParallel()})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)  # the unsplit layers stay plain tensors: CUDA's foreach step cannot mix them with DTensors

    step = forward_backward(model, inputs, targets)
    comm = metered_step(step, optimizer, world)
    mlp = model.blocks[0].mlp
    return {"rank": rank, **comm, "attention": attention,
            "shards": {name: [list(p.shape), list(p.to_local().shape), str(p.placements[0])]
                       for name, p in mlp.named_parameters()},
            "params": sum(getattr(p, "_local_tensor", p).numel() for p in model.parameters()),
            "grad_error": grad_error(model.named_parameters(), reference),
            "step_ms": step_times_ms(step, optimizer, device, timed_steps)}


def report(results: list[dict]) -> str:
    """What rank 0 prints: block 0's MLP split, each rank's share, the attention's fate, rank 0's communication."""
    lines = [f"Tensor parallel on {len(results)} ranks over {dist.get_backend()}: both ranks read the whole batch",
             f"{'blocks.0.mlp':<12} {'full':>8} {'local':>8}  placement"]
    for name, (full, local, placement) in results[0]["shards"].items():
        lines.append(f"{name:<12} {shape(full):>8} {shape(local):>8}  {placement}")
    lines += [f"rank {r['rank']} holds {r['params']:,} parameters; max |grad - one process| {r['grad_error']:.1e}"
              for r in results]
    lines.append(f"the same split on blocks.0.attn (qkv, proj): {results[0]['attention']}")
    return "\n".join(lines + comm_lines(results[0]))


def main():
    print(torchrun.run(torchrun.standalone(__name__)))


if __name__ == "__main__":
    ranks.run(tp_rank, report, results=ranks.arguments(__doc__).parse_args().json)


def claim_starts_with_its_command(main):
    """#tensor-parallel: the output starts with the command that produced it."""
    return main.lines[0] == "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.tensor_parallel"


def claim_placements(main):
    """#tensor-parallel: Both ranks read the whole batch. fc is split by rows of its weight (S(0)) and proj by its input features (S(1)); proj's bias is replicated (R)."""
    rows = {line.split()[0]: line.split()[-1] for line in main.between("blocks.0.mlp", "rank 0").lines}
    return ("both ranks read the whole batch" in main.line("Tensor parallel on 2 ranks")
            and rows == {"fc.weight": "S(0)", "fc.bias": "S(0)", "proj.weight": "S(1)", "proj.bias": "R"})


def claim_four_all_reduces(main):
    """#tensor-parallel: The four all-reduces are one per block and pass, each as large as one batch of activations (8 sequences x 16 tokens x 64 features x 4 bytes), and the gradients match one process."""
    errors = [float(line.split()[-1]) for line in main.lines if line.startswith("rank ")]
    return (main.line("calls per pass") == "calls per pass: forward: 2 all_reduce; backward: 2 all_reduce; optimizer: none"
            and main.line("calls by size").split(":", 1)[1].strip() == f"4 x all_reduce of {8 * 16 * 64 * 4:,} B"
            and len(errors) == 2 and all(e < 1e-6 for e in errors))


def claim_attention_split_fails(main):
    """#tensor-parallel: Split by columns, the fused qkv's split(64) yields two pieces, not three."""
    return "expected 3, got 2" in main.line("the same split on blocks.0.attn")
