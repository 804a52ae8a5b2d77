"""One compile of TinyHead on CPU, stage by stage, drawn (SVG) with its real counts."""

import re

import torch
import torch._inductor.config as inductor_config
from torch._inductor.compile_fx import compile_fx
from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files
from torch._inductor.utils import run_and_get_code

from snippets import figure
from snippets.flowchart import Box, Link, svg
from snippets.phase25.theory03.inductor_code import PINNED_CPU, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
WORDS = {
    "en": {"title": "torch.compile(TinyHead): ", "dynamo": "{graphs} FX graph: {inputs} inputs, {calls} calls",
           "aot": "AOTAutograd + decompositions", "aten": "{n} ATen ops: {ops}", "op": "{}",
           "kernels": "{n} generated kernel: {names}", "extern": "{n} extern call: {names}",
           "views": "{n} view: reinterpret_tensor"},
    "es": {"title": "Una compilación de TinyHead con torch.compile: ",
           "dynamo": "{graphs} grafo FX: {inputs} entradas, {calls} llamadas",
           "aot": "AOTAutograd + descomposiciones", "aten": "{n} ops de ATen: {ops}", "op": "aten.{}",
           "kernels": "{n} kernel generado: {names}", "extern": "{n} llamada externa: {names}",
           "views": "{n} vista: reinterpret_tensor"},
}


class KeepGraph(CustomGraphPass):
    """A post-grad pass that changes nothing and keeps the ATen graph Inductor is about to lower."""

    def __init__(self):
        self.graphs = []

    def __call__(self, graph: torch.fx.Graph) -> None:
        self.graphs.append(str(graph))
        self.ops = [str(node.target) for node in graph.nodes if node.op == "call_function"]

    def uuid(self):
        return get_hash_for_files((__file__,))


def one_compile() -> dict:
    """Dynamo's graph, the ATen ops Inductor lowers, and the generated code, from a single torch.compile."""
    model, x = model_and_input()
    dynamo_graphs, aten = [], KeepGraph()

    def inductor_keeping_dynamo_graph(gm, example_inputs):
        dynamo_graphs.append(gm)
        return compile_fx(gm, example_inputs)

    torch._dynamo.reset()
    options = {**PINNED_CPU, "post_grad_custom_pre_pass": aten, "fx_graph_cache": False}
    with inductor_config.patch(options), torch.no_grad():
        _, codes = run_and_get_code(torch.compile(model, backend=inductor_keeping_dynamo_graph), x)
    nodes = [node.op for node in dynamo_graphs[0].graph.nodes]
    code = "\n".join(codes)
    return {
        "dynamo graphs": len(dynamo_graphs),
        "dynamo inputs": nodes.count("placeholder"),
        "dynamo calls": nodes.count("call_function") + nodes.count("call_method") + nodes.count("call_module"),
        "aten ops": aten.ops,
        "kernels": list(kernels(code)),
        "extern calls": sorted(set(re.findall(r"extern_kernels\.(\w+)\(", code))),
        "views": len(re.findall(r"reinterpret_tensor\(", code)),
    }


def diagram(stages: dict, lang: str) -> str:
    """The pipeline top to bottom, each stage labelled with what it produced in this compile."""
    words = WORDS[lang]
    aten = [words["op"].format(op.replace("aten.", "").rsplit(".", 1)[0]) for op in stages["aten ops"]]
    boxes = [
        ("TinyHead.forward", ["Python: self.fc, torch.softmax"]),
        ("Dynamo", [words["dynamo"].format(graphs=stages["dynamo graphs"], inputs=stages["dynamo inputs"],
                                           calls=stages["dynamo calls"])]),
        (words["aot"], [words["aten"].format(n=len(aten), ops=", ".join(aten))]),
        ("Inductor", [words["kernels"].format(n=len(stages["kernels"]), names=", ".join(stages["kernels"])),
                      words["extern"].format(n=len(stages["extern calls"]), names=", ".join(
                          "extern_kernels." + e for e in stages["extern calls"])),
                      words["views"].format(n=stages["views"])]),
    ]
    title = words["title"] + " > ".join(name for name, _ in boxes)
    desc = "; ".join(f"{name}: {', '.join(what)}" for name, what in boxes)
    return svg([Box((name, *what)) for name, what in boxes], [Link()] * (len(boxes) - 1), title, desc, "pipeline", lang)


def main():
    stages = one_compile()
    print(figure.in_languages("pipeline", lambda lang: (diagram(stages, lang), "")))


def claim_counts(main):
    """#pipeline-diagram: one compile: Dynamo captures 1 graph with 3 inputs and 2 calls, AOTAutograd and the decompositions hand Inductor 7 ATen ops, and Inductor generates 1 kernel plus 1 extern call (addmm) and 1 view."""
    descr = main.desc
    return ("Dynamo: 1 FX graph: 3 inputs, 2 calls" in descr
            and "AOTAutograd + decompositions: 7 ATen ops: permute, addmm, amax, sub, exp, sum, div" in descr
            and "Inductor: 1 generated kernel: cpp_fused__softmax_0, 1 extern call: extern_kernels.addmm, 1 view" in descr)
