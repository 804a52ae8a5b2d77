"""The check failing on purpose: no GPU, TRITON_INTERPRET unset and a C++ compiler that does not exist."""

import os
import subprocess
import sys

TIMEOUT = 120
COMMAND = [sys.executable, "-m", "snippets.phase24.lab00.hello_cuda"]


def run_without_toolchain() -> tuple[int, str]:
    """(exit status, output) of the command with TRITON_INTERPRET removed and CXX pointing nowhere."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["CXX"] = "no-such-c++"  # torch._inductor.config.cpp.cxx reads $CXX at import
    done = subprocess.run(COMMAND, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    return done.returncode, done.stdout


def main():
    status, output = run_without_toolchain()
    print("$ env -u TRITON_INTERPRET CXX=no-such-c++ python -m snippets.phase24.lab00.hello_cuda")
    print(output.rstrip())
    print(f"$ echo $?\n{status}")


def claim_three_failures(main):
    """#missing: three checks fail and each prints what to do; the tensor op still runs; the Triton kernel is skipped; torch.compile fails with Inductor's own error; the exit status is 1."""
    missing = [line.split("]", 1)[1].split("  ")[0].strip() for line in main.lines if line.startswith("[MISSING]")]
    return (missing == ["C++ compiler", "device", "torch.compile"] and "3 check(s) failed" in main
            and all(main.line(f"{name}: ") for name in missing) and "apt-get install g++" in main.line("C++ compiler: ")
            and "TRITON_INTERPRET=1" in main.line("device: ") and main.line("] tensor op").startswith("[ok")
            and "] Triton kernel" not in main and "InductorError" in main.line("] torch.compile")
            and main.lines[main.lines.index("$ echo $?") + 1] == "1")
