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


def claim_five_softmax_ops(main):
    """#inductor-cpu: Inductor's decompositions break _softmax into the five ops a softmax is made of."""
    ops = main.line("ATen ops:").split(": ")[1].split(", ")
    return ops[2:] == ["aten.amax.default", "aten.sub.Tensor", "aten.exp.default", "aten.sum.dim_IntList", "aten.div.Tensor"]


def claim_one_kernel(main):
    """#inductor-cpu: only one kernel was generated, cpp_fused__softmax_0; addmm is an extern_kernels.addmm call and the permute is a view, reinterpret_tensor(arg0_1, (64, 600), (1, 64), 0)."""
    call = main.between("its call():", "kernel cpp_fused").text
    launches = [line.strip() for line in call.splitlines() if re.match(r"\s+\w+\(buf", line)]
    return (launches == ["cpp_fused__softmax_0(buf0, buf1, buf3, buf4)"] and call.count("extern_kernels.addmm(") == 1
            and "reinterpret_tensor(arg0_1, (64, 600), (1, 64), 0)" in call)


def claim_buffers(main):
    """#inductor-cpu: call() allocates buf1 and buf3 of shape (2, 1) for the row maxima and sums, buf4 for the result; there is no buf2."""
    call = main.between("its call():", "kernel cpp_fused").text
    return ("buf1 = empty_strided_cpu((2, 1)" in call and "buf3 = empty_strided_cpu((2, 1)" in call
            and "buf4 = empty_strided_cpu((2, 600)" in call and "buf2" not in call)


def claim_constants(main):
    """#inductor-cpu: shapes and strides are constants (assert_size_stride(arg2_1, (2, 64), (64, 1)), 600L in the loops), and with cpp.simdlen=256 the loop steps 8 floats."""
    return ("assert_size_stride(arg2_1, (2, 64), (64, 1)" in main and "<static_cast<int64_t>(600L)" in main
            and "x1+=static_cast<int64_t>(8L)" in main)


def claim_scratch_row(main):
    """#cpp-vs-triton: on CPU the intermediates go to a scratch row of 600 floats, allocated on the heap at each call."""
    return main.count("std::make_unique<float []>(600L)") == 1


def claim_inference_graph(main):
    """#aot-autograd: under torch.no_grad() there is no joint graph: AOTAutograd produces a single inference graph, which is what the rest of this page compiles."""
    graph = main.between("the graph Inductor lowers", "ATen ops:").text
    return "primals" not in graph and "tangents" not in graph and graph.count("def forward(") == 1
