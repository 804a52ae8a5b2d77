"""`mkdocs serve` on a cold cache: the site's snippet calls run in a process of their own while the
pages are served, each page showing its outputs as soon as they are in the cache.

The process runs exactly what a build's prefetch runs (`Executor.prefetch`: in-process calls one after
another in it, isolated ones in the fork server's children), so an output is the same whichever process
made it. The serve process watches the cache folder while this runs and re-renders the pages that
showed an output still running (engine.hooks).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from engine.run.runner import child_env
from engine.base.settings import Layout


def start(root: Path, docs: Path) -> subprocess.Popen:
    """Run every missing call of the site under `docs` in the background; its progress on stderr."""
    env = child_env(root, {"TRITON_INTERPRET": "1", "TORCHINDUCTOR_CACHE_DIR": os.environ.get(
        "TORCHINDUCTOR_CACHE_DIR", str(Layout(root).inductor))})
    return subprocess.Popen([sys.executable, "-m", "engine.background", str(root), str(docs)], cwd=root, env=env,
                            preexec_fn=_stop_with_parent)


PR_SET_PDEATHSIG = 1


def _stop_with_parent() -> None:
    """The background run gets SIGTERM when the serve process ends, however it ends (Linux), and yields
    the CPU to serve's rebuilds (a page request waits for the rebuild in progress)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    os.nice(10)


def main(root: str, docs: str) -> None:
    from engine.site import pages
    from engine.run.execute import Executor
    from engine.run.progress import read_timings, save_timings

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # unwinds: prefetch closes its fork server
    logging.basicConfig(level=logging.INFO, format="INFO    -  %(message)s")  # as mkdocs logs
    executor = Executor(Path(root), Layout(Path(root)).snippets)
    executor.prefetch(pages.site_calls(Path(root), Path(docs)), read_timings(Path(root)))
    save_timings(Path(root), executor)


if __name__ == "__main__":
    main(*sys.argv[1:])
