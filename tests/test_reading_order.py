"""The reading order is the navigation's: the home list, the Phase 25 overview's list and every page's
Previous and Next follow it, in both languages, and the pages marked optional are the same everywhere."""
import posixpath
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
OPTIONAL = re.compile(r"\b(optional|opcional)\b", re.IGNORECASE)


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's tags (`!ENV`) read as plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def reading_order() -> list[str]:
    """The pages of mkdocs.yml's nav, in order, as paths under docs/."""
    def flatten(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from flatten(value) if isinstance(value, list) else [value]
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    return list(flatten(config["nav"]))


def twins(path: str) -> list[Path]:
    """The English page and its Spanish twin."""
    english = DOCS / path
    return [english, english.with_name(english.stem + ".es.md")]


def links(page: Path, text: str) -> list[str]:
    """The pages `text` links to, in order, as paths under docs/."""
    folder = posixpath.dirname(page.relative_to(DOCS).as_posix())
    return [posixpath.normpath(posixpath.join(folder, target)) for target in LINK.findall(text)
            if "://" not in target and target.endswith(".md")]


def section(text: str, anchor: str) -> str:
    """The section of `text` whose heading carries `{ #anchor }`, up to the next `## ` heading."""
    return re.split(r"\n## ", text.split(f"{{ #{anchor} }}", 1)[1], maxsplit=1)[0]


def listed(page: Path, anchor: str) -> list[tuple[str, bool]]:
    """The numbered list of a section: each item's first link, and whether the item says it is optional."""
    items = re.split(r"\n\d+\. ", "\n" + section(page.read_text(encoding="utf-8"), anchor))[1:]
    return [(links(page, item)[0], bool(OPTIONAL.search(item))) for item in items]


def marked_optional(path: str) -> bool:
    """A page is optional when its opening, the text before its first section, says so."""
    return bool(OPTIONAL.search(twins(path)[0].read_text(encoding="utf-8").split("\n## ", 1)[0]))


ORDER = reading_order()
PAGES = [(index, page) for index, path in enumerate(ORDER) for page in twins(path)
         if "{ #next }" in page.read_text(encoding="utf-8")]


def test_every_page_of_the_site_is_in_the_order_once():
    on_disk = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if not p.name.endswith(".es.md"))
    assert sorted(ORDER) == on_disk and len(set(ORDER)) == len(ORDER)


@pytest.mark.parametrize("index, page", PAGES, ids=lambda v: v.relative_to(DOCS).as_posix() if isinstance(v, Path) else "")
def test_previous_and_next_follow_the_order(index, page):
    closing = page.read_text(encoding="utf-8").rsplit("{ #next }", 1)[1]
    previous = re.split(r"\b(?:Previous|Anterior):", closing, maxsplit=1)[1]
    following = re.split(r"\b(?:Next|Siguiente):", closing, maxsplit=1)[1]
    assert links(page, previous)[0] == ORDER[index - 1], f"{page}: Previous is not {ORDER[index - 1]}"
    assert links(page, following)[0] == ORDER[index + 1], f"{page}: Next is not {ORDER[index + 1]}"


@pytest.mark.parametrize("page", twins("index.md"), ids=lambda p: p.name)
def test_the_home_list_is_the_order(page):
    items = listed(page, "start")
    assert [path for path, _ in items] == ORDER[1:-1]  # all but the home page and the glossary
    assert [path for path, optional in items if optional] == [p for p in ORDER[1:-1] if marked_optional(p)]


@pytest.mark.parametrize("page", twins("phase-25/index.md"), ids=lambda p: p.name)
def test_the_overview_list_is_the_phase_order(page):
    phase = [p for p in ORDER if p.startswith("phase-25/") and p != "phase-25/index.md"]
    assert [path for path, _ in listed(page, "read-order")] == phase


def test_some_page_is_optional_and_says_so_in_both_languages():
    optional = [p for p in ORDER if marked_optional(p)]
    assert optional
    for path in optional:
        assert OPTIONAL.search(twins(path)[1].read_text(encoding="utf-8").split("\n## ", 1)[0]), path
