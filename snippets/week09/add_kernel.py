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


def claim_no_cuda_function(main):
    """#lab-step-4: add.out declares no CUDA function at all, only ufunc_inner_loop: Generic: add."""
    declaration = main.between("- func: add.out", "torchgen/dest/ufunc.py").text
    return ("Generic: add" in declaration and "CUDA" not in declaration
            and "dispatch:\n    # ... " in declaration)


def claim_functor(main):
    """#lab-step-4: the generator writes a functor per case, CUDAFunctorOnSelf_add when one side is a scalar,
    calling ufunc::add."""
    return "struct CUDAFunctorOnSelf_add {" in main and "return ufunc::add(static_cast<opmath_t>(self), other_, alpha_);" in main
