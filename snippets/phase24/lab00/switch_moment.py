"""Exercise 1's child process: switch Triton's interpreter on at one moment, then launch
the add kernel.

Usage: python -m snippets.phase24.lab00.switch_moment MOMENT (with TRITON_INTERPRET unset)
"""

import os
import sys

MOMENTS = ("never", "before import triton", "after import triton", "after the kernel is defined")


def switch_on_at(moment: str, now: str) -> None:
    if moment == now:
        os.environ["TRITON_INTERPRET"] = "1"


def launch(moment: str) -> list[float]:
    """x + x by the lab's add kernel on CPU tensors, the interpreter switched on at `moment`."""
    switch_on_at(moment, "before import triton")
    import triton  # noqa: F401

    switch_on_at(moment, "after import triton")
    import torch

    from snippets.phase24.lab00.triton_add import add

    switch_on_at(moment, "after the kernel is defined")
    x = torch.arange(4.0)
    return add(x, x).tolist()


if __name__ == "__main__":
    print(launch(sys.argv[1]))
