"""The DispatchKey enum, the runtime keys in priority order, and a commonly drawn stack put in that order."""

import textwrap
from pathlib import Path

import torch

from snippets.phase25.theory01.dispatch_table import by_priority, priority_order

HEADER = Path(torch.__file__).parent / "include" / "c10" / "core" / "DispatchKey.h"
COMMON_STACK = ("AutogradCUDA", "AutocastCUDA", "CUDA")  # the order often drawn


def backends() -> list[str]:
    """Backend names, read off the per-backend autograd keys (AutogradCPU, AutogradCUDA, ...)."""
    generic = {"AutogradOther", "AutogradNestedTensor", "AutogradFunctionality"}
    return [k.removeprefix("Autograd") for k in priority_order() if k.startswith("Autograd") and k not in generic]


def order_for(kept=("CPU", "CUDA")) -> list[str]:
    """Runtime keys highest priority first, without the per-backend keys of backends other than `kept`."""
    others = [b for b in backends() if b not in kept]
    return [k for k in priority_order() if not any(k.endswith(b) for b in others)]


def main():
    members = torch._C.DispatchKey.__members__
    print(f"torch._C.DispatchKey: {len(members)} names; declared in torch/include/c10/core/DispatchKey.h "
          f"({len(HEADER.read_text().splitlines())} lines in the wheel)")
    print(f"runtime keys the dispatcher can visit: {len(priority_order())}, of which per-backend "
          f"variants for {len(backends())} backends")
    print("\nRuntime keys for CPU and CUDA, highest priority first:")
    print(textwrap.fill(", ".join(order_for()), width=96, initial_indent="    ", subsequent_indent="    "))
    print(f"\nA common picture:       {' -> '.join(COMMON_STACK)}")
    print(f"The dispatcher's order: {' -> '.join(by_priority(COMMON_STACK))}")


def claim_autocast_first(main):
    """#dispatch-keys: The last two lines sort the common picture's three keys as the dispatcher does: autocast comes first."""
    return (main.lines[-2].endswith("AutogradCUDA -> AutocastCUDA -> CUDA")
            and main.lines[-1].endswith("AutocastCUDA -> AutogradCUDA -> CUDA"))
