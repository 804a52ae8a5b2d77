"""Write experiments/25-autograd-by-hand/ (derivation, comparisons, chain, graph, manifest) and check it.

Usage: python -m snippets.phase25.lab01.deliverable [OUT_DIR]
"""

from pathlib import Path

import torch

from snippets.experiment import cli, has_manifest, preview, read_manifest, write_manifest
from snippets.minigpt.shipped import WEIGHTS_SHA256
from snippets.phase25.lab01.chain import cross_entropy_graph, walk_by_hand
from snippets.phase25.lab01.compare import NAMES, TOLERANCE, comparison, markdown_table, table
from snippets.phase25.lab01.float32_error import sweep
from snippets.phase25.lab01.minigpt_head import LR, ROWS, SEQ_LEN, head_errors, sgd_step
from snippets.phase25.lab01.problem import BATCH, SEED
from snippets.phase25.theory02.graph_diagram import svg, tree_text

DEFAULT_OUT = Path("experiments/25-autograd-by-hand")
DERIVATION = """# Gradients of nn.Linear(64, 600), by hand

Forward: y = x W^T + b, with x (N, 64), W (600, 64), b (600,), y (N, 600):
y[n, j] = sum_k x[n, k] W[j, k] + b[j].

Let G = dL/dy, of shape (N, 600). Each entry of W, b and x reaches L only through the y[n, j] it
appears in, so the chain rule sums over those:

- dL/dW[j, k] = sum_n G[n, j] x[n, k]            ->  dL/dW = G^T x      (600, 64)
- dL/db[j]    = sum_n G[n, j]                    ->  dL/db = G.sum(0)   (600,)
- dL/dx[n, k] = sum_j G[n, j] W[j, k]            ->  dL/dx = G W        (N, 64)

G for the two losses:

- Cross-entropy (mean over the N rows): L = (1/N) sum_n (log sum_j exp y[n, j] - y[n, t_n]).
  dL/dy[n, j] = (softmax(y[n])[j] - [j == t_n]) / N, that is G = (softmax(y) - one_hot(t)) / N.
- Sum of squares: L = sum_{n, j} y[n, j]^2, so G = 2 y.
"""


def comparison_report() -> str:
    """comparison.md: the table against .backward(), and the float32 sweep over seeds."""
    sweep_rows = [[r["seed"], r["where"], f"{r['value']:.6f}", f"{r['error']:.3e}", f"{r['ulps']:.1f}",
                   "yes" if r["error"] <= TOLERANCE else "no"] for r in sweep()]
    return (f"# Hand gradients against .backward(), seed {SEED}, batch {BATCH}\n\n{table(comparison())}\n\n"
            "## float32 cross-entropy over seeds: the largest error and the value it sits on\n\n"
            + markdown_table(["seed", "where", "value", "abs error", "in float32 ulps", "within 1e-7"],
                             sweep_rows) + "\n")


def chain_report() -> str:
    """chain.md: the graph as a tree, and each node run by hand against its formula (float64)."""
    loss, _, _, leaves = cross_entropy_graph()
    rows = [[s["node"], s["received"], ", ".join(map(str, s["returned"])) or "-", f"{s['max_error']:.1e}",
             s["formula"]] for s in walk_by_hand()]
    return ("# The grad_fn chain of cross_entropy(linear(x, W, b), target)\n\n"
            f"```text\n{tree_text(loss.grad_fn, leaves)}\n```\n\n"
            + markdown_table(["node", "received", "returned", "max abs diff to formula", "formula"], rows) + "\n")


def minigpt_report() -> str:
    """minigpt_head.md: the hand gradients on the grammar MiniGPT's LM head, and one SGD step with them."""
    errors = [[dtype, *(f"{e[name]:.2e}" for name in NAMES), "yes" if max(e.values()) <= TOLERANCE else "no"]
              for dtype, e in head_errors().items()]
    step = [[what, f"{value:.6g}"] for what, value in sgd_step().items()]
    return (f"# The grammar MiniGPT's LM head: {ROWS} held-out rows x {SEQ_LEN} positions\n\n"
            + markdown_table(["dtype", *NAMES, "within 1e-7"], errors)
            + f"\n\n## One SGD step with the hand gradients, lr = {LR}\n\n"
            + markdown_table(["quantity", "value"], step) + "\n")


def graph_svg() -> str:
    """graph.svg: the same graph drawn as boxes and arrows."""
    loss, _, _, leaves = cross_entropy_graph()
    return svg(loss.grad_fn, leaves)


def write_experiment(out: Path = DEFAULT_OUT) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "derivation.md").write_text(DERIVATION, encoding="utf-8")
    (out / "comparison.md").write_text(comparison_report(), encoding="utf-8")
    (out / "chain.md").write_text(chain_report(), encoding="utf-8")
    (out / "minigpt_head.md").write_text(minigpt_report(), encoding="utf-8")
    (out / "graph.svg").write_text(graph_svg(), encoding="utf-8")
    write_manifest(out, SEED, Path(__file__), batch=BATCH, minigpt_weights_sha256=WEIGHTS_SHA256)
    return out


def check_acceptance(out: Path) -> dict[str, bool]:
    """The lab's acceptance list, checked on the folder."""
    text = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    float64_rows = [line for line in text["comparison.md"].splitlines() if "| float64 |" in line]
    head_float64 = [line for line in text["minigpt_head.md"].splitlines() if line.startswith("| float64 |")]
    nodes = ("NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "TBackward0", "AccumulateGrad")
    return {
        "hand gradients match .backward() to 1e-7 in float64 (both losses)":
            len(float64_rows) == 2 and all(line.endswith("| yes |") for line in float64_rows),
        "on the grammar MiniGPT's LM head too, in float64":
            len(head_float64) == 1 and head_float64[0].endswith("| yes |"),
        "the chain names NllLoss, LogSoftmax, Addmm, T and AccumulateGrad nodes":
            all(node in text["chain.md"] for node in nodes),
        "the derivation gives dL/dW, dL/db and dL/dx":
            all(f"dL/d{v} =" in text["derivation.md"] for v in ("W", "b", "x")),
        "graph.svg is drawn from the live graph": "AddmmBackward0" in text["graph.svg"],
        "manifest has torch version, seed, timestamp and code hash":
            has_manifest(out) and read_manifest(out)["torch"] == torch.__version__,
    }


def main():
    preview(write_experiment, DEFAULT_OUT, check_acceptance, "comparison.md")


if __name__ == "__main__":
    cli(write_experiment, DEFAULT_OUT)


def claim_acceptance_met(main):
    """#deliverable: The same code writes the folder, prints the comparison and checks the acceptance list below."""
    return main.count("[x]") == 6 and "[ ]" not in main
