"""Step 1 as it is often written: TORCH_SHOW_DISPATCH_TRACE=1, and _dispatch_print_registrations()."""

import os
import subprocess
import sys

import torch

DEVICES = ("cpu", "cuda")
TIMEOUT = 60
CHILD = ("import torch; a = torch.ones(2, device={device!r}); b = torch.ones(2, device={device!r}); "
         "print('sum:', (a + b).tolist())")


def traced_run(device: str = "cpu") -> tuple[str, int]:
    """Run `a + b` on two tensors on `device` in a fresh Python with the variable set before torch is imported;
    (stdout, stderr bytes)."""
    env = dict(os.environ, TORCH_SHOW_DISPATCH_TRACE="1")
    child = CHILD.format(device=device)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip(), len(done.stderr)


def dispatch_functions() -> list[str]:
    """The torch._C functions whose names mention registrations or dumps: what exists instead."""
    return sorted(n for n in dir(torch._C) if n.startswith("_dispatch_") and ("registration" in n or "dump" in n))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    stdout, stderr_bytes = traced_run(device)
    print(f"TORCH_SHOW_DISPATCH_TRACE=1 python -c \"...a + b, two tensors on {device}...\"")
    print(f"    stdout: {stdout!r}")
    print(f"    stderr: {stderr_bytes} bytes")
    print(f"\nhasattr(torch._C, '_dispatch_print_registrations'): {hasattr(torch._C, '_dispatch_print_registrations')}")
    print("What torch._C has instead:")
    for name in dispatch_functions():
        print(f"    {name}")


def claim_silent(main):
    """#lab-step-1: The traced run prints its result and nothing else: not one line of trace, on stdout or stderr."""
    return main.line("    stdout:").strip() == "stdout: 'sum: [2.0, 2.0]'" and main.line("    stderr:").strip() == "stderr: 0 bytes"


def claim_no_function(main):
    """#lab-step-1: The function does not exist; the ones that do are listed, the table dumps among them."""
    return (main.line("hasattr(").endswith(": False") and "    _dispatch_dump_table" in main
            and "    _dispatch_print_registrations_for_dispatch_key" in main)


def claim_device(main):
    """#lab-step-1: the snippet runs a + b on two tensors on this build's CPU, and on two CUDA tensors in the GPU
    recording."""
    return main.lines[0].endswith(f"two tensors on {main.device}...\"")
