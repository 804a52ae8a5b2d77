"""Notebooks converted ahead, in processes of their own, give what converting them in place gives."""

from __future__ import annotations

from engine import notebook_html
from engine.notebooks import code_cell, markdown_cell, to_json
from engine.render_cache import Store


def notebook(tmp_path, title: str) -> str:
    cells = [markdown_cell(f"# {title} <a id=\"top\"></a>\n\nSome *prose*."),
             code_cell("print(1 + 1)", execution_count=1,
                       outputs=[{"output_type": "stream", "name": "stdout", "text": "2\n"}])]
    made = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return to_json(made, Store(tmp_path / "render.json"))


def test_notebooks_converted_ahead_are_those_converted_in_place(tmp_path):
    notebooks = [notebook(tmp_path, "First"), notebook(tmp_path, "Second")]
    ahead, in_place = tmp_path / "ahead", tmp_path / "in-place"
    notebook_html.convert_ahead(notebooks, ahead, processes=2)
    processes = set(notebook_html._converting.values())
    assert len(processes) == 2  # one notebook each, in order
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
