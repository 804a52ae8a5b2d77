"""Register a Python kernel for one dispatch key of aten::addmm, watch dispatch change, then undo it."""

import contextlib
import re
import warnings

import torch
import torch.nn.functional as F

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import table
from snippets.phase25.theory01.key_order import print_report
from snippets.phase25.theory01.normalise import normalise

REGISTRATION = re.compile(r"^(?P<key>\w+(?: \(inactive\))?): registered at (?P<where>\S+)")


@contextlib.contextmanager
def kernel_for_key(qualname: str, key: str, kernel):
    """Register `kernel` for one dispatch key of an existing operator while the block runs.

    The scoped library is destroyed on exit, and the dispatcher falls back to the kernel it had before.
    """
    namespace, name = qualname.split("::")
    with warnings.catch_warnings(), torch.library._scoped_library(namespace, "IMPL") as lib:
        # torch warns once per process that an existing kernel is being overridden: expected here.
        warnings.filterwarnings("ignore", message="Warning only once for all operators")
        lib.impl(name, kernel, key)
        yield


def make_logging_addmm(calls: list):
    """A CPU kernel for addmm written with other operators; it appends the shapes it receives to `calls`."""

    def addmm_cpu(self, mat1, mat2, *, beta=1, alpha=1):
        calls.append([tuple(t.shape) for t in (self, mat1, mat2)])
        return beta * self + alpha * (mat1 @ mat2)  # matmul -> mm and mul/add: no addmm, no recursion

    return addmm_cpu


def rows(keys=("AutogradCPU", "CPU", "Meta")) -> list[str]:
    """The rows of aten::addmm's table for a few keys, one line each."""
    entries = table("aten::addmm")
    return [f"{k:<12} {entries[k].kind:<16} {entries[k].where}" for k in keys]


def registrations(keys=("CPU", "Meta")) -> list[str]:
    """The lines of `_dispatch_dump("aten::addmm")` for a few keys, inactive kernels included, signatures cut."""
    found = (REGISTRATION.match(line) for line in normalise(torch._C._dispatch_dump("aten::addmm")).splitlines())
    return [f"{m['key']:<16} {m['where']}" for m in found if m and m["key"].split(" ")[0] in keys]


def experiment() -> dict[str, list[str]]:
    """linear(x, W, b) before, during and after the override, with what each call went through."""
    x, W, b = make_inputs()
    reference = F.linear(x, W, b)
    reference.sum().backward()
    expected_grad = W.grad.clone()
    W.grad = None
    calls = []
    report = {"aten::addmm before": rows()}
    with kernel_for_key("aten::addmm", "CPU", make_logging_addmm(calls)):
        report["aten::addmm inside the block"] = rows()
        y = F.linear(x, W, b)
        y.sum().backward()
        report["linear(x, W, b) inside the block"] = [
            f"our kernel ran {len(calls)} time(s), with shapes {calls[0]}",
            f"y.grad_fn: {type(y.grad_fn).__name__}",
            f"y, W.grad allclose to the built-in kernel's: {torch.allclose(y, reference, atol=1e-5)}, "
            f"{torch.allclose(W.grad, expected_grad)}",
        ]
        meta = F.linear(x.to("meta"), W.to("meta"), b.to("meta"))
        report["linear on meta tensors inside the block"] = [
            f"our kernel ran {len(calls) - 1} more time(s); output shape {tuple(meta.shape)}"]
        report['_dispatch_dump("aten::addmm") inside the block, CPU and Meta'] = registrations()
    report["aten::addmm after the block"] = rows()
    F.linear(x, W, b)
    report["linear(x, W, b) after the block"] = [f"our kernel ran {len(calls) - 1} more time(s)"]
    return report


def main():
    print_report(experiment())


def claim_only_cpu_row_changed(main):
    """#one-key: only the CPU row changed; the row now points into torch/library.py."""
    before = main.between("aten::addmm before:", "aten::addmm inside").lines
    inside = main.between("aten::addmm inside the block:", "linear(x, W, b) inside").lines
    changed = [new for old, new in zip(before, inside) if old != new]
    return len(before) == len(inside) == 3 and len(changed) == 1 and changed[0].split()[0] == "CPU" \
        and "torch/library.py" in changed[0]


def claim_autograd_still_works(main):
    """#one-key: linear still records AddmmBackward0 and the gradients match; meta tensors go to the Meta kernel and never reach ours."""
    inside = main.between("linear(x, W, b) inside the block:", "aten::addmm after")
    return ("ran 1 time(s)" in inside and inside.line("y.grad_fn").strip() == "y.grad_fn: AddmmBackward0"
            and inside.line("allclose").endswith("True, True")
            and "our kernel ran 0 more time(s); output shape (2, 600)" in inside)


def claim_restored(main):
    """#one-key: when the block ends, the dispatcher restores the previous kernel, and torch's expected override warning is silenced."""
    return (main.between("aten::addmm before:", "aten::addmm inside").lines
            == main.between("aten::addmm after the block:", "linear(x, W, b) after").lines
            and main.between("linear(x, W, b) after the block:").text.strip() == "our kernel ran 0 more time(s)"
            and "Warning" not in main)


def claim_inactive_listed(main):
    """#one-key: inside the block, _dispatch_dump lists our kernel as the active CPU entry and the built-in one as CPU (inactive); Meta holds two kernels too, the Python one of _meta_registrations.py active over a C++ one from RegisterMeta."""
    dump = main.between('_dispatch_dump("aten::addmm") inside the block', "aten::addmm after").lines
    built_in = main.between("aten::addmm before:", "aten::addmm inside").line("RegisterCPU_").split()[-1]
    return ([line.split("<")[0].strip() for line in dump if line] == ["CPU", "CPU (inactive)", "Meta", "Meta (inactive)"]
            and "torch/library.py" in dump[0] and dump[1].split()[-1] == built_in
            and "torch/_meta_registrations.py" in dump[2] and "RegisterMeta_" in dump[3])
