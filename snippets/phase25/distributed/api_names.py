"""The distributed API names older guides use, looked up in the torch installed here."""

from __future__ import annotations

import importlib

ISOLATE = True
TIMEOUT = 60
NAMES = [
    ("torch.nn.parallel", "DistributedDataParallel"),
    ("torch.distributed.fsdp", "FullyShardedDataParallel"),
    ("torch.distributed.fsdp", "fully_shard"),
    ("torch.distributed.tensor.parallel", "parallelize_module"),
    ("torch.distributed.pipeline.sync", "Pipe"),
    ("torch.distributed.pipelining", "ScheduleGPipe"),
    ("torch.distributed.pipelining", "Schedule1F1B"),
]


def look_up(module: str, name: str) -> str:
    """What `from module import name` gives: the kind of object, or the error."""
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        return f"{type(error).__name__}: {error}"
    return "class" if isinstance(found, type) else type(found).__name__


def main():
    import torch

    print(f"torch {torch.__version__.split('+')[0]}")
    for module, name in NAMES:
        print(f"{module}.{name}: {look_up(module, name)}")


def claim_fsdp1_imports_pipe_is_gone(main):
    """#api-names: FullyShardedDataParallel still imports, but fully_shard (FSDP2) is what current PyTorch documents; the Pipe class of torch.distributed.pipeline.sync no longer exists at all; its successor is torch.distributed.pipelining with its schedules."""
    return (main.line("fsdp.FullyShardedDataParallel:").endswith("class")
            and main.line("fsdp.fully_shard:").endswith("function")
            and "ModuleNotFoundError" in main.line("pipeline.sync.Pipe:")
            and main.line("pipelining.ScheduleGPipe:").endswith("class"))
