"""The numerical environment of CPU calls, pinned so that an output is the same on every x86-64 machine
with AVX2, Intel or AMD, with or without AVX-512, whatever its core count, with or without a GPU.

Each library below picks its kernels by the CPU it finds, and a float32 reduction or matrix product
rounds differently with each kernel: ATen's eager kernels (compiled per instruction set and chosen at
run time), MKL's SGEMM, NumPy's OpenBLAS and SIMD loops, oneDNN. Each reads its setting once, as it
loads: `pin()` must run before torch, NumPy or MKL are imported, and every child inherits it.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

PINNED = {
    "ATEN_CPU_CAPABILITY": "avx2",  # ATen's AVX2 kernels, on AVX-512 CPUs too
    "MKL_CBWR": "COMPATIBLE",  # MKL's one code branch that is the same on Intel and AMD (AVX2's is Intel-only)
    "OMP_NUM_THREADS": "2",  # how ATen and MKL split a reduction: the same on 2 cores or 64
    "MKL_NUM_THREADS": "2",
    "OPENBLAS_NUM_THREADS": "2",
    "OPENBLAS_CORETYPE": "Haswell",  # NumPy's OpenBLAS: its AVX2 kernels (else SkylakeX or Zen by CPU)
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",  # NumPy's own loops: AVX2 at most
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # oneDNN (bfloat16 matmuls, convolutions): AVX2 at most
    "CUDA_VISIBLE_DEVICES": "",  # no GPU: a snippet that takes one where it finds one runs its CPU path
}
# MKL's COMPATIBLE branch is SSE2 code, about 3x slower on a matrix product: a call that reads a clock
# is about real speed, so it runs without it (and prints only what its timings support).
TIMED_OUT = ("MKL_CBWR",)
REQUIRED_FLAGS = ("avx2", "fma")
KERNELS = "x86-64 AVX2"  # what the label of a CPU output names
PLATFORM = "x86-64 with AVX2"


def pin(environ=os.environ) -> None:
    """Set the pinned values (over any the caller exported: a build's outputs are those of the pins)."""
    environ.update(PINNED)


def timed_environment(environ: dict[str, str]) -> dict[str, str]:
    """The environment of a call that reads a clock: the pins but MKL's slow branch."""
    return {k: v for k, v in environ.items() if k not in TIMED_OUT}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def unsupported(machine: str | None = None, flags: set[str] | None = None) -> str | None:
    """Why this machine cannot build the site's CPU outputs as the pages state them, or None."""
    machine = machine or platform.machine()
    flags = cpu_flags() if flags is None else flags
    if machine not in ("x86_64", "AMD64"):
        return (f"the site's CPU outputs are built on {PLATFORM}; this machine is {machine}, whose kernels "
                "round differently (and Inductor's generated code differs), so claims would fail")
    missing = [flag for flag in REQUIRED_FLAGS if flag not in flags]
    if missing:
        return (f"the site's CPU outputs are built on {PLATFORM}; this CPU lacks {', '.join(missing)}, so "
                "ATen, MKL and Inductor would run other kernels and claims would fail")
    return None


def capabilities(flags: set[str] | None = None) -> list[str]:
    """The ATEN_CPU_CAPABILITY levels this CPU offers, lowest first."""
    flags = cpu_flags() if flags is None else flags
    levels = ["default"]
    if {"avx2", "fma"} <= flags:
        levels.append("avx2")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        levels.append("avx512")
    return levels
