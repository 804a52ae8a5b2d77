"""Each lab page's run box offers the lab's workspace: its page, `<lab>/workspace/`, and its notebook beside
it, in the page's language: per task its statement (read from that language's page), the starter, a
collapsed hint and a check cell; the page shows the same cells; the two languages' notebooks hold the
same code."""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path

import pytest

from engine.jupyter.notebooks import is_lab
from engine.source.translations import LANGS, english_pages
from tests.conftest import ROOT
from workbench.catalogue import labs
from workbench.notebook import WORDS, workspace
from workbench.site import NAME


def lab_pages(docs: Path) -> dict[str, str]:
    """page (its path under docs/, no suffix) -> the workbench lab its front matter names, for every English
    page that names one."""
    named = {}
    for path in english_pages(docs):
        front = path.read_text(encoding="utf-8").split("---")
        if len(front) > 2 and (lab := re.search(r"^lab: (\S+)$", front[1], re.MULTILINE)):
            named[path.relative_to(docs).with_suffix("").as_posix()] = lab.group(1)
    return named


LAB_PAGES = lab_pages(ROOT / "docs")


def test_the_lab_pages_are_those_that_name_a_lab():
    """Every page under a lab/ folder names its workbench lab (else its run box offers no workspace)."""
    docs = ROOT / "docs"
    labs_folders = sorted(p.relative_to(docs).with_suffix("").as_posix() for p in english_pages(docs)
                          if is_lab(p.relative_to(docs).as_posix()))
    assert labs_folders and labs_folders == sorted(LAB_PAGES)


@pytest.mark.parametrize("page", sorted(LAB_PAGES))
def test_the_run_box_offers_the_workspace_in_the_page_s_language(built_site, page):
    tasks = labs()[LAB_PAGES[page]]
    code = None
    file = f"{NAME}.ipynb"
    for lang in LANGS:
        folder = built_site / ("" if lang == "en" else lang) / page
        html = (folder / "index.html").read_text(encoding="utf-8")
        assert f'href="{NAME}/{file}" download' in html, f"{lang}/{page}: the run box does not offer {file}"
        assert f'href="{NAME}/"' in html, f"{lang}/{page}: the run box does not link the workspace page"
        notebook = json.loads((folder / NAME / file).read_text(encoding="utf-8"))
        assert notebook == workspace(tasks, lang=lang), f"{lang}/{page}/{NAME}/{file} is not the lab's workspace"
        shown = (folder / NAME / "index.html").read_text(encoding="utf-8")
        assert f'href="{file}" download' in shown, f"{lang}/{page}/{NAME}/: the page does not offer {file}"
        for task in tasks:
            assert "check_here" in shown and html_module.escape(task.name) in shown, \
                f"{lang}/{page}/{NAME}/: no cells of {task.name}"
        assert shown.count(f"<summary>{WORDS[lang]['hint']}</summary>") == len(tasks), \
            f"{lang}/{page}/{NAME}/: a task's hint is not shown collapsed"
        statements = [c["source"] for c in notebook["cells"] if c["source"].startswith("## ")]
        hints = [c["source"] for c in notebook["cells"] if c["source"].startswith("<details>")]
        assert len(statements) == len(hints) == len(tasks), f"{lang}/{page}: a task lacks its statement or hint"
        assert all(f"<summary>{WORDS[lang]['hint']}</summary>" in h for h in hints)
        cells = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"]
        assert code in (None, cells), f"{lang}/{page}: the languages' notebooks hold different code"
        code = cells
