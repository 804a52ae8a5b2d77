"""Stretch: the captured graph as a standalone artifact with torch.export, saved, loaded and run again."""

import tempfile
import zipfile
from pathlib import Path

import torch
from torch.export import Dim

from snippets.phase25.theory03.readable import tidy
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True


def export_tiny_head(model, x) -> torch.export.ExportedProgram:
    """TinyHead exported with a dynamic batch dimension (2 to 1024 rows)."""
    return torch.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("batch", min=2, max=1024)}})


def save_and_reload(program: torch.export.ExportedProgram, path: Path) -> torch.export.ExportedProgram:
    """Write the program to a .pt2 file and read it back: no TinyHead class is needed to load it."""
    torch.export.save(program, path)
    return torch.export.load(path)


def main():
    model, x = model_and_input()
    program = export_tiny_head(model, x)
    print(tidy(str(program)).strip())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny_head.pt2"
        loaded = save_and_reload(program, path)
        entries = sorted(zipfile.ZipFile(path).namelist())
    print("\ntiny_head.pt2 is a zip archive:", ", ".join(entries))
    for batch in (2, 7):
        _, xb = model_and_input(batch)
        diff = (loaded.module()(xb) - model(xb)).abs().max().item()
        print(f"loaded program on a batch of {batch}: max |difference| from eager = {diff:.1e}")


def claim_graph_keeps_linear_and_softmax(main):
    """#stretch-export: The exported graph keeps aten.linear and aten.softmax."""
    return "torch.ops.aten.linear.default(" in main and "torch.ops.aten.softmax.int(" in main and "addmm" not in main


def claim_range(main):
    """#stretch-export: Range constraints records the batch dimension as a symbol between 2 and 1024."""
    return re.search(r"Range constraints: \{s\d+: VR\[2, 1024\]\}", main.text) is not None


def claim_batch_of_seven(main):
    """#stretch-export: the loaded program runs a batch of 7 and matches eager exactly."""
    return main.line("on a batch of 7").endswith("= 0.0e+00")
