"""Step 2: why the trace is silent, read from Dispatcher.h as shipped inside the wheel."""

import re
from pathlib import Path

import torch

HEADER = Path(torch.__file__).parent / "include" / "ATen" / "core" / "dispatch" / "Dispatcher.h"
SOURCE_PATH = "aten/src/ATen/core/dispatch/Dispatcher.h"
GUARD = "#if defined(HAS_TORCH_SHOW_DISPATCH_TRACE) || !defined(NDEBUG)"


def guarded_blocks(context_after: int = 6) -> list[list[tuple[int, str]]]:
    """Each `#if ...SHOW_DISPATCH_TRACE...` line of the header with the lines after it, numbered from 1."""
    lines = HEADER.read_text(encoding="utf-8").splitlines()
    return [[(n + 1 + k, lines[n + k]) for k in range(context_after + 1)]
            for n, line in enumerate(lines) if line.strip() == GUARD]


def enclosing_function(line_number: int) -> str:
    """The Dispatcher method a numbered line belongs to (the last `Dispatcher::name(` above it)."""
    lines = HEADER.read_text(encoding="utf-8").splitlines()[:line_number]
    return next(m.group(1) for line in reversed(lines) if (m := re.search(r"Dispatcher::(\w+)\(", line)))


def build_flags() -> dict[str, str]:
    """How this wheel was compiled: the build type, and whether NDEBUG was defined."""
    config = torch.__config__.show()
    return {"BUILD_TYPE": re.search(r"BUILD_TYPE=(\w+)", config).group(1),
            "-DNDEBUG in CXX_FLAGS": str("-DNDEBUG" in config)}


def source_link(line_number: int) -> str:
    """The same line in the pytorch repository, at the tag of the installed version."""
    version = torch.__version__.split("+")[0]
    return f"https://github.com/pytorch/pytorch/blob/v{version}/{SOURCE_PATH}#L{line_number}"


def main():
    blocks = guarded_blocks()
    print(f"torch/include/ATen/core/dispatch/Dispatcher.h: {len(blocks)} call sites print the trace, in "
          f"{', '.join(enclosing_function(block[0][0]) for block in blocks)}\n")
    for number, line in blocks[0]:
        print(f"{number:5}  {line}")
    print(f"\n{source_link(blocks[0][0][0])}\n")
    for flag, value in build_flags().items():
        print(f"{flag}: {value}")


def claim_guarded_call_sites(main):
    """#lab-step-2: every call site that prints the trace is compiled only under
    #if defined(HAS_TORCH_SHOW_DISPATCH_TRACE) || !defined(NDEBUG)."""
    sites = int(re.search(r"(\d+) call sites print the trace", main.text).group(1))
    return sites == 4 and "#if defined(HAS_TORCH_SHOW_DISPATCH_TRACE) || !defined(NDEBUG)" in main


def claim_release_flags(main):
    """#lab-step-2: release wheels are built with -DNDEBUG, as the build flags at the end of the output confirm;
    the link points at the installed version."""
    version = main.versions["torch"].split("+")[0]
    return (main.lines[-2] == "BUILD_TYPE: Release" and main.lines[-1] == "-DNDEBUG in CXX_FLAGS: True"
            and f"/blob/v{version}/aten/src/ATen/core/dispatch/Dispatcher.h#L" in main)
