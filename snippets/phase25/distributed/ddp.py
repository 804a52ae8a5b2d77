"""DDP: a full replica on every rank, half the batch each, gradients all-reduced in backward.

Run it with `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.ddp`.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from snippets.phase25.distributed import ranks, torchrun
from snippets.phase25.distributed.harness import digest, forward_backward, grad_error, metered_step, step_times_ms
from snippets.phase25.distributed.model import build_model, make_batch, reference_grads
from snippets.phase25.distributed.report import comm_lines

ISOLATE = True
TIMEOUT = 240


def ddp_rank(device: torch.device, batch: int = 8, timed_steps: int = 0) -> dict:
    """One rank of DDP: train one step on this rank's half of the batch."""
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model(device)
    inputs, targets = make_batch(batch, device)
    reference = reference_grads(model, inputs, targets)
    mine = slice(rank * batch // world, (rank + 1) * batch // world)
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)

    step = forward_backward(ddp, inputs[mine], targets[mine])
    comm = metered_step(step, optimizer, world)
    return {**ranks.place(), "rows": [mine.start, mine.stop], **comm,
            "params": sum(p.numel() for p in model.parameters()),
            "grad_digest": digest(p.grad for p in model.parameters()),
            "grad_error": grad_error(model.named_parameters(), reference),
            "step_ms": step_times_ms(step, optimizer, device, timed_steps)}


def report(results: list[dict]) -> str:
    """What rank 0 prints: where each rank ran, its rows, its gradients, and rank 0's communication."""
    nodes = len({r["node"] for r in results})
    lines = [f"DDP on {len(results)} ranks ({nodes} node{'s' if nodes > 1 else ''}) over {dist.get_backend()}: "
             f"every rank holds all {results[0]['params']:,} parameters"]
    for r in results:
        lines.append(f"rank {r['rank']} (node {r['node']}, local rank {r['local_rank']}): sequences "
                     f"{r['rows'][0]}-{r['rows'][1] - 1}, gradient digest {r['grad_digest']}, "
                     f"max |grad - one process| {r['grad_error']:.1e}")
    lines.append(f"gradients bitwise identical on every rank: {len({r['grad_digest'] for r in results}) == 1}")
    return "\n".join(lines + comm_lines(results[0]))


def main():
    print(torchrun.run(torchrun.standalone(__name__)))


if __name__ == "__main__":
    ranks.run(ddp_rank, report, results=ranks.arguments(__doc__).parse_args().json)


def claim_starts_with_its_command(main):
    """#ddp: the output starts with the command that produced it."""
    return main.lines[0] == "$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.ddp"


def claim_same_digest_different_sequences(main):
    """#ddp: Each rank saw different sequences, yet both end with the same gradient digest: the bytes are identical, not merely close."""
    rows = [line.split(": ", 1)[1].split() for line in main.lines if line.startswith("rank ")]
    return (len(rows) == 2 and rows[0][1] != rows[1][1] and rows[0][4] == rows[1][4]
            and main.line("bitwise identical").endswith("True"))


def claim_matches_one_process(main):
    """#ddp: They also match one process that trained on the whole batch, to rounding."""
    return all(error < 1e-6 for error in (float(line.split()[-1]) for line in main.lines if line.startswith("rank ")))


def claim_one_all_reduce_four_bytes_per_parameter(main):
    """#ddp: The communication is a single all-reduce in backward, whose payload is exactly four bytes per parameter: every gradient of the model fits in one bucket. Nothing moves in forward and nothing in the optimizer step."""
    parameters = int(main.line("every rank holds").split("holds all ")[1].split()[0].replace(",", ""))
    payload = int(main.line("bytes per step").split("payload ")[1].split()[0].replace(",", ""))
    return (main.line("calls per pass") == "calls per pass: forward: none; backward: 1 all_reduce; optimizer: none"
            and payload == 4 * parameters and main.line("calls by size").split(":", 1)[1].strip().startswith("1 x all_reduce"))
