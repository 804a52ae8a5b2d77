"""Inductor on CPU: the decomposed graph it receives, the Python wrapper it writes and its C++ kernel."""

from snippets.phase25.theory03.inductor_code import (PINNED_CPU, aten_ops, call_function, decomposed_graph,
                                                     generated_code, kernels)
from snippets.phase25.theory03.readable import readable
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
HEAD_LINES = 20


def main():
    model, x = model_and_input()
    graph = decomposed_graph(model, x)
    print("the graph Inductor lowers (after its decompositions):")
    print(readable(graph))
    print("\nATen ops:", ", ".join(aten_ops(graph)))
    code = generated_code(model, x, PINNED_CPU)
    print(f"\nthe generated module: {len(code.splitlines())} lines of Python; its call():")
    print(call_function(code))
    for name, source in kernels(code).items():
        lines = source.splitlines()
        print(f"\nkernel {name}: {len(lines)} lines of C++, the first {HEAD_LINES}:")
        print("\n".join(lines[:HEAD_LINES]))
