"""Each lab page's run box offers the lab's workspace notebook, written beside the page in the page's
language: per task its statement (read from that language's page), the starter, a collapsed hint and a
check cell; the two languages' notebooks hold the same code."""

from __future__ import annotations

import json
import re

import pytest

from engine.source.translations import LANGS
from workbench.catalogue import labs
from workbench.notebook import WORDS, workspace
from workbench.site import NAME

LAB_PAGES = ["phase-24/lab/00-hello-cuda", "phase-25/lab/00-dispatcher-trace", "phase-25/lab/01-autograd-by-hand",
             "phase-25/lab/02-custom-op", "phase-25/lab/03-compile-and-inductor",
             "phase-25/lab/03-distributed-survey", "phase-25/lab/03-running-torchrun"]


def lab_of(root, page: str) -> str:
    front = (root / "docs" / f"{page}.md").read_text(encoding="utf-8").split("---")[1]
    return re.search(r"^lab: (\S+)$", front, re.MULTILINE).group(1)


def test_every_page_that_names_a_lab_is_listed(root):
    named = sorted(str(p.relative_to(root / "docs").with_suffix("")) for p in (root / "docs").rglob("*.md")
                   if not p.name.endswith(".es.md") and re.search(r"^lab: ", p.read_text(encoding="utf-8"), re.MULTILINE))
    assert named == sorted(LAB_PAGES)


@pytest.mark.parametrize("page", LAB_PAGES)
def test_the_run_box_offers_the_workspace_in_the_page_s_language(built_site, root, page):
    tasks = labs()[lab_of(root, page)]
    code = None
    for lang in LANGS:
        folder = built_site / ("" if lang == "en" else lang) / page
        html = (folder / "index.html").read_text(encoding="utf-8")
        assert f'href="{NAME}" download' in html, f"{lang}/{page}: the run box does not offer {NAME}"
        notebook = json.loads((folder / NAME).read_text(encoding="utf-8"))
        assert notebook == workspace(tasks, lang=lang), f"{lang}/{page}/{NAME} is not the lab's workspace"
        statements = [c["source"] for c in notebook["cells"] if c["source"].startswith("## ")]
        hints = [c["source"] for c in notebook["cells"] if c["source"].startswith("<details>")]
        assert len(statements) == len(hints) == len(tasks), f"{lang}/{page}: a task lacks its statement or hint"
        assert all(f"<summary>{WORDS[lang]['hint']}</summary>" in h for h in hints)
        cells = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"]
        assert code in (None, cells), f"{lang}/{page}: the languages' notebooks hold different code"
        code = cells
