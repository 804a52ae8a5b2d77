"""The dispatch table of aten::addmm, trimmed to the rows that matter, and the walk linear's call takes."""

from collections import Counter

import torch

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import by_priority, call_key_set, format_rows, table, walk

DEVICES = ("cpu", "cuda")
OP = "aten::addmm"
ROWS_THAT_MATTER = ("PythonDispatcher", "PreDispatch", "FuncTorchBatched", "AutocastCPU", "AutocastCUDA",
                    "AutogradCPU", "AutogradCUDA", "ADInplaceOrView", "Conjugate", "Functionalize", "Python",
                    "BackendSelect", "Meta", "CPU", "CUDA")


def kinds(op: str = OP) -> Counter:
    """How many rows of the table hold each kind of entry (fallthroughs counted apart)."""
    return Counter("fallthrough" if row.fallthrough else row.kind for row in table(op).values())


def trimmed(op: str = OP) -> list:
    """The rows that matter for the LM head, highest priority first."""
    rows = table(op)
    return [rows[key] for key in by_priority(k for k in ROWS_THAT_MATTER if k in rows)]


def linear_walk(device: str) -> tuple[str, list]:
    """Key set and visited rows of the addmm call that linear(x, W, b) makes on `device`."""
    x, W, b = make_inputs(device=device)
    keys = call_key_set(b, x, W.t())
    return str(keys), walk(OP, keys)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = ", ".join(f"{n} {kind}" for kind, n in kinds().most_common())
    print(f"{OP}: {sum(kinds().values())} rows ({counts})\n")
    print("Rows that matter, highest priority first:")
    print(format_rows(trimmed()))
    keys, visited = linear_walk(device)
    print(f"\nlinear(x, W, b) on {device}: addmm dispatches with {keys}")
    print("and visits, top to bottom:")
    print(format_rows(visited))


def claim_generated_kernels(main):
    """#addmm-table: the backend row points into a generated RegisterCPU_*.cpp (RegisterCUDA_*.cpp on the GPU tab), the autograd row into the generated VariableType_*.cpp, and the Meta row into torch/_meta_registrations.py."""
    rows = main.between("Rows that matter", "linear(x, W, b)")
    backend = rows.line("  CPU ") if main.device == "cpu" else rows.line("  CUDA ")
    register = "RegisterCPU_" if main.device == "cpu" else "RegisterCUDA_"
    return (register in backend and " kernel " in backend and "VariableType_" in rows.line("AutogradCPU")
            and "torch/_meta_registrations.py" in rows.line("Meta "))


def claim_cuda_row(main):
    """#addmm-table: on the CPU wheel the CUDA row is a default backend kernel from CompositeExplicitAutogradNonFunctional; the GPU recording shows the real RegisterCUDA_*.cpp row."""
    row = main.between("Rows that matter", "linear(x, W, b)").line("  CUDA ")
    if main.device == "cpu":
        return "default backend kernel" in row and "RegisterCompositeExplicitAutogradNonFunctional" in row
    return "default" not in row and "RegisterCUDA_" in row


def claim_fallbacks_and_fallthroughs(main):
    """#addmm-table: Python, Functionalize, PreDispatch and PythonDispatcher are backend fallbacks; ADInplaceOrView and BackendSelect fall through."""
    rows = main.between("Rows that matter", "linear(x, W, b)")
    return all("backend fallback" in rows.line(f"  {key} ") for key in ("Python", "Functionalize", "PreDispatch",
                                                                       "PythonDispatcher")) and \
        all("fallthrough" in rows.line(f"  {key} ") for key in ("ADInplaceOrView", "BackendSelect"))


def claim_walk(main):
    """#addmm-table: the autograd kernel runs, the two fallthroughs are skipped, and the backend kernel computes."""
    walk = [line.split()[:2] for line in main.between("and visits").lines if line.strip()]
    backend = "CPU" if main.device == "cpu" else "CUDA"
    return walk == [[f"Autograd{backend}", "autograd"], ["ADInplaceOrView", "fallthrough"],
                    ["BackendSelect", "fallthrough"], [backend, "kernel"]]


def claim_key_order(main):
    """#summary: the order that matters for the LM head: autocast, autograd, ADInplaceOrView, Python, BackendSelect, the backend."""
    keys = [line.split()[0] for line in main.between("Rows that matter", "linear(x, W, b)").lines if line.strip()]
    order = ["AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Python", "BackendSelect", "CPU"]
    return [key for key in keys if key in order] == order


def claim_gpu_tab_version(main):
    """#addmm-table: the GPU tab runs on a CUDA build of torch 2.11, the CPU tab on the pinned 2.13."""
    return main.versions["torch"].startswith("2.11" if main.device == "cuda" else "2.13")
