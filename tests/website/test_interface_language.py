"""A Spanish page's interface speaks Spanish: no string the theme, the engine or the templates print
around the content (titles, labels, placeholders, the header, footer and search) is left in English."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .test_markup import parsed_page

ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
# The same in both languages: the site's and the theme's names, and each language's own name.
NEUTRAL = {"No Magic Boxes", "Material for MkDocs", "English", "Español"}


def interface_strings(page: Path) -> set[str]:
    """Attribute texts, text outside the content and the navigation (whose words are the pages'
    titles and headings), and the strings the theme's script shows (search, clipboard)."""
    tree, _ = parsed_page(page)
    found = set()

    def walk(element, content: bool) -> None:
        if not isinstance(element.tag, str) or element.tag in ("script", "style"):
            return
        classes = (element.get("class") or "").split()
        if "md-nav" in classes and "md-nav--primary" not in classes:
            return  # a section of the navigation or of the table of contents, named by a title or heading
        content = content or element.tag == "article" or "md-nav" in classes
        found.update(" ".join(element.get(name).split()) for name in ATTRIBUTES if element.get(name))
        if not content:
            found.update(" ".join(t.split()) for t in (element.text,) if t and t.strip())
        for child in element:
            walk(child, content)
            if not content and child.tail and child.tail.strip():
                found.add(" ".join(child.tail.split()))

    walk(tree, False)
    config = next((s for s in tree.iter("script") if s.get("id") == "__config"), None)
    if config is not None:
        found |= set(json.loads(config.text)["translations"].values())
    return found


def test_spanish_pages_have_no_english_interface_string(built_site):
    """Each Spanish page against its English twin: a string both show is one left untranslated."""
    problems = []
    for english in sorted(built_site.rglob("*.html")):
        relative = english.relative_to(built_site)
        spanish = built_site / "es" / relative
        if relative.parts[0] == "es" or not spanish.is_file():
            continue
        shared = interface_strings(english) & interface_strings(spanish)
        problems += [f"es/{relative.as_posix()}: {text!r}" for text in sorted(shared - NEUTRAL)]
    assert not problems, "\n".join(problems)


def test_the_check_sees_the_interface(built_site):
    """Non-vacuous: the strings compared include the heading anchors' titles and the palette toggles."""
    spanish = interface_strings(built_site / "es" / "glossary" / "index.html")
    english = interface_strings(built_site / "glossary" / "index.html")
    assert {"Permanent link", "Switch to dark mode", "Copy to clipboard"} <= english
    assert {"Enlace permanente", "Cambiar al modo oscuro", "Copiar al portapapeles"} <= spanish


# Material's own Spanish wording that a reader in Spain would not write (usted, calques, clipped
# words): engine/theme/partials/language.html replaces each.
GENERIC_WORDING = {"Teclee para comenzar búsqueda", "Tabla de contenidos", "Saltar a contenido", "Búsqueda",
                   "Pie", "Limpiar", "Inicializando búsqueda", "No se encontraron documentos",
                   "1 documento encontrado", "# documentos encontrados"}


def shown(html: str, text: str) -> bool:
    """Whether the page shows `text` whole: as an element's text, an attribute or a script's string
    (the table of contents' title too, which `interface_strings` leaves to the headings)."""
    return re.search(r'[>"]\s*' + re.escape(text) + r'\s*[<"]', html) is not None


def test_spanish_pages_show_none_of_the_themes_generic_wording(built_site):
    pages = sorted((built_site / "es").rglob("*.html"))
    problems = [f"{page.relative_to(built_site).as_posix()}: {text!r}" for page in pages
                for text in sorted(GENERIC_WORDING) if shown(page.read_text(encoding="utf-8"), text)]
    assert pages and not problems, "\n".join(problems)
    home = (built_site / "es" / "index.html").read_text(encoding="utf-8")
    assert all(shown(home, text) for text in ("Escribe para empezar a buscar", "Ir al contenido", "En esta página",
                                              "Pie de página", "Buscar"))
    assert shown((built_site / "index.html").read_text(encoding="utf-8"), "Table of contents")  # the check sees it


def test_spanish_has_its_own_404_page(built_site):
    spanish, english = (built_site / "es" / "404.html").read_text(encoding="utf-8"), \
        (built_site / "404.html").read_text(encoding="utf-8")
    assert re.search(r'<html lang="es"', spanish) and re.search(r'<html lang="en"', english)
    assert "Página no encontrada" in spanish and "Page not found" not in spanish
    assert "Escribe para empezar a buscar" in spanish
    config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', spanish, re.S)[1])
    assert config["base"].endswith("/es/") and not config["base"].startswith("//"), config["base"]  # Spanish search


def test_spanish_provenance_dates_are_written_as_in_spain(built_site):
    """«el 26 de noviembre de 2026», never an ISO date, on every Spanish page that shows a recording."""
    labels = [label for page in (built_site / "es").rglob("*.html")
              for label in re.findall(r'class="nmb-provenance">(.*?)</p>', page.read_text(encoding="utf-8"))]
    dated = [label for label in labels if "grabación" in label or "grabada" in label]
    assert dated, "no Spanish page shows a recording's provenance"
    assert not [label for label in labels if re.search(r"\d{4}-\d{2}-\d{2}", label)]
    assert all(re.search(r", el \d{1,2} de (enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|"
                         r"octubre|noviembre|diciembre) de \d{4}\.", label) for label in dated), dated
