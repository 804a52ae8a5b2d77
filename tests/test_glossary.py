"""The readers' glossary: the same terms in both languages, each link to the page that teaches a term
reaching a section that exists, and no authors' material (the Spanish style guide is in tests/language/)."""
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = (DOCS / "glossary.md", DOCS / "glossary.es.md")
LINK = re.compile(r"\]\(([^)#\s]+\.md)#([\w-]+)\)")


def rows(page: Path) -> list[list[str]]:
    """The rows of the terms table: English, Spanish, definition."""
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in page.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| ---")][1:]


def test_both_languages_define_the_same_terms_in_the_same_order():
    english, spanish = (rows(page) for page in PAGES)
    assert [row[:2] for row in english] == [row[:2] for row in spanish]
    assert len(english) > 80


def test_each_link_reaches_a_section_of_the_page_that_teaches_the_term():
    for page in PAGES:
        for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
            taught = (DOCS / target).read_text(encoding="utf-8")
            assert f"{{ #{anchor} }}" in taught, f"{page.name}: {target}#{anchor}"


def test_the_glossary_is_for_readers():
    for page in PAGES:
        assert "{ #style" not in page.read_text(encoding="utf-8")
