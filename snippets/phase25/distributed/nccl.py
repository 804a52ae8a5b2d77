"""The same patterns on two GPUs with NCCL, now with the time of a training step."""

from __future__ import annotations

import torch

from snippets.phase25.distributed.compare import compare_rank, format_table, rows, verdicts
from snippets.phase25.distributed.launch import run_ranks

DEVICES = ("cuda",)
ISOLATE = True
TIMEOUT = 150
TIMED_STEPS = 20


def main():
    ranks = run_ranks(compare_rank, world_size=2, backend="nccl", timeout=120, timed_steps=TIMED_STEPS)
    table = rows(ranks)
    print(f"One training step on 2 x {torch.cuda.get_device_name(0)} with NCCL; batches of 8 and 64 sequences "
          f"of 16 tokens; bytes each rank sends; median step time of {TIMED_STEPS} steps, slowest rank")
    print(format_table(table, times=True))
    print("\n".join(verdicts(table)))
