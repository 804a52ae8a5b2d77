"""Two pictures from one run on two ranks (gloo, CPU): the four collectives, each rank's tensor before and
after; and what each rank holds of a 2-layer model under DDP, FSDP2, tensor parallel and a pipeline."""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from snippets import figure
from snippets.phase25.distributed import ranks, torchrun

ISOLATE = True
TIMEOUT = 300
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "send_recv")
PATTERNS = ("DDP", "FSDP2", "TP", "PP")
WORDS = {
    "en": {"c_title": "The four collectives on {n} ranks (gloo): each rank's tensor before and after",
           "h_title": "What each of {n} ranks holds of a 2-layer model under DDP, FSDP2, tensor parallel and a pipeline",
           "before": "before", "after": "after", "rank": "rank {r}", "nothing": "nothing",
           "all_reduce": "all_reduce (sum)", "all_gather": "all_gather", "reduce_scatter": "reduce_scatter (sum)",
           "send_recv": "send 0 → recv 1", "c_row": "{name}: {ranks}", "c_rank": "rank {r} {before} → {after}",
           "h_row": "{pattern}: {ranks}", "h_rank": "rank {r} holds {params}", "DDP": "DDP", "FSDP2": "FSDP2",
           "TP": "tensor parallel", "PP": "pipeline (2 stages)"},
    "es": {"c_title": "Las cuatro colectivas en {n} ranks (gloo): el tensor de cada rank antes y después",
           "h_title": "Qué guarda cada uno de los {n} ranks de un modelo de 2 capas con DDP, FSDP2, tensor parallel y un pipeline",
           "before": "antes", "after": "después", "rank": "rank {r}", "nothing": "nada",
           "all_reduce": "all_reduce (suma)", "all_gather": "all_gather", "reduce_scatter": "reduce_scatter (suma)",
           "send_recv": "send 0 → recv 1", "c_row": "{name}: {ranks}", "c_rank": "rank {r} {before} → {after}",
           "h_row": "{pattern}: {ranks}", "h_rank": "el rank {r} guarda {params}", "DDP": "DDP", "FSDP2": "FSDP2",
           "TP": "tensor parallel", "PP": "pipeline (2 etapas)"},
}


def two_layers() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 4))


def collectives(rank: int, world: int) -> dict[str, list[list[float]]]:
    """Each collective on a small tensor of this rank's own numbers: [before, after]."""
    mine = [float(10 * rank + i + 1) for i in range(world)]
    done = {}
    x = torch.tensor(mine)
    before = x.tolist()
    dist.all_reduce(x)
    done["all_reduce"] = [before, x.tolist()]
    piece, gathered = torch.tensor(mine[:1]), torch.zeros(world)
    dist.all_gather_into_tensor(gathered, piece)
    done["all_gather"] = [piece.tolist(), gathered.tolist()]
    full, part = torch.tensor(mine), torch.zeros(1)
    dist.reduce_scatter_tensor(part, full)
    done["reduce_scatter"] = [full.tolist(), part.tolist()]
    y = torch.tensor(mine) if rank == 0 else torch.zeros(world)
    before = y.tolist() if rank == 0 else []
    if rank == 0:
        dist.send(y, dst=1)
    elif rank == 1:
        dist.recv(y, src=0)
    done["send_recv"] = [before, y.tolist() if rank in (0, 1) else []]
    return done


def held(model: nn.Module) -> list[str]:
    """Each parameter this rank holds: its name and the shape of the part stored here."""
    return [f"{name} {tuple((p.to_local() if isinstance(p, DTensor) else p).shape)}"
            for name, p in model.named_parameters()]


def holdings(device: torch.device, rank: int, world: int) -> dict[str, list[str]]:
    """The same 2-layer model wrapped four ways; what each leaves on this rank."""
    mesh = init_device_mesh(device.type, (world,))
    ddp = nn.parallel.DistributedDataParallel(two_layers())
    fsdp = two_layers()
    for layer in fsdp:
        fully_shard(layer, mesh=mesh)
    fully_shard(fsdp, mesh=mesh)
    tp = parallelize_module(two_layers(), mesh, {"0": ColwiseParallel(), "1": RowwiseParallel()})
    stage = two_layers()[rank]  # a pipeline of two stages: stage r is layer r
    return {"DDP": [n.removeprefix("module.") for n in held(ddp)], "FSDP2": held(fsdp), "TP": held(tp),
            "PP": [f"{rank}.{n}" for n in held(stage)]}


def demo(device: torch.device) -> dict:
    rank, world = dist.get_rank(), dist.get_world_size()
    return {"rank": rank, "collectives": collectives(rank, world), "holdings": holdings(device, rank, world)}


def report(results: list[dict]) -> str:
    return "\n".join(f"rank {r['rank']}: {r}" for r in results)


def number_list(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]" if values else "—"


