"""torch.compile(fullgraph=True) around the LM head and nmb::softmax: one graph, the op kept whole."""

import torch

from snippets.phase25.lab02 import ops
from snippets.phase25.lab02.generated import call_function, compile_step

DEVICES = ("cpu", "cuda")
ISOLATE = True


class Head(torch.nn.Module):
    """The grammar MiniGPT's LM head followed by the custom op."""

    def __init__(self):
        super().__init__()
        self.lm_head = torch.nn.Linear(64, 600)

    def forward(self, x):
        return ops.softmax(self.lm_head(x))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model, x = Head().to(device), torch.randn(2, 64, device=device, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    print(f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}")
    difference, codes = compile_step(model, x)
    print(f"compiled vs eager, output and gradients, max |difference|: {difference:.1e}")
    for name, code in zip(("forward", "backward"), codes, strict=True):
        print(f"\n# generated {name}\n{call_function(code)}")
