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


def claim_joint_graph(main):
    """#aot-autograd: the joint graph takes primals and tangents and returns the output and the gradients; linear is now aten.t + aten.addmm; backward runs _softmax_backward_data, mm with x for the weight and sum over the batch for the bias; x's gradient is None."""
    joint = main.between("===== joint", "===== forward").text
    return ("def forward(self, primals, tangents)" in joint and "aten.t.default(primals_1)" in joint
            and "aten.addmm.default(primals_2, primals_3, t)" in joint and "_softmax_backward_data.default(tangents_1" in joint
            and "aten.mm.default(t_1, primals_3)" in joint and "aten.sum.dim_IntList(_softmax_backward_data, [0]" in joint
            and "tree_unflatten([_softmax, t_3, view, None]" in joint)


def claim_forward_saves(main):
    """#aot-autograd: the forward graph returns the output plus primals_3 (x) and detach_1 (the softmax output); the backward graph takes exactly those and tangents_1."""
    return ("return (_softmax, primals_3, detach_1)" in main.between("===== forward", "===== backward")
            and "def forward(self, primals_3: \"f32[2, 64]\", detach_1: \"f32[2, 600]\", tangents_1: \"f32[2, 600]\")"
            in main.between("===== backward"))
