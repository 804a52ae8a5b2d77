"""Notebooks converted ahead, in processes of their own, give what converting them in place gives."""

from __future__ import annotations

import pytest

from engine.jupyter import notebook_html
from engine.jupyter.notebook_pages import lab_sources
from engine.jupyter.notebooks import code_cell, markdown_cell, to_json
from engine.site.render_cache import Store


@pytest.fixture(autouse=True)
def no_conversion_left():
    yield
    notebook_html.wait_ahead(stop=True)


def notebook(tmp_path, title: str) -> str:
    cells = [markdown_cell(f"# {title} <a id=\"top\"></a>\n\nSome *prose*."),
             code_cell("print(1 + 1)", execution_count=1,
                       outputs=[{"output_type": "stream", "name": "stdout", "text": "2\n"}])]
    made = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return to_json(made, Store(tmp_path / "render.json"))


def test_notebooks_converted_ahead_are_those_converted_in_place(tmp_path, monkeypatch):
    notebooks = [notebook(tmp_path, "First"), notebook(tmp_path, "Second")]
    ahead, in_place = tmp_path / "ahead", tmp_path / "in-place"
    notebook_html.convert_ahead(notebooks, ahead, processes=2)
    processes = set(notebook_html._converting.values())
    assert len(processes) == 2  # one notebook each
    with monkeypatch.context() as patched:
        patched.setattr(notebook_html, "convert", lambda notebook: pytest.fail("converted in place"))
        converted = [notebook_html.render(n, ahead) for n in notebooks]  # each waits for its process
    assert converted == [notebook_html.render(n, in_place) for n in notebooks]
    assert converted[0][1][0]["id"] == "top" and "First" in converted[0][0] and "Second" in converted[1][0]
    notebook_html.wait_ahead()
    assert all(p.returncode == 0 for p in processes) and not notebook_html._converting
    assert sorted(p.name for p in ahead.iterdir()) == sorted(p.name for p in in_place.iterdir())


def test_a_notebook_already_converted_starts_no_process(tmp_path):
    made = notebook(tmp_path, "Once")
    notebook_html.render(made, tmp_path / "cache")
    notebook_html.convert_ahead([made], tmp_path / "cache", processes=2)
    assert not notebook_html._converting


def test_a_conversion_that_dies_leaves_its_notebook_to_its_page(tmp_path, monkeypatch):
    made = notebook(tmp_path, "Orphan")
    monkeypatch.setattr(notebook_html.sys, "executable", "false")  # a process that exits at once
    notebook_html.convert_ahead([made], tmp_path / "cache", processes=1)
    html, toc = notebook_html.render(made, tmp_path / "cache")
    assert "Orphan" in html and toc[0]["id"] == "top"


def test_lab_pages_are_found_by_language_the_default_first(tmp_path):
    for name in ["a/lab/00-x.md", "a/lab/00-x.es.md", "a/lab/index.md", "a/lab/01-y.v2.md", "a/theory.md"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("# page\n")
    found = lab_sources(tmp_path, ["en", "es"])
    assert list(found) == ["en", "es"]
    assert [p.name for p in found["en"]] == ["00-x.md"] and [p.name for p in found["es"]] == ["00-x.es.md"]
