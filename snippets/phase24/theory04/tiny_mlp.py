"""nn.Module as a parameter registry: what TinyMLP holds, saves and flags."""

import torch
from torch import nn


class TinyMLP(nn.Module):
    """64 -> 256 -> 600: a small MLP whose output is the size of the grammar vocabulary."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 600)  # 600 = grammar MiniGPT vocab size

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def registry(model: nn.Module) -> list[tuple[str, tuple, str, bool]]:
    """(name, shape, class, requires_grad) of every registered parameter, in registration order."""
    return [(name, tuple(p.shape), type(p).__name__, p.requires_grad) for name, p in model.named_parameters()]


def state_dict_shares_storage(model: nn.Module) -> bool:
    """Whether state_dict() hands back the parameters' own bytes rather than copies."""
    return all(t.data_ptr() == p.data_ptr() for t, p in zip(model.state_dict().values(), model.parameters()))


def what_gets_registered() -> dict[str, tuple[bool, bool]]:
    """For three new attributes: (in parameters(), in state_dict()). Only Parameter and buffers count."""
    model = TinyMLP()
    model.plain = torch.ones(3)  # a tensor attribute: invisible to the registry
    model.scale = nn.Parameter(torch.ones(3))  # assigning a Parameter registers it
    model.register_buffer("running", torch.zeros(3))  # saved and moved, never trained
    params, state = dict(model.named_parameters()), model.state_dict()
    return {name: (name in params, name in state) for name in ("plain", "scale", "running")}


def mode_flags(model: nn.Module) -> dict[str, list[bool]]:
    """`.training` of the module and each submodule after train() and after eval()."""
    return {call: [m.training for m in getattr(model, call)().modules()] for call in ("train", "eval")}


def main():
    torch.manual_seed(0)
    model = TinyMLP()
    for name, shape, cls, grad in registry(model):
        print(f"{name:12} {str(shape):12} {cls:10} requires_grad={grad}")
    print("parameters:", sum(p.numel() for p in model.parameters()))
    print("state_dict keys:", list(model.state_dict()))
    print("state_dict tensors share the parameters' bytes:", state_dict_shares_storage(model))
    for name, (in_params, in_state) in what_gets_registered().items():
        print(f"attribute {name!r:10} in parameters(): {in_params!s:5}  in state_dict(): {in_state}")
    for call, flags in mode_flags(model).items():
        print(f"after .{call}(): training flags of model, fc1, fc2 = {flags}")


def claim_registry(main):
    """#module-registry: parameters() lists the four parameters in registration order; a plain tensor attribute is in neither parameters() nor state_dict(), a buffer only in state_dict(); state_dict tensors share the parameters' bytes; .train() and .eval() set the flag on every submodule."""
    return (main.line("state_dict keys").endswith("['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']")
            and main.line("'plain'").split()[-4:] == ["False", "in", "state_dict():", "False"]
            and main.line("'running'").split()[-4:] == ["False", "in", "state_dict():", "True"]
            and main.line("share the parameters' bytes").endswith("True")
            and main.line("after .train()").endswith("[True, True, True]") and main.line("after .eval()").endswith("[False, False, False]"))
