"""Lab 03's exercises: predict what Inductor generates, change the call and run it, explain its numbers."""

import difflib
import re
from collections import Counter

import torch
import torch._inductor.config as inductor_config
from torch._inductor.utils import run_and_get_code

from snippets.minigpt.config import CONFIG
from snippets.phase25.lab03.minigpt_compile import ROWS, SEQ_LEN
from snippets.phase25.lab03.part_c_kernel import fused_softmax_kernel
from snippets.phase25.lab03.part_d_minigpt import attention_kernel
from snippets.phase25.theory03.inductor_code import PINNED_CPU, call_function, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
TIMEOUT = 300
LOOP_BOUND = re.compile(r"for\(int64_t (x\d)=.*?\1<static_cast<int64_t>\((\d+)L\)")
FLOAT_CONSTANT = re.compile(r"static_cast<float>\(([\d.]+)\)")
INPUT_SHAPE = re.compile(r"assert_size_stride\((primals_\d+), (\(.*?\)), ")


def changed_lines(batch: int = 4) -> list[tuple[str, str]]:
    """(line at batch 2, line at `batch`) for every line of the fused softmax kernel that differs."""
    _, two, _ = fused_softmax_kernel(*model_and_input(2))
    _, other, _ = fused_softmax_kernel(*model_and_input(batch))
    matcher = difflib.SequenceMatcher(a=two.splitlines(), b=other.splitlines(), autojunk=False)
    return [(a, b) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
            for a, b in zip(matcher.a[i1:i2], matcher.b[j1:j2], strict=True)]


def batch_4_kernel():
    """Exercise 1: the kernel lines that a batch of 4 changes."""
    pairs = changed_lines(4)
    print(f"lines of cpp_fused__softmax_0 that differ between batch 2 and batch 4: {len(pairs)}")
    for two, four in pairs:
        print(f"  batch 2: {two.strip()}\n  batch 4: {four.strip()}")


def guarded_edits() -> tuple[list[tuple[str, int]], list[list[str]]]:
    """Exercise 2: head(x) = TinyHead(x) / model.temperature, a Python float, compiled once and called after
    each edit; (edit, graphs compiled so far) per call, and the inputs each graph takes."""
    model, x = model_and_input()
    model.temperature = 1.0
    graphs = []

    def backend(graph, inputs):  # keeps what each graph takes as input, and runs it eagerly
        graphs.append([f"{type(t).__name__}{tuple(t.shape)}" for t in inputs])
        return graph.forward

    torch._dynamo.reset()
    head = torch.compile(lambda x: model(x) / model.temperature, backend=backend)
    edits = [("first call", lambda: None), ("same call again", lambda: None),
             ("every weight x2, in place", lambda: [p.mul_(2) for p in model.parameters()]),
             ("temperature = 2.0", lambda: setattr(model, "temperature", 2.0)),
             ("temperature = 3.0", lambda: setattr(model, "temperature", 3.0))]
    counts = []
    with torch.no_grad():
        for name, edit in edits:
            edit()
            head(x)
            counts.append((name, len(graphs)))
    return counts, graphs


def recompiles():
    """Exercise 2: the graphs compiled after each edit, and each graph's inputs."""
    counts, graphs = guarded_edits()
    for name, count in counts:
        print(f"{name:<27} graphs compiled so far: {count}")
    for n, inputs in enumerate(graphs, 1):
        print(f"graph {n} takes: {', '.join(inputs)}")


def loop_bounds(kernel: str) -> list[tuple[str, int]]:
    """(loop variable, trip bound) of every for loop of a C++ kernel, in order."""
    return [(var, int(bound)) for var, bound in LOOP_BOUND.findall(kernel)]


def attention_numbers():
    """Exercise 3: the attention kernel's loop bounds and constant, beside the model's shape."""
    _, kernel, _ = attention_kernel()
    heads, head_dim = CONFIG.n_heads, CONFIG.d_model // CONFIG.n_heads
    print("loop bounds of the attention kernel, in order:",
          ", ".join(f"{var}<{bound}" for var, bound in loop_bounds(kernel)))
    print(f"batch rows x heads     = {ROWS} x {heads} = {ROWS * heads}")
    print(f"sequence length T      = {SEQ_LEN} (queries and keys alike)")
    print(f"rows of scores         = {ROWS * heads} x {SEQ_LEN} = {ROWS * heads * SEQ_LEN}")
    print(f"head size D            = {CONFIG.d_model} / {heads} = {head_dim}; D**-0.5 = {head_dim ** -0.5}")
    constants = sorted(set(FLOAT_CONSTANT.findall(kernel)))
    print(f"float constants in the kernel: {', '.join(constants)}")


def training_modules() -> list[str]:
    """The generated modules when the compiled TinyHead runs forward and backward, in order."""
    model, x = model_and_input()
    torch._dynamo.reset()
    compiled = torch.compile(model)

    def step():
        compiled(x.requires_grad_()).pow(2).sum().backward()

    with inductor_config.patch(PINNED_CPU):
        _, codes = run_and_get_code(step)
    return codes


