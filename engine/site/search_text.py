"""What search keeps of a page: its prose, headings, tables and inline code, not what its snippets show.

Before Material's search plugin reads a page, the blocks a snippet fills (code listings and outputs
with their titles, charts and diagrams, the CPU/GPU tabs' labels, provenance lines) are marked with its
`data-search-exclude` (the plugin then removes every such mark: the page's HTML is unchanged). After the
build, each section the plugin made keeps its title, a teaser (the first words of its prose, which a
result shows) and `words`: every word of its prose not met earlier on its page, so a word leads to the
section that first uses it. A reader still finds `addmm` or `AutogradCPU` on the pages whose text names
it, and each language's index is a small part of the size it had with every listing and output in it.
"""

from __future__ import annotations

import re

# The opening tag of each block a snippet fills.
SHOWN = re.compile(r'<(div|p)(?= class="(?:[^"]*\s)?(?:highlight|nmb-figure|tabbed-labels|nmb-provenance)[\s"])')
MARK = r'<\1 data-search-exclude="shown"'  # a value: the search plugin removes only marks that have one
TAG = re.compile(r"<[^>]+>")
NOT_CODE = re.compile(r"<(?!/?code>)[^>]+>")  # every tag but inline code's
EDGES = re.compile(r"^[.'’…]+|[.'’…]+$")  # a sentence's full stop, quotes: "storage." is the word storage
TEASER = 100  # characters of a section's prose that its search result shows
WORDS = "words"  # the field of the index that holds them


def mark_shown(html: str) -> str:
    """The page's HTML with every block a snippet fills marked for the search plugin to leave out."""
    return SHOWN.sub(MARK, html)


def teaser(text: str, limit: int = TEASER) -> str:
    """The first words of a section's prose, up to `limit` characters, inline code kept, as one paragraph."""
    prose = " ".join(NOT_CODE.sub(" ", text).split())
    if len(prose) > limit:
        prose = prose[:limit].rsplit(" ", 1)[0]  # a cut at a space: never inside a tag or an entity
        prose += ("</code>" if prose.count("<code>") > prose.count("</code>") else "") + " …"
    return f"<p>{prose}</p>" if prose else ""


def new_words(text: str, separator: re.Pattern, seen: set[str]) -> list[str]:
    """The words of `text` (split as the search worker splits them, lower case) not in `seen`, which
    takes them in."""
    found = []
    for word in separator.split(TAG.sub(" ", text)):
        word = EDGES.sub("", word.lower())
        if word and word not in seen:
            seen.add(word)
            found.append(word)
    return found


def sections(docs: list[dict], separator: str) -> list[dict]:
    """The plugin's sections (page by page, in order) as the index keeps them; a section kept already
    (the split runs more than once in a build) stays as it is."""
    split, seen, kept = re.compile(separator), {}, []
    for doc in docs:
        if WORDS in doc:
            kept.append(doc)
            continue
        page = seen.setdefault(doc["location"].split("#")[0], set())
        short = teaser(doc["text"])
        new_words(doc["title"] + " " + short, split, page)
        kept.append({**doc, "text": short, WORDS: " ".join(new_words(doc["text"], split, page))})
    return kept
