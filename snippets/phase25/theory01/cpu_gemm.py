"""On CPU, addmm ends in a BLAS call: MKL's SGEMM for float32, oneDNN's matmul for bfloat16.

Both libraries can log each call they execute; they write from C to fd 1, so the snippet runs isolated
and captures fd 1 itself. Pointers, timings and thread counts are dropped from the logs.
"""

import re

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.native_stdout import capture_fd1

ISOLATE = True
TIMEOUT = 60
MKL_CALL = re.compile(r"^MKL_VERBOSE (?P<fn>\w+)\((?P<args>[^)]*)\)", re.MULTILINE)
ONEDNN_EXEC = re.compile(r"^onednn_verbose,(?:v\d+,)?primitive,exec,cpu,(?P<rest>.*),[\d.]+$", re.MULTILINE)


def build_settings() -> dict[str, str]:
    """The BLAS and oneDNN settings this torch was built with, from torch.__config__.show()."""
    config = torch.__config__.show()
    keys = ("BLAS_INFO", "USE_MKL", "USE_MKLDNN")
    found = {key: re.search(rf"{key}=(\w+)", config).group(1) for key in keys}
    found["CPU capability usage"] = re.search(r"CPU capability usage: (\w+)", config).group(1)
    found["oneDNN bfloat16 on this CPU"] = str(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    return found


def mkl_calls(dtype: torch.dtype) -> list[str]:
    """The BLAS calls MKL logs for linear(x, W, b) in `dtype`, pointers replaced by '*'."""
    x, W, b = (t.detach().to(dtype) for t in make_inputs())
    with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
        text = capture_fd1(F.linear, x, W, b)
    return [f"{m['fn']}({','.join('*' if a.startswith('0x') else a for a in m['args'].split(','))})"
            for m in MKL_CALL.finditer(text)]


def onednn_calls(dtype: torch.dtype) -> list[str]:
    """The primitives oneDNN logs for linear(x, W, b) in `dtype`: kind, implementation, layouts, shapes."""
    x, W, b = (t.detach().to(dtype) for t in make_inputs())
    with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
        text = capture_fd1(F.linear, x, W, b)
    return [m["rest"] for m in ONEDNN_EXEC.finditer(text)]


def main():
    for key, value in build_settings().items():
        print(f"{key}: {value}")
    for dtype in (torch.float32, torch.float64):
        print(f"\nlinear(x, W, b) in {dtype}, MKL verbose:")
        for call in mkl_calls(dtype):
            print(f"    {call}")
    print("\nlinear(x, W, b) in torch.bfloat16, oneDNN verbose:")
    for call in onednn_calls(torch.bfloat16) or ["(no oneDNN primitive ran)"]:
        print(f"    {call}")


def claim_one_sgemm(main):
    """#gemm-cpu: SGEMM(T,N,600,2,64,...) is the whole LM head in one BLAS call: m = 600, n = 2, k = 64."""
    calls = main.between("torch.float32, MKL verbose", "torch.float64").text.split()
    return len(calls) == 1 and calls[0].startswith("SGEMM(T,N,600,2,64,")


def claim_dgemm(main):
    """#gemm-cpu: in float64 the same call becomes DGEMM."""
    calls = main.between("torch.float64, MKL verbose", "torch.bfloat16").text.split()
    return len(calls) == 1 and calls[0].startswith("DGEMM(T,N,600,2,64,")


def claim_onednn_bf16(main):
    """#gemm-cpu: where oneDNN supports bfloat16 on the CPU, the CPU kernel hands the product to a oneDNN matmul primitive and the log names the implementation oneDNN chose; where it does not, oneDNN logs nothing."""
    log = [line.strip() for line in main.between("torch.bfloat16, oneDNN verbose").lines if line.strip()]
    if main.line("oneDNN bfloat16 on this CPU:").endswith("True"):
        return len(log) == 1 and re.match(r"matmul,\w+:\w+", log[0]) is not None and log[0].endswith("2x64:64x600")
    return log == ["(no oneDNN primitive ran)"]
