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
