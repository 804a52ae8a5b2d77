"""A figure drawn in each language (snippets/figure.py) and the page that keeps its own (engine/site/bilingual.py)."""

import pytest

from engine.site import render
from engine.site.bilingual import in_language, link_descriptions
from engine.source.sources import SnippetError
from snippets import figure


def drawing(lang: str) -> tuple[str, str]:
    words = {"en": "one box", "es": "una caja"}[lang]
    return figure.svg(40, 20, [figure.rect(0, 0, 10, 10)], words, words, "box", lang, described=True), words


def test_each_page_keeps_the_drawing_in_its_language():
    output = figure.in_languages("box", drawing)
    english, spanish = in_language(output, "en"), in_language(output, "es")
    assert 'lang="en"' in english and "una caja" not in english and "<title>one box</title>" in english
    assert 'lang="es"' in spanish and "one box" not in spanish and "**En palabras:** una caja" in spanish
    for shown in (english, spanish):  # the SVG names the paragraph under it, which carries that id
        assert 'aria-describedby="box-text"' in shown and shown.rstrip().endswith("{ #box-text }")


def test_a_figure_becomes_a_figure_paragraph_and_its_words_a_paragraph():
    shown = render.output(figure.in_languages("box", drawing), "label", "es", raw=True)
    assert "nmb-lang" not in shown and "{: .nmb-figure" in shown and "una caja\n{ #box-text }" in shown


def test_an_output_in_no_language_is_shown_whole():
    assert in_language("<svg></svg>\n", "es") == "<svg></svg>\n"


def test_an_output_without_the_pages_language_fails_loudly():
    only_english = "<!-- nmb-lang: en -->\n<svg></svg>\n"
    with pytest.raises(SnippetError, match="not in 'es'"):
        in_language(only_english, "es")


def test_a_figure_names_its_paragraph_as_markdown_exec_prefixed_it():
    page = '<svg aria-describedby="box-text"></svg><p id="exec-4--box-text">one box</p>'
    assert 'aria-describedby="exec-4--box-text"' in link_descriptions(page)
    kept = '<svg aria-describedby="view-text"></svg><p id="view-text">words</p>'
    assert link_descriptions(kept) == kept
