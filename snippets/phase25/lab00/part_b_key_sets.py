"""Part B: the dispatch key set a tensor carries, and a method often named for it that does not exist."""

import torch

from snippets.phase25.lab00.part_a_baseline import make_inputs


def key_set(t: torch.Tensor) -> str:
    """The tensor's DispatchKeySet as torch prints it."""
    return str(torch._C._dispatch_keys(t))


def missing_method() -> str:
    """What `x._dispatch_key_set()` (a call often written for it) really does."""
    x, _, _ = make_inputs()
    try:
        x._dispatch_key_set()
    except AttributeError as error:
        return f"AttributeError: {error}"
    return "x._dispatch_key_set() exists"


def key_sets() -> dict[str, str]:
    """Key sets across grad flags, dtypes, inference mode and the meta device."""
    x, _, _ = make_inputs()
    rows = {
        "x (float32, requires_grad=True)": key_set(x),
        "x.detach() (requires_grad=False)": key_set(x.detach()),
    }
    for dtype in (torch.float16, torch.bfloat16, torch.float64, torch.int64):
        rows[f"torch.empty(1, dtype={dtype})"] = key_set(torch.empty(1, dtype=dtype))
    with torch.inference_mode():
        rows["made under torch.inference_mode()"] = key_set(torch.empty(1))
    rows["torch.empty(1, device='meta')"] = key_set(torch.empty(1, device="meta"))
    return rows


def main():
    print("x._dispatch_key_set() ->", missing_method())
    print()
    for label, keys in key_sets().items():
        print(f"{label:36} {keys}")


def claim_no_method(main):
    """#part-b: There is no `Tensor._dispatch_key_set()`."""
    return "AttributeError" in main.line("_dispatch_key_set()")


def claim_dtype_is_not_a_key(main):
    """#part-b: float16, bfloat16, float64 and int64 tensors carry exactly the key set of a float32 one."""
    keys = main.line("float32").split(maxsplit=3)[-1]
    return all(main.line(f"dtype=torch.{dtype})").endswith(keys) for dtype in ("float16", "bfloat16", "float64", "int64"))


def claim_no_grad_keeps_autograd(main):
    """#part-b: `requires_grad=False` keeps `AutogradCPU`."""
    return "AutogradCPU" in main.line("requires_grad=False")


def claim_inference_drops_autograd(main):
    """#part-b: Only tensors made under `torch.inference_mode()` drop `ADInplaceOrView` and `AutogradCPU`."""
    dropped = [line for line in main.lines if "DispatchKeySet" in line and "AutogradCPU" not in line
               and "ADInplaceOrView" not in line]
    return dropped == [main.line("inference_mode")]
