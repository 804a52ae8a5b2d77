"""The built site: both languages, labelled outputs, search split by language, recordings current."""

import json
import re
from pathlib import Path

import pytest

from engine.gpu import recordings
from engine.source.includes import page_includes
from engine.source.urls import page_url
from engine.source.parity import site_problems
from engine.source.sources import declarations, snippet_path
from engine.source.translations import english_pages

from .support import SITE_PREFIX

DOCS = Path(__file__).resolve().parents[2] / "docs"


def built_pages(site: Path, lang: str) -> list[Path]:
    """The HTML of every English page's version in `lang`, in english_pages order."""
    prefix = "" if lang == "en" else f"{lang}/"
    return [site / f"{prefix}{page_url(page.relative_to(DOCS).as_posix())}index.html" for page in english_pages(DOCS)]


def test_every_page_has_a_matching_translation():
    assert site_problems(DOCS) == []


def test_every_gpu_recording_is_current(root):
    stale = []
    for page in sorted(DOCS.rglob("*.md")):
        for include in page_includes(page.read_text(encoding="utf-8")):
            path = snippet_path(root, include.path)
            if include.call and "cuda" in declarations(path).devices:
                stale.append(recordings.stale_reason(root, path, include.call))
    assert [s for s in stale if s] == []


@pytest.mark.parametrize("lang", ["en", "es"])
def test_pages_are_built_in_their_language(built_site, lang):
    for page in built_pages(built_site, lang):
        html = page.read_text(encoding="utf-8")
        assert f'<html lang="{lang}"' in html, page
        # A failed snippet renders as a failure admonition; a traceback in prose would be one that escaped
        # it. A traceback inside an output block is the output (the survey's rank failures show theirs).
        prose = re.sub(r"<pre\b.*?</pre>", "", html, flags=re.DOTALL)
        assert "Traceback" not in prose and "admonition failure" not in html, page


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_output_is_labelled(built_site, lang):
    word = {"en": "Output", "es": "Salida"}[lang]
    for page, built in zip(english_pages(DOCS), built_pages(built_site, lang)):
        includes = [i for i in page_includes(page.read_text(encoding="utf-8")) if i.call and i.show != "code"]
        labels = re.findall(r'<p class="nmb-provenance">([^<]*)</p>', built.read_text(encoding="utf-8"))
        assert len(labels) >= len(includes), built
        assert all(label.startswith(word) for label in labels), built


def test_outputs_hold_no_memory_addresses(built_site):
    for page in built_site.rglob("*.html"):
        assert not re.search(r"object at 0x[0-9a-f]{6,}", page.read_text(encoding="utf-8")), page


def test_language_switcher_points_at_the_same_page(built_site):
    for page, en in zip(english_pages(DOCS), built_pages(built_site, "en")):
        target = page_url(page.relative_to(DOCS).as_posix())
        href = rf'href="(?:[./]*|{re.escape(SITE_PREFIX)})es/{re.escape(target)}"'
        assert re.search(rf'hreflang="es"[^>]*{href}|{href}[^>]*hreflang="es"',
                         en.read_text(encoding="utf-8")), en


def test_search_index_is_split_by_language(built_site):
    en = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    es = json.loads((built_site / "es" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert en["config"]["lang"] == ["en"] and es["config"]["lang"] == ["es"]
    assert en["docs"] and not any(d["location"].startswith("es/") for d in en["docs"])
    assert {d["location"].split("#")[0] for d in es["docs"]} == {d["location"].split("#")[0] for d in en["docs"]}
    for page in built_pages(built_site, "es"):
        config = re.search(r'<script id="__config" type="application/json">(.*?)</script>',
                           page.read_text(encoding="utf-8")).group(1)
        assert json.loads(config)["base"].rstrip("/").endswith("/es"), page
