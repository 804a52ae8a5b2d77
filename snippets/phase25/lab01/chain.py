"""Walk the cross-entropy graph node by node: call each node by hand, check it against the formulas."""

import torch
import torch.nn.functional as F

from snippets.phase25.lab01.hand_gradients import cross_entropy_grad, linear_backward
from snippets.phase25.lab01.problem import VOCAB, head_problem
from snippets.phase25.theory02.graph_walk import label, leaf_name


def gap(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


class Walk:
    """Calls nodes one at a time; logs what each received and returned, and its gap to the formula."""

    def __init__(self, leaves: dict[str, torch.Tensor]):
        self.leaves, self.steps = leaves, []

    def log(self, node: str, received, returned, formula: str, error: float):
        self.steps.append({"node": node, "received": tuple(received.shape),
                           "returned": [tuple(r.shape) for r in returned],
                           "formula": formula, "max_error": error})

    def call(self, node, grad, formula: str, expected: list[torch.Tensor]) -> tuple:
        """Run one backward node on `grad`, as the engine would."""
        out = node(grad)
        out = out if isinstance(out, tuple) else (out,)
        error = max(gap(o, e) for o, e in zip(out, expected))
        self.log(label(node, self.leaves), grad, out, formula, error)
        return out

    def accumulate(self, node, grad, expected: torch.Tensor):
        """Run an AccumulateGrad node: it adds `grad` into its leaf's .grad and returns nothing."""
        node(grad)
        name = leaf_name(node, self.leaves)
        error = gap(self.leaves[name].grad, expected)
        self.log(label(node, self.leaves), grad, [], f"{name}.grad += gradient", error)


def cross_entropy_graph(dtype: torch.dtype = torch.float32):
    """The lab's problem run forward with autograd on: loss, logits, target, the leaves by name."""
    x, W, b, target = head_problem(dtype)
    leaves = {"x": x.requires_grad_(), "W": W.requires_grad_(), "b": b.requires_grad_()}
    logits = F.linear(x, W, b)
    return F.cross_entropy(logits, target), logits, target, leaves


def walk_by_hand(dtype: torch.dtype = torch.float64) -> list[dict]:
    """The cross-entropy graph run by hand, node by node, in the order backward runs it."""
    loss, logits, target, leaves = cross_entropy_graph(dtype)
    x, W = leaves["x"], leaves["W"]
    G = cross_entropy_grad(logits.detach(), target)
    dx, dW, db = linear_backward(G, x.detach(), W.detach())
    walk = Walk(leaves)

    nll = loss.grad_fn
    (g_logp,) = walk.call(nll, torch.ones((), dtype=dtype), "-one_hot(target) / N",
                          [-F.one_hot(target, VOCAB).to(dtype) / x.shape[0]])
    log_softmax = nll.next_functions[0][0]
    (g_logits,) = walk.call(log_softmax, g_logp, "G = (softmax(y) - one_hot(target)) / N", [G])
    addmm = log_softmax.next_functions[0][0]
    g_bias, g_x, g_Wt = walk.call(addmm, g_logits, "G (for b, before the engine sums it), G @ W, x.T @ G",
                                  [G, dx, dW.T])
    walk.log("engine: sum_to", g_bias, [g_bias.sum(0)], "G.sum(0): reduced to b's shape",
             gap(g_bias.sum(0), db))
    (bias_node, _), (input_node, _), (t_node, _) = addmm.next_functions
    walk.accumulate(bias_node, g_bias.sum(0), db)
    walk.accumulate(input_node, g_x, dx)
    (g_W,) = walk.call(t_node, g_Wt, "(x.T @ G).T = G.T @ x", [dW])
    walk.accumulate(t_node.next_functions[0][0], g_W, dW)
    return walk.steps


def main():
    print(f"{'node':20} {'received':10} {'returned':28} {'max |diff|':>10}  formula")
    for step in walk_by_hand():
        returned = ", ".join(map(str, step["returned"])) or "-"
        print(f"{step['node']:20} {str(step['received']):10} {returned:28} "
              f"{step['max_error']:>10.1e}  {step['formula']}")


def claim_each_node_matches_its_formula(main):
    """#walk-chain: Each call is checked against the formula from part A (in float64)."""
    errors = [float(re.findall(r"\d\.\de[-+]\d\d", line)[0]) for line in main.lines[1:]]
    return len(errors) == 8 and max(errors) < 1e-15


def claim_nodes_of_the_table(main):
    """#walk-chain: The nodes run in the order of the table, each receiving and sending the shapes it lists: `TBackward0` turns `(64, 600)` into `(600, 64)`."""
    order = ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "engine:", "AccumulateGrad(b)",
             "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]
    return ([line.split()[0] for line in main.lines[1:]] == order
            and main.line("TBackward0").split()[1:5] == ["(64,", "600)", "(600,", "64)"])


def claim_no_cross_entropy_node(main):
    """#walk-chain: There is no node for cross-entropy: the loss is `log_softmax` then `nll_loss`."""
    return "CrossEntropy" not in main and [line.split()[0] for line in main.lines[1:3]] == [
        "NllLossBackward0", "LogSoftmaxBackward0"]


def claim_engine_sums_the_bias(main):
    """#walk-chain: `AddmmBackward0` returns the `(2, 600)` gradient of the broadcast bias, and the engine reduces it to the shape `b` had in forward."""
    return ("(2, 600), (2, 64), (64, 600)" in main.line("AddmmBackward0")
            and main.line("engine: sum_to").split()[2:5] == ["(2,", "600)", "(600,)"])
