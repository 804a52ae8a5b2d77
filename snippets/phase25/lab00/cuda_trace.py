"""The CUDA variants of parts B, C and E: recorded on a GPU."""

import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity

from snippets.phase25.lab00.dispatch_log import dispatched_ops
from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.lab00.part_b_key_sets import key_set
from snippets.phase25.lab00.part_e_profiler import profile_linear

DEVICES = ("cuda",)


def gpu_kernels(prof) -> list[tuple[str, int]]:
    """(kernel name, launches) of the device-side events, sorted by name."""
    rows = {}
    for event in prof.key_averages():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            rows[event.key] = rows.get(event.key, 0) + event.count
    return sorted(rows.items())


def main():
    x, W, b = make_inputs(device="cuda")
    print("key set of x on CUDA:        ", key_set(x))
    print("key set of x.half() on CUDA: ", key_set(x.detach().half()))
    print("TorchDispatchMode on CUDA:   ", ", ".join(dispatched_ops(F.linear, x, W, b)))
    with warnings.catch_warnings():  # torch 2.11 warns once per process that cycles clear events
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        profile_linear((ProfilerActivity.CPU,), device="cuda")  # warm-up: cuBLAS handles, lazy loading
        prof = profile_linear((ProfilerActivity.CPU, ProfilerActivity.CUDA), device="cuda")
    print("\nGPU kernels launched by forward + backward (name: launches):")
    for name, count in gpu_kernels(prof):
        print(f"  {name[:100]}: {count}")
    print("\nThe profiler's table (times from this one recorded run):")
    # Every row: a cut after N rows would fall among rows that tie at no CUDA time, in no fixed order.
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=-1, max_name_column_width=60))


def claim_cuda_keys(main):
    """#gpu: The key set swaps `CPU` for `CUDA` and `AutogradCPU` for `AutogradCUDA`, and again gains nothing for float16."""
    keys = "DispatchKeySet(CUDA, ADInplaceOrView, AutogradCUDA, AutocastCUDA)"
    return main.line("key set of x on CUDA").endswith(keys) and main.line("x.half()").endswith(keys)


def claim_same_dispatch_ops(main):
    """#gpu: The dispatch-level ops are the same `aten.t` and `aten.addmm`."""
    return main.line("TorchDispatchMode on CUDA").endswith(" aten.t.default, aten.addmm.default")


def claim_gemm_kernels(main):
    """#gpu: The profiler shows the GEMM kernels the CUDA backend chose from cuBLAS."""
    kernels = main.between("GPU kernels launched", "profiler's table").text
    return "gemm" in kernels and "cublas" in kernels


def claim_mm_under_addmm_backward(main):
    """#gpu: `AddmmBackward0`'s CUDA total is that of the two `aten::mm` calls, as on CPU."""
    def cuda_total(name):  # the CUDA total column of the row named `name`, in µs
        row = next(line for line in main.lines if line[:60].strip() == name)
        value, unit = re.findall(r"([\d.]+)(ms|us)", row)[4]
        return float(value) * (1000 if unit == "ms" else 1)
    return main.line("aten::mm").split()[-1] == "2" and cuda_total("AddmmBackward0") == cuda_total("aten::mm")


def claim_cupti_start_up(main):
    """#gpu: `Activity Buffer Request` sits inside `aten::addmm`, is most of the CPU total of `aten::addmm` and `aten::linear`, and has the largest share of the table's self CPU time."""
    def times(name):  # the row's time columns in µs: self CPU, CPU total, CPU avg, self CUDA, CUDA total, ...
        return [float(v) * (1000 if u == "ms" else 1) for v, u in re.findall(r"([\d.]+)(ms|us)", main.line(name))]

    def self_cpu_percent(row):
        return float(re.findall(r"([\d.]+)%", row)[0])
    request, addmm, linear = times("Activity Buffer Request"), times("aten::addmm"), times("aten::linear")
    rows = [line for line in main.lines if re.search(r"\d%", line)]
    return (addmm[1] / 2 < request[1] <= addmm[1] - addmm[0] and request[1] > linear[1] / 2
            and self_cpu_percent(main.line("Activity Buffer Request")) == max(map(self_cpu_percent, rows)))


def claim_cutlass_under_mm(main):
    """#gpu: the two aten::mm ran cutlass::Kernel2<cutlass_80_simt_sgemm…>, a CUTLASS-built kernel, with cuBLASLt's splitKreduce_kernel, two launches each; those two kernels are the whole self CUDA time of aten::mm."""
    launched, table = main.between("GPU kernels launched", "profiler's table"), main.between("profiler's table")

    def self_cuda(needle):  # the Self CUDA column of the table row containing `needle`, in µs
        value, unit = re.findall(r"([\d.]+)(ms|us)", table.line(needle)[60:])[3]
        return float(value) * (1000 if unit == "ms" else 1)
    return (launched.line("cutlass::Kernel2<cutlass_80_simt_sgemm").endswith(": 2")
            and launched.line("cublasLt::splitKreduce_kernel").endswith(": 2")
            and table.line("aten::mm").split()[-1] == "2"
            and math.isclose(self_cuda("cutlass::Kernel2") + self_cuda("splitKreduce_kernel"), self_cuda("aten::mm"),
                             abs_tol=0.002))