def training():
    """Exercise 4: what each generated module holds when the compiled TinyHead also runs backward."""
    codes = training_modules()
    shapes = sorted(INPUT_SHAPE.findall(codes[0]))
    print("inputs of the forward:", ", ".join(f"{name} {shape}" for name, shape in shapes))
    for number, code in enumerate(codes, 1):
        print(f"module {number}: kernels {', '.join(kernels(code))}")
        externs = re.findall(r"extern_kernels\.(\w+)\(", call_function(code))
        print(f"          extern calls {', '.join(externs)}")
        print(f"          returns {re.search(r'return (.*)', call_function(code))[1]}")


def census_backend(found: list):
    """Exercise 5: a Dynamo backend that appends to `found`, for each graph it is given, how many times the
    graph calls each function or method (by name, sorted), and runs the graph as it is."""
    def census(graph, example_inputs):
        calls = Counter(getattr(node.target, "__name__", str(node.target)) for node in graph.graph.nodes
                        if node.op in ("call_function", "call_method"))
        found.append(dict(sorted(calls.items())))
        return graph.forward
    return census


def scores_with_a_break(x):
    """Scores of x against itself, a graph break, then their softmax's sum."""
    scores = torch.relu(x @ x.T) / x.shape[-1] ** 0.5
    torch._dynamo.graph_break()
    return torch.softmax(scores, dim=-1).sum()


def census_of_a_break() -> tuple[list[dict], int, bool]:
    """Exercise 5: the census of every graph of scores_with_a_break, the graph count torch._dynamo.explain
    reports, and whether the compiled function returns what eager does."""
    x = torch.randn(4, 8)
    found = []
    torch._dynamo.reset()
    compiled = torch.compile(scores_with_a_break, backend=census_backend(found))
    same = torch.equal(compiled(x), scores_with_a_break(x))
    torch._dynamo.reset()
    return found, torch._dynamo.explain(scores_with_a_break)(x).graph_count, same


def exercise5():
    found, explained, same = census_of_a_break()
    for n, calls in enumerate(found, 1):
        print(f"graph {n}: " + ", ".join(f"{name} x{count}" for name, count in calls.items()))
    print(f"graphs your backend saw: {len(found)}; torch._dynamo.explain counts: {explained}")
    print(f"the compiled function returns what eager does: {same}")


def claim_one_line(batch_4_kernel):
    """#exercises: one line changes, the bound of the outer loop over rows."""
    return (batch_4_kernel.number("differ between batch 2 and batch 4:") == 1
            and "x0<static_cast<int64_t>(2L)" in batch_4_kernel.line("batch 2: for")
            and "x0<static_cast<int64_t>(4L)" in batch_4_kernel.line("batch 4: for"))


def claim_guarded_edits(recompiles):
    """#exercises: new weight values compile nothing; the first new temperature compiles a second graph, which takes the temperature as a 0-d tensor input beside the weights and x, and serves the next one."""
    counts = [recompiles.number(name, 0) for name in ("first call", "same call again", "every weight x2",
                                                      "temperature = 2.0", "temperature = 3.0")]
    first, second = (recompiles.line(f"graph {n} takes:").split(": ", 1)[1] for n in (1, 2))
    return (counts == [1, 1, 1, 2, 2] and "graph 3" not in recompiles.text
            and second == first + ", Tensor()" and first.count("Parameter") == 2)


def claim_attention_numbers(attention_numbers):
    """#exercises: bounds 16, 64 and 1024; 16 = 4 x 4, 1024 = 16 x 64; 0.25, the one float constant, is
    D**-0.5 for D = 64 / 4 = 16."""
    bounds = attention_numbers.line("loop bounds")
    return ("x0<16, x1<64, x2<64" in bounds and "x0<1024" in bounds
            and attention_numbers.line("batch rows x heads").endswith("4 x 4 = 16")
            and attention_numbers.line("rows of scores").endswith("16 x 64 = 1024")
            and attention_numbers.line("float constants in the kernel:").endswith(": 0.25")
            and attention_numbers.line("head size D").endswith("= 64 / 4 = 16; D**-0.5 = 0.25"))


def claim_training_modules(training):
    """#exercises: two modules; the forward returns the probabilities twice and two inputs; the backward fuses
    _softmax_backward_data and sum, with two extern mm calls."""
    return (training.count("module ") == 2 and "module 1: kernels cpp_fused__softmax_0" in training
            and "kernels cpp_fused__softmax_backward_data_0, cpp_fused_sum_1" in training
            and "extern calls mm, mm" in training and "returns (buf4, primals_1, primals_3, buf4, )" in training
            and "primals_1 (600, 64), primals_2 (600, ), primals_3 (2, 64)" in training)


def claim_census(exercise5):
    """#exercises: the backend sees two graphs, as many as torch._dynamo.explain counts: the transpose (a getattr), the product, relu and division before the break, softmax and sum after it; the compiled function returns what eager does."""
    return (exercise5.line("graph 1:") == "graph 1: getattr x1, matmul x1, relu x1, truediv x1"
            and exercise5.line("graph 2:") == "graph 2: softmax x1, sum x1"
            and exercise5.line("graphs your backend saw").endswith("saw: 2; torch._dynamo.explain counts: 2")
            and exercise5.line("returns what eager does").endswith("True"))
