"""Hello CUDA, the toolchain check: `python -m snippets.phase24.lab00.hello_cuda`.

Reports torch and triton, the C++ compiler torch.compile would use, the GPU (or Triton's interpreter
mode), then runs one tensor op, one compiled function and one Triton kernel. Exits with status 1, and a
sentence saying what to install, when something is missing.
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

ISOLATE = True  # torch.compile and TRITON_INTERPRET (read when triton is imported): a fresh process
DEVICES = ("cpu", "cuda")
TIMEOUT = 180  # a first torch.compile on CPU builds a precompiled header (about 30 s)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""  # what to install or set, when not ok


def check_torch() -> Check:
    try:
        import torch
    except ImportError:
        return Check("torch", False, "not installed",
                     "Install PyTorch: `pip install torch` (a CUDA build from https://pytorch.org for a GPU).")
    return Check("torch", True, f"{torch.__version__} ({'CUDA ' + torch.version.cuda if torch.version.cuda else 'CPU-only build'})")


def check_triton() -> Check:
    try:
        import triton
    except ImportError:
        return Check("triton", False, "not installed",
                     "Install Triton: `pip install triton` (CUDA builds of torch bring it; CPU-only wheels do not).")
    return Check("triton", True, triton.__version__)


def check_compiler() -> Check:
    """The C++ compiler Inductor calls for CPU code, found the way torch.compile finds it."""
    from torch._inductor import config

    names = [n for n in (config.cpp.cxx if isinstance(config.cpp.cxx, (list, tuple)) else (config.cpp.cxx,)) if n]
    found = next((shutil.which(name) for name in names if shutil.which(name)), None)
    if found is None:
        return Check("C++ compiler", False, f"none of {names} on PATH",
                     "Install a C++ compiler (`apt-get install g++`): torch.compile builds its CPU kernels with it.")
    version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return Check("C++ compiler", True, f"{found} ({version})")


def check_device() -> Check:
    import torch

    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(0)
        return Check("device", True, f"cuda: {torch.cuda.get_device_name(0)} (compute capability {major}.{minor})")
    if os.environ.get("TRITON_INTERPRET") == "1":
        return Check("device", True, "no GPU: Triton kernels run on CPU tensors in interpreter mode (TRITON_INTERPRET=1)")
    return Check("device", False, "no GPU, and TRITON_INTERPRET is not set",
                 "Run on a machine with an NVIDIA GPU and a CUDA build of torch, or start Python with "
                 "TRITON_INTERPRET=1 to run Triton kernels on the CPU.")


def device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def check_tensor_op() -> Check:
    import torch

    a = torch.arange(6.0, device=device()).reshape(2, 3)
    product = (a @ a.T).cpu().tolist()
    rows = a.cpu().tolist()
    expected = [[sum(x * y for x, y in zip(r, s)) for s in rows] for r in rows]  # the same product in Python
    return Check("tensor op", product == expected, f"a @ a.T on {device()} = {product}",
                 "" if product == expected else "The tensor op gave a wrong result: reinstall torch.")


def check_compiled() -> Check:
    import torch

    def f(x):
        return torch.sin(x) ** 2 + torch.cos(x) ** 2

    x = torch.linspace(-3, 3, 1000, device=device())
    try:
        out = torch.compile(f)(x)
    except Exception as error:  # the check reports any failure of the compiler stack
        return Check("torch.compile", False, f"{type(error).__name__}: {str(error).splitlines()[0][:200]}",
                     "torch.compile failed: it needs a C++ compiler for CPU code and Triton for GPU code.")
    ok = torch.allclose(out, f(x), atol=1e-6)
    return Check("torch.compile", ok, f"sin(x)**2 + cos(x)**2 on {device()}, {'matches' if ok else 'differs from'} eager",
                 "" if ok else "Compiled and eager results differ: report it with your torch version.")


def check_triton_kernel() -> Check:
    import torch

    from snippets.phase24.lab00.triton_add import add

    x = torch.arange(1000.0, device=device())
    try:
        out = add(x, 2 * x)
    except Exception as error:  # e.g. "0 active drivers" without a GPU or the interpreter
        return Check("Triton kernel", False, f"{type(error).__name__}: {str(error).splitlines()[0][:200]}",
                     "The Triton kernel did not run: use an NVIDIA GPU, or set TRITON_INTERPRET=1 before Python starts.")
    ok = torch.equal(out, 3 * x)
    return Check("Triton kernel", ok, f"add_kernel on {out.numel()} floats on {out.device.type}: "
                 f"{'equals' if ok else 'differs from'} x + y", "" if ok else "The Triton kernel gave a wrong result.")


def run_checks() -> list[Check]:
    """Every check in order; those that need something missing are skipped."""
    checks = [check_torch()]
    if not checks[0].ok:
        return checks
    checks += [check_triton(), check_compiler(), check_device(), check_tensor_op(), check_compiled()]
    if checks[1].ok and checks[3].ok:
        checks.append(check_triton_kernel())
    return checks


def main() -> int:
    checks = run_checks()
    for check in checks:
        print(f"[{'ok' if check.ok else 'MISSING':7}] {check.name:14} {check.detail}")
    missing = [check for check in checks if not check.ok]
    for check in missing:
        print(f"\n{check.name}: {check.fix}")
    print("\nall checks passed" if not missing else f"\n{len(missing)} check(s) failed")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())


def claim_every_check_passes(main):
    """#objective: every line [ok], and the report ends with all checks passed."""
    checks = [line for line in main.lines if line.startswith("[")]
    return (len(checks) == 7 and all(line.startswith("[ok     ]") for line in checks) and "all checks passed" in main
            and main.versions["torch"] in main.line("] torch ") and main.versions["triton"] in main.line("] triton "))


def claim_where_each_check_ran(main):
    """#run: on the build machine the Triton kernel runs on CPU tensors in interpreter mode and the report names the C++ compiler; on the GPU the tensor op, the compiled function and the Triton kernel run on cuda."""
    if main.device == "cpu":
        return ("interpreter mode (TRITON_INTERPRET=1)" in main.line("] device") and "on cpu" in main.line("] Triton kernel")
                and "g++" in main.line("] C++ compiler"))
    return all("on cuda" in main.line(f"] {check}") for check in ("tensor op", "torch.compile", "Triton kernel"))


def claim_ok_on_both_tabs(main):
    """#run: every line is [ok] on both tabs."""
    return all(line.startswith("[ok     ]") for line in main.lines if line.startswith("["))


def claim_seven_checks(main):
    """#checks: the report has seven checks, one line each."""
    return sum(line.startswith("[") for line in main.lines) == 7
