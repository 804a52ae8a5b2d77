"""Shared test set-up: the repo importable, Triton in interpreter mode, caches inside .cache/."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("TRITON_INTERPRET", "1")  # before anything imports triton
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.execute import SLEEPING_OPENMP  # noqa: E402 - imports neither torch nor triton

os.environ.setdefault("OMP_WAIT_POLICY", SLEEPING_OPENMP)  # as the build sets it: workers share cores


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def site_builds(request, tmp_path_factory):
    """The site builds that the session's website tests read, started in the background as it begins.

    Under pytest-xdist each worker has a temporary folder of its own inside the session's: the builds go
    in the session's, so the first worker starts them and every worker reads them."""
    from tests.website.support import site_builds as builds_of

    needed = {name for item in request.session.items for name in item.fixturenames}
    temporary = tmp_path_factory.getbasetemp()
    shared = temporary.parent if os.environ.get("PYTEST_XDIST_WORKER") else temporary
    builds = {name: build for name, build in builds_of(ROOT, shared).items() if name in needed}
    for build in builds.values():
        build.start()
    yield builds
    for build in builds.values():
        build.stop()