def draw_collectives(results: list[dict], lang: str) -> tuple[str, str]:
    """A row per collective: each rank's tensor before, an arrow, its tensor after."""
    words = WORDS[lang]
    body, row, left = [], 30 * len(results) + 30, 170
    body += [figure.text(left, 16, words["before"], bold=True), figure.text(left + 190, 16, words["after"], bold=True)]
    rows = []
    for i, name in enumerate(COLLECTIVES):
        y = 26 + i * row
        body.append(figure.text(4, y + 18, words[name], size=11, bold=True))
        cells = []
        for r, result in enumerate(results):
            before, after = result["collectives"][name]
            yy = y + 4 + 28 * r
            body += [figure.text(left - 56, yy + 14, words["rank"].format(r=r), size=11),
                     figure.rect(left, yy, 120, 22, figure.BLUE, 0.12),
                     figure.text(left + 6, yy + 15, number_list(before), size=12),
                     figure.arrow(left + 126, yy + 11, left + 184, yy + 11, "collectives"),
                     figure.rect(left + 190, yy, 120, 22, figure.GREEN, 0.18),
                     figure.text(left + 196, yy + 15, number_list(after), size=12)]
            cells.append(words["c_rank"].format(r=r, before=number_list(before), after=number_list(after)))
        rows.append(words["c_row"].format(name=words[name], ranks=", ".join(cells)))
    desc = "; ".join(rows)
    height = 26 + len(COLLECTIVES) * row
    title = words["c_title"].format(n=len(results))
    return figure.svg(left + 318, height, body, title, desc, "collectives", lang, described=True), desc + "."


def draw_holdings(results: list[dict], lang: str) -> tuple[str, str]:
    """A row per pattern, a column per rank: the parameters (and the shapes) that rank stores."""
    words = WORDS[lang]
    column, left = 230, 150
    lines = max(len(r["holdings"][p]) for r in results for p in PATTERNS)
    row = 18 * lines + 20
    body = [figure.text(left + column * r + 4, 16, words["rank"].format(r=r), bold=True) for r in range(len(results))]
    rows = []
    for i, pattern in enumerate(PATTERNS):
        y = 26 + i * row
        body.append(figure.text(4, y + 18, words[pattern], size=11, bold=True))
        cells = []
        for r, result in enumerate(results):
            params = result["holdings"][pattern]
            body.append(figure.rect(left + column * r, y, column - 10, row - 8, figure.BLUE, 0.1))
            body += [figure.text(left + column * r + 6, y + 17 + 18 * k, p, size=11) for k, p in enumerate(params)]
            cells.append(words["h_rank"].format(r=r, params=", ".join(params) or words["nothing"]))
        rows.append(words["h_row"].format(pattern=words[pattern], ranks="; ".join(cells)))
    desc = " | ".join(rows)
    height = 26 + len(PATTERNS) * row
    title = words["h_title"].format(n=len(results))
    return (figure.svg(left + column * len(results), height, body, title, desc, "holdings", lang, described=True),
            desc + ".")


def main():
    _, results = torchrun.measure(__name__)
    print(figure.in_languages("collectives", lambda lang: draw_collectives(results, lang)))
    print(figure.in_languages("holdings", lambda lang: draw_holdings(results, lang)))


if __name__ == "__main__":
    options = ranks.arguments(__doc__).parse_args()
    ranks.run(demo, report, results=options.json)


def claim_collectives_and_holdings(main):
    """#distributed-collectives: on two ranks the all-reduce leaves [12, 14] on both, the all-gather [1, 11] on both, the reduce-scatter [12] on rank 0 and [14] on rank 1; DDP keeps the whole model on each rank, FSDP2 half of every parameter, tensor parallel half of each weight matrix, the pipeline one layer per rank."""
    descs = [part.split("</desc>")[0] for part in main.text.split("<desc>")[1:]]
    collectives, holdings = descs[0], descs[2]
    return ("all_reduce (sum): rank 0 [1, 2] → [12, 14], rank 1 [11, 12] → [12, 14]" in collectives
            and "all_gather: rank 0 [1] → [1, 11], rank 1 [11] → [1, 11]" in collectives
            and "reduce_scatter (sum): rank 0 [1, 2] → [12], rank 1 [11, 12] → [14]" in collectives
            and "DDP: rank 0 holds 0.weight (8, 4), 0.bias (8,), 1.weight (4, 8), 1.bias (4,);" in holdings
            and "FSDP2: rank 0 holds 0.weight (4, 4), 0.bias (4,), 1.weight (2, 8), 1.bias (2,);" in holdings
            and "tensor parallel: rank 0 holds 0.weight (4, 4), 0.bias (4,), 1.weight (4, 4), 1.bias (4,);" in holdings
            and "pipeline (2 stages): rank 0 holds 0.weight (8, 4), 0.bias (8,); rank 1 holds 1.weight (4, 8), 1.bias (4,)" in holdings)
