"""Mixing devices on a real GPU: an error between CPU and CUDA tensors, except for a 0-d CPU tensor."""

import torch

from snippets.phase24.theory04.numpy_differences import outcome

DEVICES = ("cuda",)


def device_rules() -> dict[str, str]:
    """What adding a CPU tensor to a CUDA tensor gives, by the CPU tensor's shape."""
    gpu = torch.ones(2, device="cuda")
    return {
        "cuda (2,) + cpu (2,)": outcome(lambda: gpu + torch.ones(2), device=True),
        "cuda (2,) + cpu 0-d tensor": outcome(lambda: gpu + torch.tensor(1.0), device=True),
        "cuda (2,) + cpu (2,).cuda()": outcome(lambda: gpu + torch.ones(2).cuda(), device=True),
    }


def main():
    for case, result in device_rules().items():
        print(f"{case:30} {result}")


def claim_same_rule_on_a_gpu(main):
    """#numpy-differences: on a real GPU, cuda + cpu tensors is an error, and a 0-d CPU tensor combines as a scalar would."""
    return "RuntimeError" in main.line("cuda (2,) + cpu (2,) ") and main.line("cpu 0-d tensor").endswith("on cuda:0")
