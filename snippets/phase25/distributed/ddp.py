"""DDP: a full replica on every rank, half the batch each, gradients all-reduced in backward."""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from snippets.phase25.distributed.harness import digest, forward_backward, grad_error, metered_step, step_times_ms
from snippets.phase25.distributed.launch import run_ranks
from snippets.phase25.distributed.report import comm_lines
from snippets.phase25.distributed.model import build_model, make_batch, reference_grads

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
    return {"rank": rank, "rows": [mine.start, mine.stop], **comm,
            "params": sum(p.numel() for p in model.parameters()),
            "grad_digest": digest(p.grad for p in model.parameters()),
            "grad_error": grad_error(model.named_parameters(), reference),
            "step_ms": step_times_ms(step, optimizer, device, timed_steps)}


def main():
    ranks = run_ranks(ddp_rank, backend="gloo")
    print(f"DDP on {len(ranks)} ranks over gloo: every rank holds all {ranks[0]['params']:,} parameters")
    for r in ranks:
        print(f"rank {r['rank']}: sequences {r['rows'][0]}-{r['rows'][1] - 1}, gradient digest {r['grad_digest']}, "
              f"max |grad - one process| {r['grad_error']:.1e}")
    print("gradients bitwise identical on every rank:", len({r["grad_digest"] for r in ranks}) == 1)
    print("\n".join(comm_lines(ranks[0])))


def claim_same_digest_different_sequences(main):
    """#ddp: Each rank saw different sequences, yet both end with the same gradient digest: the bytes are identical, not merely close."""
    ranks = [line.split() for line in main.lines if line.startswith("rank ")]
    return (len(ranks) == 2 and ranks[0][3] != ranks[1][3] and ranks[0][6] == ranks[1][6]
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
