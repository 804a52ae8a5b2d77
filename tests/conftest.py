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

from engine.source import numerics
from engine.run.execute import SLEEPING_OPENMP  # noqa: E402

os.environ.setdefault("OMP_WAIT_POLICY", SLEEPING_OPENMP)  # as the build sets it: workers share cores
if (_reason := numerics.unsupported()) is not None:
    pytest.exit(f"unsupported machine: {_reason}", returncode=2)
numerics.pin()  # as the build pins it, before any test imports torch: the outputs the tests check are the site's


# Test modules whose tests share what a module-scoped fixture made once (one launch of every distributed
# pattern, the compiled kernels, the parsed pages): all of a group's tests run in one worker. pytest 9
# ignores the suffix that xdist's own `xdist_group` marker adds to test ids, so the grouping is done here.
SHARED = {
    "tests/phase25/test_distributed.py": "distributed launch",
    "tests/phase25/test_lab03.py": "lab 03 kernels",
    "tests/website/test_links.py": "parsed links",
    "tests/website/test_markup.py": "parsed pages",
    "tests/website/test_interface_language.py": "parsed pages",
    "tests/website/test_deployment.py": "parsed pages",
}


def pytest_xdist_make_scheduler(config, log):
    """Tests one by one to whichever worker is free, in the order collected (the website tests, which wait
    for the site's build, come last), except that a SHARED group goes to one worker."""
    from xdist.scheduler import LoadScopeScheduling

    class SharedGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return SHARED.get(nodeid.split("::")[0], nodeid)

    config.option.loadscopereorder = False  # xdist would send the largest groups first
    return SharedGroups(config, log)


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
