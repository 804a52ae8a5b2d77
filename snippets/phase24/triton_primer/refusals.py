"""Exercise 3 of the primer: a BLOCK the compiler cannot use, refused by the interpreter and by the
compiler's front end (compiling for a GPU needs no GPU until code is generated)."""

import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.jit import JITFunction

from snippets.phase24.triton_primer.vector_add import add, add_kernel

# A fresh process: once an interpreted kernel has called a @jit helper (tl.max, tl.sum), Triton's interpreter
# leaves triton.language patched for the rest of the process, and the compiler's front end then fails.
ISOLATE = True


@triton.jit
def copy_kernel_plain_block(x_ptr, out_ptr, BLOCK):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets))


def failure(launch) -> str:
    """The exception a launch raises, as `Type: last line of its message`."""
    try:
        launch()
    except Exception as error:  # the interpreter wraps the compiler's complaint
        return f"{type(error).__name__}: {str(error).strip().splitlines()[-1]}"
    return "no error"


def compile_for_sm_90(kernel, signature: dict[str, str], constexprs: dict[str, int]) -> str:
    """Compile `kernel` for a Hopper GPU (sm_90: H100, H200) on a machine without one: its error, if any.

    The front end, which turns the Python into Triton's IR and raises these errors, needs no GPU."""
    source = ASTSource(fn=JITFunction(kernel.fn), signature=signature, constexprs=constexprs)
    return failure(lambda: triton.compile(source, target=GPUTarget("cuda", 90, 32)))


def block_the_compiler_cannot_use():
    x, out = torch.randn(1000), torch.empty(1000)
    pointers = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}
    results = {
        "interpreter, BLOCK = 1000": failure(lambda: add(x, x, block=1000)),
        "interpreter, BLOCK without constexpr": failure(lambda: copy_kernel_plain_block[(1,)](x, out, 256)),
        "compiled for sm_90, BLOCK = 1000":
            compile_for_sm_90(add_kernel, pointers | {"n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1000}),
        "compiled for sm_90, BLOCK without constexpr":
            compile_for_sm_90(copy_kernel_plain_block, {"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "i32"}, {}),
    }
    for case, result in results.items():
        print(f"{case + ':':<45} {result}")


def claim_two_refusals(block_the_compiler_cannot_use):
    """#exercises: BLOCK = 1000 fails because arange needs a power of two; a plain BLOCK fails because arange needs a constexpr."""
    out = block_the_compiler_cannot_use
    return ("power of 2" in out.line("interpreter, BLOCK = 1000")
            and "must be of type tl.constexpr" in out.line("interpreter, BLOCK without constexpr"))


def claim_compiler_refuses_both(block_the_compiler_cannot_use):
    """#exercises: compiled for a GPU, both kernels are refused with the same two messages."""
    out = block_the_compiler_cannot_use
    return all(message in out.line(f"interpreter, {case}") and message in out.line(f"compiled for sm_90, {case}")
               and "CompilationError" in out.line(f"compiled for sm_90, {case}")
               for case, message in (("BLOCK = 1000", "arange's range must be a power of 2"),
                                     ("BLOCK without constexpr", "arange's arguments must be of type tl.constexpr")))
