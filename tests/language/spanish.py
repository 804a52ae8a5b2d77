"""The Spanish pages' prose, checked against the authors' style guide and hunspell.

The rules live in `tests/language/STYLE.es.md`: its table of English terms kept in Spanish (term,
gender, gloss) and its table of ruled-out variants (variant, preferred form); the Spanish column of
the readers' glossary (`docs/glossary.es.md`, `#terms`) adds the words it uses.
Words that are neither Spanish nor glossary terms but are legitimate (proper nouns, API names)
live in `tests/language/words.txt`. `python -m tests.language.spanish` prints every finding.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GLOSSARY = DOCS / "glossary.es.md"
STYLE = Path(__file__).with_name("STYLE.es.md")  # for authors: the readers' glossary leaves it out
WORDS = Path(__file__).with_name("words.txt")
DICTIONARIES = Path("/usr/share/hunspell")
INSTALL = "make test installs it (Debian packages hunspell hunspell-es hunspell-en-us)"

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", re.S)  # within a paragraph
COMMENT = re.compile(r"<!--.*?-->", re.S)
HTML = re.compile(r"</?[A-Za-z][^<>]*>")
ATTRIBUTES = re.compile(r"\{\s*[#.:][^{}]*\}")
EXTERNAL_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?(?:https?:)?//[^)]*\)")
LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)|\]\[[^\]]*\]")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$")
URL = re.compile(r"\b(?:https?://|www\.)\S+")
ADMONITION = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s+[\w-]+")
WORD = re.compile(r"\w+(?:[.'’]\w+)*")
PERCENT = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?%")
STRAIGHT_QUOTES = re.compile(r'"[^"\n]*"')
DECIMAL_POINT = re.compile(r"(?<![\w.,])\d+\.\d+(?![\w.%]|,\d)")  # PERCENT takes "0.5%"
DOTTED_AFTER = {  # a dotted number right after one of these words is a version or a section number
    "torch", "pytorch", "python", "triton", "cuda", "cudnn", "numpy", "nccl", "versión", "versiones", "la",
    "sección", "secciones", "apartado",
}
GENDERS = {"masculino": "m", "femenino": "f", "adjetivo": None}  # the #style-english table's words
PAIRS = (  # articles and demonstratives: (masculine, feminine)
    ("el", "la"), ("un", "una"), ("este", "esta"), ("ese", "esa"), ("aquel", "aquella"), ("del", "de la"),
    ("al", "a la"), ("los", "las"), ("unos", "unas"), ("estos", "estas"), ("esos", "esas"),
)
SWAP = {masculine: feminine for masculine, feminine in PAIRS} | {feminine: masculine for masculine, feminine in PAIRS}
ARTICLES = {  # (singular, plural) articles and demonstratives of each gender
    "m": (("el", "un", "este", "ese", "aquel", "del", "al"), ("los", "unos", "estos", "esos")),
    "f": (("la", "una", "esta", "esa", "aquella"), ("las", "unas", "estas", "esas")),
}


@dataclass(frozen=True)
class Finding:
    page: str
    line: int
    kind: str  # one of KINDS
    text: str
    message: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Rule:
    """A ruled-out variant: a pattern, what it was written as, and the form to write instead."""

    pattern: re.Pattern
    variant: str
    preferred: str
    gender: str = ""  # for an article of the wrong gender: the term's gender, in English

    def instead(self, match: re.Match) -> str:
        """What to write instead of `match`."""
        if not self.gender:
            return self.preferred
        article = match.group(1)
        right = SWAP[article.lower()]
        right = right.capitalize() if article[0].isupper() else right
        return f"{right} {' '.join(match.group()[len(article):].split())} ({self.gender})"

    @property
    def needle(self) -> str:
        """A piece of text every match contains (lower case): pages without it are skipped."""
        return max(self.variant.lower().replace("*", " ").split(), key=len)

    def glossed(self, before: str) -> bool:
        """Whether text ending just before a match is a preferred form and an opening parenthesis:
        the variant is the gloss of "forma (shape)"."""
        before = before.rstrip()
        if not before.endswith("("):
            return False
        forms = [form.split("(")[0].strip().lower() for form in self.preferred.split(",")]
        return any(form and before[:-1].rstrip().lower().endswith(form) for form in forms)


# --- The prose of a Markdown page ------------------------------------------------------------


def prose(text: str) -> str:
    """The page with everything that is not Spanish prose blanked out, line for line: fenced blocks
    (code, exec blocks, outputs, diagrams), inline code, HTML tags and comments, attribute lists,
    link targets, reference definitions, URLs, admonition types (their titles stay), links to other
    sites (the titles of cited works stay as published) and a table column headed "Inglés". Of a front
    matter, only the quoted values stay (text a page shows, such as a lab's GPU sentence)."""
    lines, fence = [], None
    if text.startswith("---\n") and "\n---\n" in text:
        front, rest = text[4:].split("\n---\n", 1)
        quoted = [re.sub(r'^[\w-]+: "(.*)"$', r"\1", line) if re.match(r'^[\w-]+: ".*"$', line) else ""
                  for line in front.splitlines()]
        text = "\n".join(["", *quoted, "", rest])
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line.strip().lstrip(fence[0]):
                fence = None
            lines.append("")
        elif opened:
            fence = opened.group(1)
            lines.append("")
        else:
            lines.append("" if REFERENCE.match(line) else line)
    text = "\n".join(lines)
    for pattern in (COMMENT, INLINE_CODE, EXTERNAL_LINK):  # may span lines: blanked, breaks kept
        text = pattern.sub(lambda match: " " + "\n" * match.group().count("\n"), text)
    lines, english_column, in_table = [], None, False
    for line in text.split("\n"):
        line = ADMONITION.sub(r"\1", line)
        if line.lstrip().startswith("|"):
            cells = line.split("|")
            if not in_table:
                names = [cell.strip() for cell in cells]
                english_column = names.index("Inglés") if "Inglés" in names else None
            elif english_column is not None and english_column < len(cells):
                cells[english_column] = " "
            line, in_table = "|".join(cells), True
        else:
            in_table = False
        for pattern, replacement in ((HTML, " "), (ATTRIBUTES, " "),
                                     (LINK_TARGET, "]"), (URL, " ")):
            line = pattern.sub(replacement, line)
        lines.append(line)
    return "\n".join(lines)


def words(line: str, shortest: int = 2) -> list[str]:
    """The words of a prose line (one letter is too short to check, unless `shortest` is 1);
    identifiers (digits, underscores, dots inside) are not words."""
    found = []
    for match in WORD.finditer(line):
        token = match.group()
        if any(c.isdigit() or c == "_" or c == "." for c in token):
            continue
        found.extend(part for part in re.split(r"['’]", token) if len(part) >= shortest)
    return found


# --- The glossary's rules ------------------------------------------------------------------------


def section(text: str, anchor: str) -> str:
    """The body of the heading with `{ #anchor }`, up to the next heading of the same or a higher level."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        heading = re.match(r"^(#+)\s.*\{\s*#" + re.escape(anchor) + r"\s*\}\s*$", line)
        if heading:
            level = len(heading.group(1))
            body = []
            for rest in lines[i + 1:]:
                other = re.match(r"^(#+)\s", rest)
                if other and len(other.group(1)) <= level:
                    break
                body.append(rest)
            return "\n".join(body)
    raise AssertionError(f"no section {{ #{anchor} }} in the text given")


def table(text: str) -> list[list[str]]:
    """The rows of the Markdown tables in `text`, header and separator rows left out."""
    rows, header = [], True
    for line in text.splitlines():
        if not line.startswith("|"):
            header = True
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header:
            header = False
            continue
        if all(set(cell) <= set("-: ") for cell in cells):
            continue
        rows.append(cells)
    return rows


def code_items(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def plain(cell: str) -> str:
    """A table cell as text: emphasis and code marks dropped."""
    return re.sub(r"[`*_]", "", cell).strip()


def phrase_pattern(phrase: str, plural: bool = False) -> str:
    """A phrase as a regex: words separated by any white space (a line break too), `*` standing
    for any ending of a word, the last word optionally plural."""
    parts = []
    for word in phrase.split():
        stem = re.escape(word.rstrip("*"))
        parts.append(stem + (r"\w*" if word.endswith("*") else ""))
    if plural:
        parts[-1] += "(?:e?s)?"
    return bounded(r"\s+".join(parts))


def bounded(pattern: str) -> str:
    """`pattern` as whole words: no letter, digit or hyphen right before or after it."""
    return r"(?<![\w-])" + pattern + r"(?![\w-])"


@functools.cache
def kept_terms() -> tuple[tuple[str, str | None], ...]:
    """The `#style-english` table: each English term kept in Spanish, with its gender ("m", "f",
    or None for an adjective); a cell with alternatives ("exclude set / include set") gives each."""
    terms = []
    for cells in table(section(STYLE.read_text(encoding="utf-8"), "style-english")):
        gender = GENDERS[plain(cells[1]).split()[0].lower()]
        terms.extend((term.strip(), gender) for term in plain(cells[0]).split(" / "))
    return tuple(terms)


def gender_rules(terms: tuple[tuple[str, str | None], ...]) -> list[Rule]:
    """An article of the other gender before a kept term ("la build", "el op"); a longer term that
    starts with the same words is left to its own rule ("el key set" is not "el key")."""
    rules = []
    for term, gender in terms:
        if gender is None:
            continue
        longer = [other[len(term):].split()[0] for other, _ in terms
                  if other.lower().startswith(term.lower() + " ")]
        ahead = "".join(rf"(?!\s+{re.escape(word)}(?![\w-]))" for word in longer)
        singular, plural = ARTICLES["f" if gender == "m" else "m"]
        name = "masculine" if gender == "m" else "feminine"
        for articles, many in ((singular, False), (plural, True)):
            pattern = bounded(rf"({'|'.join(articles)})\s+" + phrase_pattern(term, plural=many))
            rules.append(Rule(re.compile(pattern + ahead, re.I), term, "", name))
    return rules


@functools.cache
def glossary() -> tuple[list[Rule], frozenset[str]]:
    """The ruled-out variants (the style guide's `#style-avoid` table, plus an article of the other
    gender before each kept English term) and the words the style guide and the glossary let Spanish
    prose use (those of the kept terms and of the Spanish column of the glossary's `#terms` table)."""
    text = STYLE.read_text(encoding="utf-8")
    terms = kept_terms()
    rules = gender_rules(terms)
    allowed = {w.lower() for term, _ in terms for w in words(term)}
    for cells in table(section(text, "style-avoid")):
        preferred = plain(cells[1])
        allowed.update(w.lower() for w in words(preferred))  # its gloss: "por muestra (per-example)"
        for variant in code_items(cells[0]):
            rules.append(Rule(re.compile(phrase_pattern(variant), re.I), variant, preferred))
    for cells in table(section(GLOSSARY.read_text(encoding="utf-8"), "terms")):
        allowed.update(w.lower() for w in words(plain(cells[1])))
    return rules, frozenset(allowed)


@functools.cache
def project_words() -> frozenset[str]:
    """`words.txt`: one word a line, `#` starts a comment; a lower-case entry accepts any case."""
    entries = set()
    for line in WORDS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            entries.add(line)
    return frozenset(entries)


def known(word: str, allowed: frozenset[str], listed: frozenset[str]) -> bool:
    """In the glossary's words (any case, plural too) or in `words.txt` (as listed, or any case
    for a lower-case entry, plural too)."""
    forms = {word, word[:-1]} | ({word[:-2]} if word.endswith("es") else set()) if word.endswith("s") else {word}
    return any(form.lower() in allowed or form in listed or form.lower() in listed for form in forms)


# --- hunspell ----------------------------------------------------------------------------------


def hunspell_rejects(dictionary: str, candidates: set[str]) -> set[str]:
    """The words of `candidates` that hunspell with `dictionary` does not accept."""
    if shutil.which("hunspell") is None or not (DICTIONARIES / f"{dictionary}.dic").exists():
        raise AssertionError(f"hunspell with the {dictionary} dictionary is missing: {INSTALL}")
    done = subprocess.run(["hunspell", "-d", dictionary, "-i", "utf-8", "-l"],
                          input="\n".join(sorted(candidates)), capture_output=True, text=True,
                          encoding="utf-8", check=True)
    return set(done.stdout.split())


# --- The checks --------------------------------------------------------------------------------


def spanish_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.es.md"))


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@functools.cache
def page_prose(page: Path) -> str:
    return prose(page.read_text(encoding="utf-8"))


@functools.cache
def kept_term_patterns() -> tuple[re.Pattern, ...]:
    """Each kept English term of more than one word, as a pattern (plural too)."""
    return tuple(re.compile(phrase_pattern(term, plural=True), re.I) for term, _ in kept_terms() if " " in term)


def inside_kept_terms(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that kept English terms of several words take ("dispatch key", "key set")."""
    return [match.span() for pattern in kept_term_patterns() for match in pattern.finditer(text)]


def variants_in(name: str, text: str) -> list[Finding]:
    """Every ruled-out variant in the prose `text` (see `prose`), except where it glosses the
    preferred form in parentheses, "forma (shape)", or is part of a kept term ("key" in "dispatch key")."""
    rules, _ = glossary()
    lower = text.lower()
    kept = inside_kept_terms(text)
    found = {}
    for rule in rules:
        if rule.needle not in lower:
            continue
        for match in rule.pattern.finditer(text):
            if rule.glossed(text[max(0, match.start() - 80):match.start()]):
                continue
            if any(start <= match.start() and match.end() <= end and end - start > len(match.group())
                   for start, end in kept):
                continue
            line = text.count("\n", 0, match.start()) + 1
            if (line, match.start()) not in found:
                written = " ".join(match.group().split())
                found[line, match.start()] = Finding(
                    name, line, "variant", written, f"«{written}» is ruled out: write «{rule.instead(match)}»")
    return [found[key] for key in sorted(found)]


def occurrences(text: str) -> list[tuple[int, str]]:
    """(line, word) for every word of the prose `text`."""
    return [(number, word) for number, line in enumerate(text.splitlines(), 1) for word in words(line)]


def classify(candidates: set[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Of `candidates`, the words neither the glossary nor `words.txt` accepts and hunspell es_ES
    rejects: those en_US accepts (English) and those it rejects too (misspelt)."""
    _, allowed = glossary()
    listed = project_words()
    not_spanish = hunspell_rejects("es_ES", {w for w in candidates if not known(w, allowed, listed)})
    not_english = hunspell_rejects("en_US", not_spanish)
    return frozenset(not_spanish - not_english), frozenset(not_spanish & not_english)


@functools.cache
def unknown_words() -> tuple[frozenset[str], frozenset[str]]:
    """`classify` over every word of the Spanish pages' prose, with two calls to hunspell."""
    return classify({word for page in spanish_pages() for _, word in occurrences(page_prose(page))})


@functools.cache
def ruled_out(word: str) -> bool:
    """A word that is a ruled-out variant by itself: its finding names the preferred form."""
    rules, _ = glossary()
    return any(rule.pattern.fullmatch(word) for rule in rules)


def words_in(name: str, text: str, kind: str, unknown: frozenset[str]) -> list[Finding]:
    """A finding of `kind` ("english" or "spelling") for each occurrence of an `unknown` word."""
    found = []
    for line, word in occurrences(text):
        if word in unknown and not ruled_out(word):
            if kind == "english":
                message = (f"«{word}» is English and not in the glossary: write it in Spanish, or keep "
                           f"it in English by adding it to {STYLE.relative_to(ROOT)}#style-english")
            else:
                message = (f"«{word}» is not in hunspell's es_ES dictionary: fix its spelling, or add "
                           f"it to {WORDS.relative_to(ROOT)} if it is a name or a correct word")
            found.append(Finding(name, line, kind, word, message))
    return found


def numbers_in(name: str, text: str) -> list[Finding]:
    """Numbers in prose written the English way: a decimal point (a version, "torch 2.13", and a
    section number, "## 9.1", keep theirs) or a percent sign with no space before it."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in PERCENT.finditer(line):
            written = match.group()
            why = "a decimal comma and a space before %" if "." in written else "a space before %"
            found.append(Finding(name, number, "number", written,
                                 f"«{written}»: write «{written[:-1].replace('.', ',')} %» ({why})"))
        for match in DECIMAL_POINT.finditer(line):
            before = line[:match.start()]
            previous = re.search(r"(\w+)\W*$", before)
            if (previous and previous.group(1).lower() in DOTTED_AFTER) or re.fullmatch(r"\s*#+\s+|.*\[", before):
                continue
            written = match.group()
            found.append(Finding(name, number, "number", written,
                                 f"«{written}» has a decimal point: write «{written.replace('.', ',')}», "
                                 f"or put a number copied from an output in code font"))
    return sorted(found, key=lambda finding: finding.line)


def quotes_in(name: str, text: str, source: str) -> list[Finding]:
    """Straight double quotes in prose, where Spanish writes «»: an admonition's title (its quotes are
    Markdown syntax, `??? note "Título"`) aside; `source` is the page's Markdown, line for line."""
    found = []
    for number, (line, written) in enumerate(zip(text.splitlines(), source.splitlines()), 1):
        if ADMONITION.match(written):
            continue
        for match in STRAIGHT_QUOTES.finditer(line):
            found.append(Finding(name, number, "quotes", match.group(),
                                 f"{match.group()}: write «{match.group()[1:-1]}» (or code font for text an output prints)"))
    return found


@functools.cache
def kept_words() -> frozenset[str]:
    """The words of the English terms the glossary keeps, lower case."""
    return frozenset(word.lower() for term, _ in kept_terms() for word in words(term))


def english_headings(name: str, text: str, english: frozenset[str]) -> list[Finding]:
    """Headings with no Spanish word and at least one English one (a kept term or a word of
    `english`): "### Guards" is written "### Guards (guardas)", "### Graph breaks" is written
    "### Cortes de grafo (graph breaks)". Names alone ("## DDP") are not English."""
    headings = [(number, line) for number, line in enumerate(text.splitlines(), 1) if re.match(r"#+\s", line)]
    heading_words = {word for _, line in headings for word in words(line, 1)}
    not_spanish = hunspell_rejects("es_ES", heading_words) if heading_words else set()
    found = []
    for number, line in headings:
        found_words = words(line, 1)  # "y" makes "`sizes`, `strides` y offset" Spanish
        kept = [w for w in found_words if known(w, kept_words(), frozenset())]
        spanish = [w for w in found_words if w not in not_spanish and w not in kept]
        inglés = kept + [w for w in found_words if w in english]
        if inglés and not spanish and not any(ruled_out(w) for w in found_words):
            title = " ".join(found_words)
            found.append(Finding(name, number, "english", title,
                                 f"heading «{title}» is in English: write it in Spanish, the English term "
                                 f"in parentheses if it helps («Cortes de grafo (graph breaks)»)"))
    return found


def findings(page: Path, kind: str) -> list[Finding]:
    """The page's findings of one kind: "variant", "english", "spelling", "number" or "quotes"."""
    text = page_prose(page)
    if kind == "variant":
        return variants_in(page_name(page), text)
    if kind == "number":
        return numbers_in(page_name(page), text)
    if kind == "quotes":
        return quotes_in(page_name(page), text, page.read_text(encoding="utf-8"))
    english, misspelt = unknown_words()
    if kind == "english":
        found = english_headings(page_name(page), text, english) + words_in(page_name(page), text, kind, english)
        return sorted(found, key=lambda finding: finding.line)
    return words_in(page_name(page), text, kind, misspelt)


KINDS = ("variant", "english", "spelling", "number", "quotes")


def main() -> None:
    """Print every finding, page by page, in line order, and the count per page."""
    counts = {}
    for page in spanish_pages():
        found = sorted((f for kind in KINDS for f in findings(page, kind)), key=lambda f: f.line)
        for finding in found:
            print(finding)
        counts[page_name(page)] = len(found)
    print()
    for name, count in counts.items():
        print(f"{count:4d}  {name}")
    print(f"{sum(counts.values()):4d}  findings in all")


if __name__ == "__main__":
    main()
