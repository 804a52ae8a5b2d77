"""The course's snippet engine: find, hash, run, cache, record and render snippets (engine/README.md).

Its public face is `__all__`: the only names that snippets and the notebooks' cells import from the
engine (tests/engine/test_public_face.py holds them to it), so that everything else may move. The
`python -m engine.<tool>` entry points are public too.
"""

from engine.recordings import current as current_recording
from engine.runner import seed_everything
from engine.sources import closure, source_hash
from engine.urls import page_url

__all__ = ["closure", "current_recording", "page_url", "seed_everything", "source_hash"]
