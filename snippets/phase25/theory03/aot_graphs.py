"""AOTAutograd: the joint forward+backward graph of TinyHead, and the partitioner's split of it in two."""

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.partitioners import min_cut_rematerialization_partition

from snippets.phase25.theory03.readable import readable
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def aot_graphs(model, x) -> dict[str, str]:
    """The joint, forward and backward graphs AOTAutograd builds for one training step of model(x)."""
    graphs = {}

    def partition(joint, joint_inputs, **kwargs):
        graphs["joint"] = readable(joint)
        return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)  # what Inductor uses

    def keep(name):
        def compiler(gm, example_inputs):
            graphs[name] = readable(gm)
            return make_boxed_func(gm.forward)  # run the graph as it is
        return compiler

    backend = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"), partition_fn=partition)
    torch._dynamo.reset()
    y = torch.compile(model, backend=backend)(x)
    y[:, 0].sum().backward()  # the backward graph is compiled on the first backward call
    return graphs


def main():
    model, x = model_and_input()  # the parameters require grad: a training graph
    for name, graph in aot_graphs(model, x).items():
        print(f"===== {name} =====\n{graph}\n")
