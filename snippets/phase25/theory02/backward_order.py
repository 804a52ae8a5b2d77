"""Reverse traversal: the order in which backward runs the nodes, logged by a pre-hook on each."""

from snippets.phase25.theory02.graph_diagram import head_loss
from snippets.phase25.theory02.graph_walk import label, walk

LEAF_SEQUENCE_NR = 2**64 - 1  # UINT64_MAX: AccumulateGrad's, the top priority in the ready queue


def backward_order() -> list[dict]:
    """The nodes in the order backward ran them, what each received, and when forward made it."""
    loss, leaves = head_loss()
    nodes, _ = walk(loss.grad_fn)
    made = sorted((n for n in nodes if n._sequence_nr() != LEAF_SEQUENCE_NR), key=lambda n: n._sequence_nr())
    log = []
    for node in nodes:
        def record(grad_outputs, node=node):
            log.append({"node": label(node, leaves),
                        "received": [tuple(g.shape) for g in grad_outputs],
                        "made": f"op {made.index(node) + 1} of {len(made)}" if node in made else None})
        node.register_prehook(record)
    loss.backward()
    return log


def main():
    print(f"{'ran':>3}  {'node':20} {'received':12} made in forward")
    for step, row in enumerate(backward_order(), 1):
        made = row["made"] or "(a leaf's node: sequence_nr = UINT64_MAX)"
        print(f"{step:>3}  {row['node']:20} {', '.join(map(str, row['received'])):12} {made}")


def claim_reverse_creation(main):
    """#reverse-traversal: the four ops (t, addmm, log_softmax, nll_loss) run in exactly the reverse order of their creation."""
    ops = [(line.split()[1], int(line.split("op ")[1].split()[0])) for line in main.lines if " of 4" in line]
    return ops == [("NllLossBackward0", 4), ("LogSoftmaxBackward0", 3), ("AddmmBackward0", 2), ("TBackward0", 1)]


def claim_leaves_early(main):
    """#reverse-traversal: a leaf's gradient is written the moment it is ready: b and x get theirs before TBackward0 even runs; AccumulateGrad(b) received (600,)."""
    ran = {line.split()[1]: int(line.split()[0]) for line in main.lines[1:] if line.strip()}
    return (ran["AccumulateGrad(b)"] < ran["TBackward0"] and ran["AccumulateGrad(x)"] < ran["TBackward0"]
            and main.line("AccumulateGrad(b)").split()[2] == "(600,)")
