"""MkDocs hook: beside each lab page, `workspace.ipynb`, the lab's workspace notebook in the page's language
(per task its statement, a starter cell, a collapsed hint and a check cell), which the page's run box offers."""

from __future__ import annotations

import sys
from pathlib import Path

NAME = "workspace.ipynb"
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the workbench package itself, wherever the config lives
    sys.path.insert(0, str(ROOT))


def on_post_page(output: str, *, page, config) -> str:
    if page.meta.get("lab"):
        from workbench.catalogue import labs  # imports torch: only once a lab page is built
        from workbench.notebook import to_json, workspace

        tasks = labs().get(page.meta["lab"])
        if not tasks:
            raise ValueError(f"{page.file.src_uri}: its front matter names lab {page.meta['lab']}, which has no task "
                             "in workbench/catalogue.py")
        path = Path(config.site_dir) / Path(page.file.dest_uri).parent / NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_json(workspace(tasks, lang=config.theme.get("language", "en"))), encoding="utf-8")
    return output
