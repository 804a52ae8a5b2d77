"""The shared background build: started once per session, its failure or death reported to every waiter."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from .background_build import SharedBuild


def build(tmp_path, code: str) -> SharedBuild:
    return SharedBuild(tmp_path / "build", [sys.executable, "-c", code], tmp_path, dict(os.environ))


def test_only_the_first_process_starts_it_and_every_one_reads_it(tmp_path):
    first = build(tmp_path, "import pathlib; pathlib.Path('ran').open('a').write('x')")
    first.start()
    second = build(tmp_path, first.command[-1])
    second.start()
    assert second.process is None
    assert second.wait() == first.wait() == tmp_path / "build" / "site"
    first.stop()
    assert (tmp_path / "ran").read_text() == "x"


def test_a_failed_build_fails_every_waiter_with_its_output(tmp_path):
    failing = build(tmp_path, "print('the page that broke'); raise SystemExit(3)")
    failing.start()
    with pytest.raises(AssertionError, match=r"failed \(3\):\nthe page that broke"):
        failing.wait()
    failing.stop()


def test_a_build_killed_before_it_ends_is_reported_not_awaited_for_ever(tmp_path):
    killed = build(tmp_path, "import time; time.sleep(60)")
    killed.start()
    os.killpg(killed.process.pid, signal.SIGKILL)
    with pytest.raises(AssertionError, match="ended without a status"):
        killed.wait()
    killed.stop()
