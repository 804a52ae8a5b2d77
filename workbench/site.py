"""MkDocs hook: beside each lab page, its workspace page `<lab>/workspace/`, which shows and offers
`workspace.ipynb`, the lab's workspace notebook in the page's language (per task its statement, a starter
cell, a collapsed hint and a check cell); the page's run box links both."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the workbench package itself, wherever the config lives
    sys.path.insert(0, str(ROOT))

from mkdocs.plugins import event_priority  # noqa: E402
from mkdocs.utils.meta import get_data  # noqa: E402

from engine import add_notebook_pages  # noqa: E402
from workbench.notebook import WORDS  # noqa: E402

NAME = "workspace"


def notebook(markdown: str, lang: str) -> str:
    """The workspace notebook of the lab page whose Markdown is `markdown`, as JSON, in `lang`."""
    from workbench.catalogue import labs  # imports torch: only once a lab page is built
    from workbench.notebook import to_json, workspace

    lab = get_data(markdown)[1].get("lab")  # the lab the page's front matter names
    tasks = labs().get(lab)
    if not tasks:
        raise ValueError(f"a lab page's front matter names lab {lab}, which has no task in workbench/catalogue.py")
    return to_json(workspace(tasks, lang=lang))


@event_priority(-200)  # after static-i18n has given each file its language's destination, as the engine's pages
def on_files(files, config):
    return add_notebook_pages(files, config, NAME, notebook,
                              {lang: "{title}: " + words["title"] for lang, words in WORDS.items()})
