"""An operator of our own with a kernel at three keys: each logs itself, so the order of dispatch shows."""

import torch

from snippets.phase25.theory01.dispatch_table import names

C = torch._C
NAMESPACE = "nmb_theory01"


def first_line(error: Exception) -> str:
    """The first sentence of an error message (the rest lists every key that has a kernel)."""
    return str(error).split(". ")[0] + "."


def experiment() -> dict[str, list[str]]:
    """Define nmb_theory01::scale, add kernels one key at a time, and log which run, in which order."""
    log = []
    report = {}
    with torch.library._scoped_library(NAMESPACE, "DEF") as lib:
        lib.define("scale(Tensor x, float s) -> Tensor")
        op = torch.ops.nmb_theory01.scale.default
        x = torch.ones(3, requires_grad=True)

        def cpu(x, s):
            log.append("CPU")
            return x * s

        def autograd(keys, x, s):
            log.append(f"AutogradCPU (called with {', '.join(names(keys))})")
            with C._AutoDispatchBelowAutograd():
                return op.redispatch(keys & C._after_autograd_keyset, x, s)

        def autocast(keys, x, s):
            log.append(f"AutocastCPU (called with {', '.join(names(keys))})")
            return op.redispatch(keys - C.DispatchKeySet(C.DispatchKey.AutocastCPU), x.to(torch.bfloat16), s)

        try:
            op(x.detach(), 2.0)
        except NotImplementedError as error:
            report["schema only, no kernel"] = [f"NotImplementedError: {first_line(error)}"]

        lib.impl("scale", cpu, "CPU")
        op(x.detach(), 2.0)
        report["+ CPU kernel"] = log.copy()
        log.clear()

        lib.impl("scale", autograd, "AutogradCPU", with_keyset=True)
        y = op(x, 2.0)
        report["+ AutogradCPU kernel, x.requires_grad"] = log + [f"-> y.requires_grad {y.requires_grad}"]
        log.clear()

        lib.impl("scale", autocast, "AutocastCPU", with_keyset=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = op(x, 2.0)
        report["+ AutocastCPU kernel, inside torch.autocast('cpu')"] = log + [f"-> y.dtype {y.dtype}"]
    report["after the block"] = [f"torch.ops.{NAMESPACE} has scale: {hasattr(torch.ops.nmb_theory01, 'scale')}"]
    return report


def print_report(report: dict[str, list[str]]) -> None:
    """Each labelled step, then its lines indented."""
    for label, lines in report.items():
        print(f"{label}:")
        for line in lines:
            print(f"    {line}")


def main():
    print_report(experiment())


def claim_schema_without_kernel(main):
    """#one-key: with a schema and no kernel, the call fails at the CPU key."""
    return "Could not run 'nmb_theory01::scale' with arguments from the 'CPU' backend" in \
        main.between("schema only, no kernel:", "+ CPU kernel").text


def claim_order_of_kernels(main):
    """#one-key: AutocastCPU, then AutogradCPU, then CPU, the order of the table; the key set each kernel receives holds no ADInplaceOrView or BackendSelect."""
    ran = [line.split()[0] for line in main.between("+ AutocastCPU kernel", "->").lines]
    return ran == ["AutocastCPU", "AutogradCPU", "CPU"] and "ADInplaceOrView" not in main \
        and "BackendSelect" not in main


def claim_no_grad_recorded(main):
    """#one-key: our autograd kernel only logs, so y.requires_grad is False."""
    return main.line("-> y.requires_grad").strip() == "-> y.requires_grad False"
