"""One build of the site per test session, served on 127.0.0.1, and one headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import SITE_PREFIX, Server


@pytest.fixture(scope="session")
def built_site(site_builds) -> Path:
    """The project's site, built once per session with `mkdocs build --strict` (snippet outputs from .cache/)."""
    return site_builds["built_site"].wait()


@pytest.fixture(scope="session")
def fixture_site(site_builds) -> Path:
    """A page with a diagram, an image and code, built with the project's theme, hooks and plugins."""
    return site_builds["fixture_site"].wait()


@pytest.fixture(scope="session")
def server(built_site):
    served = Server(built_site, SITE_PREFIX)
    yield served
    served.close()


@pytest.fixture(scope="session")
def fixture_server(fixture_site):
    served = Server(fixture_site, SITE_PREFIX)
    yield served
    served.close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from .browser import launch

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def reader(browser):
    from .browser import Reader

    opened = Reader(browser)
    yield opened
    opened.close()
