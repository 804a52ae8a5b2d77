"""Where a page of the course is served, from its English source path: its page and its notebook page."""

from __future__ import annotations

from pathlib import PurePosixPath


def page_url(src: str, use_directory_urls: bool = True) -> str:
    """Site-relative URL of a page from its English source path (`a/b.md` -> `a/b/`)."""
    path = PurePosixPath(src)
    if path.name == "index.md":
        return "" if str(path.parent) == "." else f"{path.parent}/"
    stem = path.with_suffix("")
    return f"{stem}/" if use_directory_urls else f"{stem}.html"


def notebook_url(src: str, use_directory_urls: bool = True, name: str = "notebook") -> str:
    """Site-relative URL of the notebook page `name` of lab page `src` (`a/lab/x.md` -> `a/lab/x/notebook/`;
    the learner's workspace is `a/lab/x/workspace/`)."""
    stem = PurePosixPath(src).with_suffix("")
    return f"{stem}/{name}/" if use_directory_urls else f"{stem}/{name}.html"
