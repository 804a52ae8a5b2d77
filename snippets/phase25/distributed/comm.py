"""Count every collective and point-to-point transfer of a step, and the bytes it moves.

`CommMeter` sits in the dispatcher like torch's `CommDebugMode` and sees the same calls, plus the
sends and receives that `CommDebugMode` ignores; for each call it keeps the pass it happened in,
its payload, and the bytes this rank sends under the usual ring algorithms.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.debug import CommDebugMode
from torch.utils._python_dispatch import TorchDispatchMode

c10d = torch.ops.c10d
funcol = torch.ops._c10d_functional


def _nbytes(tensors) -> int:
    if isinstance(tensors, torch.Tensor):
        return tensors.numel() * tensors.element_size()
    return sum(_nbytes(t) for t in tensors)


# op -> (kind, payload in bytes from the call's arguments and world size). The payload is the
# whole buffer the collective works on: the summed tensor, the gathered result, the tensor
# before it is scattered, the tensor sent.
PAYLOAD = {
    c10d.allreduce_: ("all_reduce", lambda args, n: _nbytes(args[0])),
    c10d.allreduce_coalesced_: ("all_reduce", lambda args, n: _nbytes(args[0])),
    c10d._allgather_base_: ("all_gather", lambda args, n: _nbytes(args[0])),
    c10d.allgather_: ("all_gather", lambda args, n: _nbytes(args[0])),
    c10d.allgather_into_tensor_coalesced_: ("all_gather", lambda args, n: _nbytes(args[0])),
    c10d._reduce_scatter_base_: ("reduce_scatter", lambda args, n: _nbytes(args[1])),
    c10d.reduce_scatter_: ("reduce_scatter", lambda args, n: _nbytes(args[1])),
    c10d.reduce_scatter_tensor_coalesced_: ("reduce_scatter", lambda args, n: _nbytes(args[1])),
    c10d.broadcast_: ("broadcast", lambda args, n: _nbytes(args[0])),
    c10d.send: ("send", lambda args, n: _nbytes(args[0])),
    c10d.recv_: ("recv", lambda args, n: _nbytes(args[0])),
    funcol.all_reduce: ("all_reduce", lambda args, n: _nbytes(args[0])),
    funcol.all_reduce_coalesced: ("all_reduce", lambda args, n: _nbytes(args[0])),
    funcol.all_gather_into_tensor: ("all_gather", lambda args, n: _nbytes(args[0]) * n),
    funcol.all_gather_into_tensor_coalesced: ("all_gather", lambda args, n: _nbytes(args[0]) * n),
    funcol.reduce_scatter_tensor: ("reduce_scatter", lambda args, n: _nbytes(args[0])),
    funcol.reduce_scatter_tensor_coalesced: ("reduce_scatter", lambda args, n: _nbytes(args[0])),
}


def ring_bytes_sent(kind: str, payload: int, world_size: int) -> int:
    """Bytes one rank sends for one call: ring all-reduce 2(n-1)/n, all-gather and
    reduce-scatter (n-1)/n of the payload, a send all of it, a receive nothing."""
    n = world_size
    factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
              "broadcast": 1, "send": 1, "recv": 0}[kind]
    return round(payload * factor)


@dataclass(frozen=True)
class CommEvent:
    """One communication call seen by the meter."""

    phase: str
    kind: str
    payload: int
    sent: int


class CommMeter(TorchDispatchMode):
    """A dispatch mode that keeps, for every communication call, its pass, kind and bytes."""

    def __init__(self, world_size: int, pipeline_rank: int | None = None):
        super().__init__()
        self.world_size = world_size
        self.pipeline_rank = pipeline_rank
        self.phase = "forward"
        self.events: list[CommEvent] = []

    def _phase(self, kind: str, args) -> str:
        """The pass of a call. In a pipeline, activations flow to higher ranks and gradients to
        lower ones, so a send or receive is labelled by its direction."""
        if self.pipeline_rank is None or kind not in ("send", "recv"):
            return self.phase
        peer = args[2]
        return "forward" if (peer > self.pipeline_rank) == (kind == "send") else "backward"

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if DTensor in types:  # let DTensor turn the op into plain ops and collectives first
            return NotImplemented
        packet = getattr(func, "_overloadpacket", None)
        if packet in PAYLOAD:
            kind, payload = PAYLOAD[packet]
            size = payload(args, self.world_size)
            sent = ring_bytes_sent(kind, size, self.world_size)
            self.events.append(CommEvent(self._phase(kind, args), kind, size, sent))
        return func(*args, **(kwargs or {}))

    def mark(self, phase: str) -> None:
        """Label the calls that follow: forward, backward, optimizer."""
        self.phase = phase

    def counts(self) -> dict[str, int]:
        """Calls per `phase:kind`, e.g. {"backward:all_reduce": 1}."""
        return dict(sorted(Counter(f"{e.phase}:{e.kind}" for e in self.events).items()))

    def summary(self) -> dict:
        """JSON-ready totals for one rank."""
        return {"counts": self.counts(), "calls": [[e.phase, e.kind, e.payload] for e in self.events],
                "payload": sum(e.payload for e in self.events), "sent": sum(e.sent for e in self.events)}


def torch_counts(mode: CommDebugMode) -> dict[str, int]:
    """CommDebugMode's own count, by the op names it saw."""
    return dict(sorted((str(op), n) for op, n in mode.get_comm_counts().items()))
