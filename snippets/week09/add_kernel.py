"""Step 3: where the CUDA kernel of add comes from, read from files the wheel ships.

add.out declares a ufunc_inner_loop instead of a CUDA function: at build time torchgen writes the
kernels (UfuncCUDA_add.cu) from the scalar formula in aten/src/ATen/native/ufunc/add.h.
"""

from pathlib import Path

import torchgen

from snippets.phase25.theory01.native_functions import trimmed

GENERATOR = Path(torchgen.__file__).parent / "dest" / "ufunc.py"


def functor_template() -> list[str]:
    """The comment in torchgen/dest/ufunc.py showing the CUDA functor it generates for add."""
    lines = GENERATOR.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "struct CUDAFunctorOnSelf_add" in line) - 1
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "#   };")
    return [line.removeprefix("#") for line in lines[start : end + 1]]


def main():
    print(trimmed("add.out"))
    print("\ntorchgen/dest/ufunc.py, the functor it writes for each dtype:")
    for line in functor_template():
        print(line)
