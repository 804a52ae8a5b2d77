"""The chapter's torch pin, and the APIs its pages rely on, looked up in the installed torch."""

import importlib
from importlib import metadata

APIS = {
    "torch.utils._python_dispatch.TorchDispatchMode": "lab 00: log every ATen op",
    "torch.overrides.TorchFunctionMode": "lab 00: log Python-level calls",
    "torch.library.custom_op": "lab 02: register the Triton softmax",
    "torch.library.opcheck": "lab 02: test the registration",
    "torch.compile": "lab 03: capture and compile",
    "torch.distributed.fsdp.fully_shard": "lab 03 survey: FSDP2",
    "torch.distributed.pipelining.ScheduleGPipe": "lab 03 survey: pipeline parallel",
    "torch.distributed.pipeline.sync.Pipe": "named by the original survey text",
}


def lookup(dotted: str) -> bool:
    """Whether `module.attr` (or a module) exists in this install."""
    module, _, attr = dotted.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attr)
    except ImportError:
        return False


def main():
    print(f"torch {metadata.version('torch')}, triton {metadata.version('triton')}\n")
    for dotted, use in APIS.items():
        print(f"{'present' if lookup(dotted) else 'MISSING':8} {dotted:48} {use}")


def claim_pinned_versions(main):
    """#pin: the course pins torch 2.13.0 (and triton 3.8.0), and every output built on CPU comes from that install."""
    return main.lines[0].startswith("torch 2.13.0") and main.lines[0].endswith("triton 3.8.0")


def claim_only_pipe_missing(main):
    """#pin: the last row is why the survey uses torch.distributed.pipelining: the Pipe API older guides name no longer exists."""
    rows = main.lines[2:]
    return rows[-1].startswith("MISSING") and "pipeline.sync.Pipe" in rows[-1] and all(
        row.startswith("present") for row in rows[:-1])
