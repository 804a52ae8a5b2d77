"""A graph break, explained: Python control flow that depends on a tensor's value, and the branchless fix."""

import torch

from snippets.phase25.theory03.readable import tidy
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def head_with_branch(model, x):
    """TinyHead, but the logits are halved when their maximum is positive: an `if` on tensor data."""
    logits = model.fc(x)
    if logits.max() > 0:
        logits = logits / 2
    return torch.softmax(logits, dim=-1)


def head_branchless(model, x):
    """The same computation with torch.where: both branches are tensor ops, the choice is data."""
    logits = model.fc(x)
    logits = torch.where(logits.max() > 0, logits / 2, logits)
    return torch.softmax(logits, dim=-1)


def explain(fn, model, x):
    """torch._dynamo.explain's report for fn(model, x): graphs, breaks and their reasons."""
    torch._dynamo.reset()
    return torch._dynamo.explain(fn)(model, x)


def fullgraph_error(fn, model, x) -> str:
    """What torch.compile(fullgraph=True) says instead of breaking the graph (its first paragraph)."""
    torch._dynamo.reset()
    try:
        torch.compile(fn, fullgraph=True, backend="eager")(model, x)
    except torch._dynamo.exc.Unsupported as error:
        return tidy(str(error).split("\n  Hint:")[0]).strip()
    return "no error: the function compiled as one graph"


def main():
    model, x = model_and_input()
    report = explain(head_with_branch, model, x)
    print(f"head_with_branch: graphs {report.graph_count}, graph breaks {report.graph_break_count}, "
          f"ops {report.op_count}")
    for reason in report.break_reasons:
        frame = reason.user_stack[-1]
        print(f"break reason: {reason.reason.strip()}  (at line {frame.lineno}: {frame.line})")
    for i, graph in enumerate(report.graphs, 1):
        print(f"\ngraph {i}:\n{graph.code.strip()}")
    print("\nwith fullgraph=True:")
    print(fullgraph_error(head_with_branch, model, x))
    fixed = explain(head_branchless, model, x)
    print(f"\nhead_branchless: graphs {fixed.graph_count}, graph breaks {fixed.graph_break_count}, "
          f"ops {fixed.op_count}")


def claim_two_graphs(main):
    """#graph-breaks: head_with_branch became two graphs; graph 1 returns the comparison gt and the logits, graph 2 starts from the logits; the break reason is generic_jump TensorVariable()."""
    return (main.line("head_with_branch:").endswith("graphs 2, graph breaks 1, ops 4")
            and main.line("break reason:").startswith("break reason: generic_jump TensorVariable()")
            and "return (gt, logits)" in main.between("graph 1:", "graph 2:")
            and "L_logits_" in main.between("graph 2:").lines[0])


def claim_fullgraph_explains(main):
    """#graph-breaks: fullgraph=True explains the break in plain words and points at the line."""
    explained = main.between("with fullgraph=True:", "head_branchless")
    return "Data-dependent branching" in explained and "line 14" in explained


def claim_where_is_one_graph(main):
    """#graph-breaks: with torch.where the whole function is one graph again."""
    return main.line("head_branchless:").endswith("graphs 1, graph breaks 0, ops 5")
