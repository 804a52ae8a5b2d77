"""Where PyTorch differs from NumPy: devices, autograd, type promotion (fp16 + fp32 included)."""

import numpy as np
import torch


def outcome(fn, device: bool = False) -> str:
    """The dtype (and device, if asked) of what `fn()` returns, or the first line of its error."""
    try:
        result = fn()
    except Exception as error:  # the page is about which calls fail
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    dtype = str(result.dtype).removeprefix("torch.")
    return f"{dtype} on {result.device}" if device else dtype


def device_rules() -> dict[str, str]:
    """Mixing devices, shown with the `meta` device (no GPU needed): an error, except for 0-d tensors."""
    cpu, meta = torch.ones(2), torch.ones(2, device="meta")
    return {
        "cpu (2,) + meta (2,)": outcome(lambda: cpu + meta, device=True),
        "meta (2,) + cpu 0-d tensor": outcome(lambda: meta + torch.tensor(1.0), device=True),
    }


def autograd_rules() -> dict[str, object]:
    """Gradients recorded, accumulated across backward() calls, and not recorded under no_grad."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    first_node = type(y.grad_fn).__name__
    y.backward()
    once = x.grad.tolist()
    (x * x).sum().backward()
    twice = x.grad.tolist()
    with torch.no_grad():
        z = (x * x).sum()
    return {"grad_fn of (x * x).sum()": first_node, "x.grad after one backward()": once,
            "x.grad after a second backward()": twice, "under no_grad: grad_fn": z.grad_fn,
            "under no_grad: requires_grad": z.requires_grad}


def promotion_table() -> list[tuple[str, str, str]]:
    """(expression, torch result, NumPy result): same operands in both libraries."""
    h16, f32 = torch.ones(2, dtype=torch.float16), torch.ones(2)
    n16, n32 = np.ones(2, np.float16), np.ones(2, np.float32)
    i64, ni64 = torch.arange(3), np.arange(3)
    m16, m32 = torch.ones(2, 3, dtype=torch.float16), torch.ones(3, 2)
    nm16, nm32 = np.ones((2, 3), np.float16), np.ones((3, 2), np.float32)
    return [
        ("fp16 (2,) + fp32 (2,)", outcome(lambda: h16 + f32), outcome(lambda: n16 + n32)),
        ("fp16 (2,) + fp32 0-d", outcome(lambda: h16 + torch.tensor(1.0)),
         outcome(lambda: n16 + np.array(1.0, np.float32))),
        ("fp16 (2,) + Python float", outcome(lambda: h16 + 1.0), outcome(lambda: n16 + 1.0)),
        ("int64 (3,) + 2.5", outcome(lambda: i64 + 2.5), outcome(lambda: ni64 + 2.5)),
        ("int64 (3,) / int64 (3,)", outcome(lambda: i64 / (i64 + 1)), outcome(lambda: ni64 / (ni64 + 1))),
        ("fp16 (2,3) @ fp32 (3,2)", outcome(lambda: m16 @ m32), outcome(lambda: nm16 @ nm32)),
    ]


def main():
    print("devices")
    for case, result in device_rules().items():
        print(f"  {case:34} {result}")
    print("autograd")
    for case, result in autograd_rules().items():
        print(f"  {case:34} {result}")
    print("promotion")
    print(f"  {'operands':26} {'numpy':8} torch")
    for case, in_torch, in_numpy in promotion_table():
        print(f"  {case:26} {in_numpy:8} {in_torch}")


def claim_devices(main):
    """#numpy-differences: an op between tensors on two devices is an error, except with a 0-d CPU tensor."""
    return "RuntimeError" in main.line("cpu (2,) + meta (2,)") and main.line("0-d tensor").endswith("float32 on meta")


def claim_autograd(main):
    """#numpy-differences: a second backward doubles the gradient; under no_grad nothing is recorded."""
    return (main.line("after one backward()").endswith("[2.0, 4.0, 6.0]")
            and main.line("after a second backward()").endswith("[4.0, 8.0, 12.0]")
            and main.line("under no_grad: grad_fn").endswith("None"))


def claim_promotion(main):
    """#numpy-differences: fp16 + fp32 tensors give float32 in both; a 0-d fp32 tensor leaves float16 in torch while NumPy 2 promotes; integer plus float gives float32 in torch and float64 in NumPy; fp16 @ fp32 is an error in torch and float32 in NumPy."""
    def row(case):
        return main.line(case).split(case, 1)[1].split()
    return (row("fp16 (2,) + fp32 (2,)") == ["float32", "float32"] and row("fp16 (2,) + fp32 0-d") == ["float32", "float16"]
            and row("int64 (3,) + 2.5") == ["float64", "float32"]
            and row("fp16 (2,3) @ fp32 (3,2)")[:2] == ["float32", "RuntimeError:"])
