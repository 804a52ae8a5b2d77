"""Search in the reader's language only, from a small index.

Material builds one index holding both languages, read from the site root. After the
build this writes one index per language (`search/` for the default, `<lang>/search/`
for the others), each section as engine/site/search_text.py keeps it (title, teaser, words),
and points each translated page's `__config.base` at its language root, where the
search worker looks for its index.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.site import search_text

CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def languages(config) -> tuple[str, list[str]]:
    """(default locale, other locales) from the i18n plugin's settings."""
    langs = config.plugins["i18n"].config.languages
    default = next(lang.locale for lang in langs if lang.default)
    return default, [lang.locale for lang in langs if not lang.default and lang.build]


def _write_index(path: Path, index: dict, docs: list[dict], lang: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    config = index["config"]
    fields = {**config["fields"], search_text.WORDS: config["fields"]["text"]}  # words weigh as the text
    subset = {**index, "config": {**config, "lang": [lang], "fields": fields},
              "docs": search_text.sections(docs, config["separator"])}
    path.write_text(json.dumps(subset, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _rebase(html: str, lang: str) -> str:
    def fix(match: re.Match) -> str:
        data = json.loads(match.group(2))
        if not data["base"].endswith(f"/{lang}/"):  # idempotent: each pass may call this
            # the trailing slash matters: the theme resolves "search/..." and result URLs against it
            data["base"] = f"{data['base'].rstrip('/')}/{lang}/"  # the 404 page's base is absolute: "/"
        return match.group(1) + json.dumps(data) + match.group(3)

    return CONFIG.sub(fix, html, count=1)


def split_by_language(site_dir: Path, config) -> None:
    """Split the shared index by language; rebase the translated pages onto their index.

    Idempotent: static-i18n nests the passes' post-build steps, so this runs more than once.
    """
    index_file = site_dir / "search" / "search_index.json"
    if not index_file.is_file():
        return  # the es pass runs before the index exists; the last pass does the work
    index = json.loads(index_file.read_text(encoding="utf-8"))
    default, others = languages(config)
    # `mkdocs serve --dirty` merges each rebuild's entries into the last index: keep one of each.
    rest = list({json.dumps(doc, sort_keys=True): doc for doc in index["docs"]}.values())
    for lang in others:
        prefix = f"{lang}/"
        mine = [d for d in rest if d["location"].startswith(prefix)]
        rest = [d for d in rest if not d["location"].startswith(prefix)]
        if not mine:
            continue  # this pass has not built that language yet
        _write_index(site_dir / lang / "search" / "search_index.json",
                     index, [{**d, "location": d["location"][len(prefix):]} for d in mine], lang)
        for page in (site_dir / lang).rglob("*.html"):
            page.write_text(_rebase(page.read_text(encoding="utf-8"), lang), encoding="utf-8")
    _write_index(index_file, index, rest, default)
