"""Part F: write the one-page distributed survey, DISTRIBUTED.md, from a fresh measurement.

Usage: python -m snippets.phase25.distributed.deliverable [OUT_DIR]
runs `torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare` and writes
DISTRIBUTED.md, distributed.json and manifest.json (default experiments/25-distributed/).
`write_survey(out)` writes only the first two: lab 03's deliverable puts them into experiments/25-compile/.
"""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

import torch

from snippets.experiment import cli, write_manifest
from snippets.phase25.distributed import compare, torchrun
from snippets.phase25.distributed.compare import BATCHES, crossover, format_table, rows, verdicts

ISOLATE = True
TIMEOUT = 300
DEFAULT_OUT = Path("experiments/25-distributed")
SEED = 0  # every rank seeds torch with it before the demo (ranks.run); the weights are the shipped MiniGPT's
PATTERNS = {
    "DDP (DistributedDataParallel)": (
        "Every rank holds the whole model and trains on its own slice of the batch; in backward the "
        "gradients are summed across ranks by all-reduce, bucketed and overlapped with the backward pass.",
        "Use it when the model, its gradients and its optimizer state fit on one device and you want "
        "more throughput; when they do not fit, shard them (FSDP) or split the layers (TP, PP)."),
    "FSDP2 (fully_shard)": (
        "Every parameter, gradient and optimizer state is cut into one shard per rank; each unit's "
        "parameters are all-gathered just before its forward (and again before its backward), and its "
        "gradients are reduce-scattered back to shards.",
        "Use it when the model does not fit on one device but one unit (a block) does; the all-gathers "
        "that re-gather parameters for backward come on top of DDP's traffic, so where the model fits, "
        "DDP is cheaper."),
    "Tensor parallel (DTensor, parallelize_module)": (
        "One layer's weight matrices are split across ranks, the first by columns and the next by rows, "
        "so each rank computes part of every matmul and one all-reduce per pair joins the results.",
        "Use it when a single layer is too big or too slow for one device and the ranks share a fast link "
        "(NVLink): it communicates activations in every layer of every step, so its bytes grow with the batch."),
    "Pipeline parallel (torch.distributed.pipelining)": (
        "The model is cut along its depth into stages, one per rank, and micro-batches flow through "
        "them: activations are sent forward, gradients backward, under a GPipe or 1F1B schedule.",
        "Use it for deep models over slow links, where its small point-to-point messages win; it pays "
        "with idle bubbles of (p-1)/(m+p-1) of each step, so with few layers DDP or TP do better."),
}


def paragraph(text: str) -> str:
    """Text folded at 80 columns, words kept whole."""
    return textwrap.fill(text, 80, break_on_hyphens=False)


def survey(table: list[dict]) -> str:
    """DISTRIBUTED.md: two sentences per pattern, the measured table, and the pick for the MiniGPT."""
    by_name = {row["pattern"]: row for row in table}
    ddp, tp = by_name["DDP"], by_name["TP"]
    lines = ["# Distributed survey: DDP, FSDP, tensor parallel, pipeline parallel", "",
             paragraph(f"torch {torch.__version__}; each pattern trained one step of the grammar MiniGPT "
                           "on 2 CPU processes over gloo, started by torchrun (python -m "
                           "snippets.phase25.distributed.deliverable runs torchrun --standalone --nproc-per-node=2 "
                           "-m snippets.phase25.distributed.compare)."), ""]
    for name, (what, when) in PATTERNS.items():
        lines += [f"## {name}", "", paragraph(f"{what} {when}"), ""]
    lines += ["## Measured", "", "```text", format_table(table), *verdicts(table), "```", "",
              "## Which would I pick for the grammar MiniGPT", "", paragraph(
              f"DDP: the whole model is {ddp['params']:,} parameters, so it fits on any device many times over "
              "and nothing needs sharding or splitting. "
              f"Tensor and pipeline parallel send fewer bytes at {BATCHES[0]} sequences, but their bytes grow with "
              f"the batch (tensor parallel passes DDP's from about {crossover(tp, ddp):.0f} sequences) and they "
              f"add calls or bubbles, while DDP makes {sum(ddp['calls'].values())} call per step whose "
              f"{ddp['sent'][BATCHES[0]]:,} bytes never change with the batch. "
              "FSDP would only add all-gathers to save memory this model does not need."), ""]
    return "\n".join(lines)


def write_survey(out: Path, table: list[dict] | None = None) -> list[dict]:
    """Write DISTRIBUTED.md and distributed.json into `out` (a folder whose manifest is written by its
    caller), from `table` (the rows of `compare.rows`) or from a fresh measurement; the table's rows."""
    table = table or rows(torchrun.measure(compare.__name__, deadline=240)[1])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "DISTRIBUTED.md").write_text(survey(table), encoding="utf-8")
    (out / "distributed.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    return table


def write_experiment(out: Path = DEFAULT_OUT, table: list[dict] | None = None) -> Path:
    """The whole reference folder: the survey, its numbers and manifest.json."""
    write_survey(out, table)
    write_manifest(out, SEED, Path(__file__), backend="gloo", world_size=2)
    return Path(out)


def main():
    """Write the survey into a temporary folder from a fresh measurement; print DISTRIBUTED.md."""
    with tempfile.TemporaryDirectory() as folder:
        write_survey(Path(folder))
        print((Path(folder) / "DISTRIBUTED.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    cli(write_experiment, DEFAULT_OUT)


def claim_one_page(main):
    """#summary: each pattern in two sentences, what it was measured to send, and the pick for the grammar MiniGPT,
    from a fresh run of every pattern on two CPU processes started by torchrun."""
    sections = re.split(r"^## ", main.text, flags=re.MULTILINE)[1:]
    patterns = [s for s in sections if not s.startswith(("Measured", "Which would I pick"))]
    sentences = [len(re.findall(r"[.!?](?=\s|$)", " ".join(s.split("\n", 1)[1].split()))) for s in patterns]
    return (sentences == [2, 2, 2, 2] and "on 2 CPU processes over gloo, started by torchrun" in " ".join(main.text.split())
            and "## Measured" in main and "sent/rank @8" in main and "## Which would I pick for the grammar MiniGPT" in main)


def claim_pick_matches_the_table(main):
    """#summary: the written survey agrees with its own table: FSDP2 sends more than DDP, tensor and pipeline
    parallel fewer at 8 sequences, and DDP makes the fewest calls."""
    return (main.number("FSDP2:") > 1 and all(main.number(f"{name}:") < 1 for name in ("TP", "PP GPipe", "PP 1F1B"))
            and main.line("fewest calls per step") == "fewest calls per step: DDP (1)")
