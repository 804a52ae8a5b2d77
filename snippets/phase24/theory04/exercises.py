"""Solutions of theory 04's new exercises, each one run: layers kept in a Python list, which the
registry never sees, and the tensors whose dispatch keys do or do not change."""

import torch
from torch import nn

from snippets.phase24.theory04.dispatch_keys import key_sets
from snippets.phase25.theory01.dispatch_table import names


class ListedMLP(nn.Module):
    """TinyMLP's two layers kept in a container: a plain Python list, or an nn.ModuleList."""

    def __init__(self, container=list):
        super().__init__()
        self.layers = container([nn.Linear(64, 256), nn.Linear(256, 600)])

    def forward(self, x):
        return self.layers[1](torch.relu(self.layers[0](x)))


def what_the_registry_sees(container) -> dict[str, object]:
    """What parameters(), state_dict() and .double() reach when the layers sit in `container`."""
    model = ListedMLP(container).double()
    return {
        "tensors in parameters()": len(list(model.parameters())),
        "entries in state_dict()": len(model.state_dict()),
        "weights after .double()": str(model.layers[0].weight.dtype).removeprefix("torch."),
        "forward(float64 input)": forward_outcome(model),
    }


def forward_outcome(model: nn.Module) -> str:
    """`ok`, or the error a float64 (2, 64) input raises, up to its first comma."""
    try:
        model(torch.randn(2, 64, dtype=torch.float64))
    except RuntimeError as error:  # the exercise is about the error
        return f"RuntimeError: {str(error).split(',')[0]}"
    return "ok"


def layers_in_a_list():
    for container in (list, nn.ModuleList):
        print(f"self.layers = {container.__name__}([...])")
        for what, value in what_the_registry_sees(container).items():
            print(f"  {what:23} {value}")


def more_key_sets() -> dict[str, str]:
    """The keys of four more tensors, each beside a plain float32 CPU tensor's."""
    x = torch.ones(2, 3)
    with torch.no_grad():
        under_no_grad = torch.ones(2, 3)
    with torch.inference_mode():
        under_inference_mode = torch.ones(2, 3)
    tensors = {"bfloat16": torch.ones(2, 3, dtype=torch.bfloat16), "x.t() (not contiguous)": x.t(),
               "made under no_grad()": under_no_grad, "made under inference_mode()": under_inference_mode}
    return {name: ", ".join(names(torch._C._dispatch_keys(t))) for name, t in tensors.items()}


def which_keys_change():
    plain = key_sets()["float32 on cpu"]
    print(f"{'float32 on cpu':28} {plain}")
    for name, keys in more_key_sets().items():
        print(f"{name:28} {'same keys' if keys == plain else keys}")


def claim_list_is_invisible(layers_in_a_list):
    """#exercises: in a plain list the layers are invisible: no parameters, an empty state_dict, .double() leaves them float32 and the forward fails; nn.ModuleList registers the four tensors."""
    listed, module_list = (layers_in_a_list.between(start, end) for start, end in (("= list(", "= ModuleList("),
                                                                                 ("= ModuleList(", None)))
    return (listed.number("in parameters()") == listed.number("in state_dict()") == 0
            and listed.line("after .double()").endswith("float32") and "RuntimeError" in listed.line("forward(")
            and module_list.number("in parameters()") == module_list.number("in state_dict()") == 4
            and module_list.line("after .double()").endswith("float64") and module_list.line("forward(").endswith("ok"))


def claim_only_inference_mode_changes_keys(which_keys_change):
    """#exercises: bfloat16, a transposed view and a tensor made under no_grad carry the same keys; one made under inference_mode loses ADInplaceOrView and AutogradCPU."""
    out = which_keys_change
    same = all(out.line(name).endswith("same keys") for name in ("bfloat16", "x.t()", "under no_grad()"))
    inference = out.line("under inference_mode()")
    return same and "Autograd" not in inference and "ADInplaceOrView" not in inference and "CPU" in inference
