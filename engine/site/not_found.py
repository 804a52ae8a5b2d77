"""The 404 page in each language: site/404.html in the default one, site/<lang>/404.html in the others.

MkDocs renders the theme's 404.html template once per static-i18n pass, always to site/404.html, so
the last pass would win. In a pass of another language the page is written under that language's
folder instead, and MkDocs is handed nothing to write (it skips an empty template)."""

from __future__ import annotations

from pathlib import Path

from engine.base import atomic
from engine.site import search_split


def placed(html: str, template_name: str, config) -> str:
    """What MkDocs should write for `template_name`: the 404 page of a language other than the default
    is written to its own folder here, and MkDocs gets an empty page."""
    lang = config.theme.get("language", "en")
    if template_name != "404.html" or lang == search_split.languages(config)[0]:
        return html
    atomic.write_text(Path(config.site_dir) / lang / "404.html", html)
    return ""
