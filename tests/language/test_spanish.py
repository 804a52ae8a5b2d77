"""The Spanish pages follow the authors' style guide (tests/language/STYLE.es.md) and spell
every word as hunspell's es_ES dictionary does (names and kept terms aside).

`python -m tests.language.spanish` lists every finding of every page at once.
"""

import re

import pytest

from .spanish import (GENDERS, GLOSSARY, KINDS, STYLE, ROOT, WORDS, classify, code_items, english_headings,
                      findings, hunspell_rejects, kept_terms, numbers_in, occurrences, page_name, plain,
                      project_words, prose, quotes_in, section, spanish_pages, table, variants_in, words_in)

PAGES = spanish_pages()
ENGLISH_STYLE = STYLE.with_name("STYLE.md")
WHAT = {
    "variant": "ruled-out variants (tests/language/STYLE.es.md#style-avoid and the genders of #style-english)",
    "english": "English words the style guide does not keep (tests/language/STYLE.es.md#style-english)",
    "spelling": "words hunspell es_ES rejects (names and correct words go in tests/language/words.txt)",
    "number": "numbers written the English way (tests/language/STYLE.es.md#style-numbers)",
    "quotes": "straight double quotes where Spanish writes «» (tests/language/STYLE.es.md#style)",
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_spanish_prose(page, kind):
    found = findings(page, kind)
    if found:
        pytest.fail(f"{len(found)} {WHAT[kind]}:\n" + "\n".join(map(str, found)), pytrace=False)


def test_the_style_guides_state_the_same_style():
    """The English style guide shows the same kept terms (with their genders) and ruled-out variants."""
    spanish, english = (path.read_text(encoding="utf-8") for path in (STYLE, ENGLISH_STYLE))
    in_english = {"masculine": "masculino", "feminine": "femenino", "adjective": "adjetivo"}
    kept_es = [(plain(c[0]), plain(c[1]), c[2]) for c in table(section(spanish, "style-english"))]
    kept_en = [(plain(c[0]), in_english.get(plain(c[1]), plain(c[1])), c[2])
               for c in table(section(english, "style-english"))]
    assert kept_es == kept_en
    assert table(section(spanish, "style-avoid")) == table(section(english, "style-avoid"))


def test_the_style_rules_are_well_formed():
    text = STYLE.read_text(encoding="utf-8")
    genders = [plain(cells[1]).split()[0].lower() for cells in table(section(text, "style-english"))]
    assert genders and all(gender in GENDERS for gender in genders)
    terms = [term.lower() for term, _ in kept_terms()]
    assert len(terms) == len(set(terms)), "a term is kept twice"
    avoid = table(section(text, "style-avoid"))
    assert avoid and all(code_items(cells[0]) and plain(cells[1]) for cells in avoid)
    variants = {variant.lower() for cells in avoid for variant in code_items(cells[0])}
    assert not variants & set(terms), "a term is both kept and ruled out"


def test_every_listed_word_is_needed():
    """Each entry of words.txt is one the es_ES dictionary rejects."""
    listed = project_words()
    accepted = listed - hunspell_rejects("es_ES", set(listed))
    assert not accepted, f"hunspell es_ES accepts these already, drop them from {WORDS.name}: {sorted(accepted)}"


SAMPLE = """\
# Una página { #sample }

Guarda el resultado en un fichero y compila la
build: el `fichero` de código no cuenta.

```python exec="1"
print(snippet("librería/fichero.py"))
```

??? success "Solución"
    El modo grad, la forma (shape) y el [enlace](https://example.org/fichero).
    Esto vuelve a
    despachar la llamada con el `grad
    mode` apagado, y el throughput cae.

| Inglés | Español |
| --- | --- |
| whatever | cualquiera |

Mira el dispatcher: cada kernel lee el sotrage y luego the output.

### Guards { #guards }

## 9.1 Números { #numbers }

Con torch 2.13 y Python 3.11, el 41,4 % tarda 0.5 s, un 12.5% más que `0.25` y que el 3%.
"""


def test_the_checks_find_what_they_look_for():
    text = prose(SAMPLE)
    assert len(text.splitlines()) == len(SAMPLE.splitlines())
    found = [(f.line, f.text) for f in variants_in("sample.es.md", text)]
    assert found == [(3, "fichero"), (3, "la build"), (11, "modo grad"), (12, "vuelve a despachar")]
    message = str(variants_in("sample.es.md", text)[1])
    assert message == "sample.es.md:3: «la build» is ruled out: write «el build (masculine)»"
    seen = {word for _, word in occurrences(text)}
    assert not seen & {"python", "exec", "snippet", "success", "example", "org", "whatever", "sample"}
    english, misspelt = classify(seen)
    assert [(f.line, f.text) for f in words_in("sample.es.md", text, "english", english)] == [(20, "the"), (20, "output")]
    assert [(f.line, f.text) for f in words_in("sample.es.md", text, "spelling", misspelt)] == [(20, "sotrage")]
    assert [(f.line, f.text) for f in english_headings("sample.es.md", text, english)] == [(22, "Guards")]
    numbers = numbers_in("sample.es.md", text)
    assert [(f.line, f.text) for f in numbers] == [(26, "12.5%"), (26, "3%"), (26, "0.5")]
    assert str(numbers[0]) == "sample.es.md:26: «12.5%»: write «12,5 %» (a decimal comma and a space before %)"


def test_the_checks_read_every_spanish_page():
    assert GLOSSARY in PAGES and len(PAGES) > 10
    assert all(re.search(r"\w", prose(page.read_text(encoding="utf-8"))) for page in PAGES)
    assert ROOT / "docs" / "index.es.md" in PAGES


ONE_TERM = """\
Cada key del key set elige; la dispatch key `CPU` y las dispatch
keys de autograd no cuentan. El grammar MiniGPT y los patrones de distribuido.
Los modos de dispatch, un envoltorio, el currículo y la clave (key) de la atención.
??? note "Título con comillas"
    Dice "solo conceptos" y `"en código"`.
"""


def test_a_second_rendering_of_a_decided_concept_fails():
    """A word ruled out alone is allowed inside a kept term ("dispatch key", "key set") and as a gloss."""
    text = prose(ONE_TERM)
    found = [(f.line, f.text) for f in variants_in("sample.es.md", text)]
    assert found == [(1, "key"), (2, "grammar MiniGPT"), (2, "de distribuido"), (3, "modos de dispatch"),
                     (3, "envoltorio"), (3, "currículo")]
    assert [(f.line, f.text) for f in quotes_in("sample.es.md", text, ONE_TERM)] == [(5, '"solo conceptos"')]
