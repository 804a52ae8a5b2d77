"""The same comparison on two GPUs with NCCL, started by the same torchrun command, now with step times."""

from __future__ import annotations

from snippets.phase25.distributed import compare, torchrun

DEVICES = ("cuda",)
ISOLATE = True
TIMEOUT = 300
TIMED_STEPS = 20


def main():
    print(torchrun.run(torchrun.standalone(compare.__name__, "--timed-steps", TIMED_STEPS), deadline=240))
