"""The course's snippet engine: find, hash, run, cache, record and render snippets (engine/README.md).

Its public face is `__all__`: the only names that snippets, the learner's workbench and the notebooks'
cells import from the engine (tests/engine/test_public_face.py holds them to it), so that everything else
may move. The `python -m` entry points that engine/README.md lists (`engine.run.child`, `engine.gpu.record`, ...)
are public too; each module lives in the package of its stage (tests/engine/test_layers.py).
"""

from engine.source.claims import Output, strip_claims
from engine.source.claims import claims as claims_of
from engine.source.numerics import pin as pin_numerics
from engine.gpu.recordings import current as current_recording
from engine.run.runner import seed_everything
from engine.source.sources import closure, source_hash
from engine.source.urls import page_url

__all__ = ["Output", "add_notebook_pages", "claims_of", "closure", "current_recording", "page_url", "pin_numerics",
           "seed_everything", "source_hash", "strip_claims"]


def add_notebook_pages(files, config, name, make, titles):
    """A MkDocs hook's `on_files`: a notebook page `name` beside each lab page, holding what `make(the lab
    page's Markdown, language)` returns (engine/jupyter/notebook_pages.add_kind; MkDocs loads only here)."""
    from engine.jupyter.notebook_pages import add_kind

    return add_kind(files, config, name, make, titles)
