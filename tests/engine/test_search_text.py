"""What search keeps of a page (engine/site/search_text.py), and the code blocks made lighter
(engine/site/lighter.py)."""

import re

from material.plugins.search.plugin import SearchIndex

from engine.site import lighter, search_text

SEPARATOR = r'[\s\-,;:!?¿¡()\[\]{}"«»“”]+'  # mkdocs.yml's
PAGE = """<h1 id="top">Top</h1>
<p>The call enters at <code>AutogradCPU</code>, then <code>aten::addmm</code> runs.</p>
<div class="language-python highlight"><span class="filename">snippets/x.py</span><pre><span></span><code><span class="n">secret_name</span>
</code></pre></div>
<div class="nmb-output highlight"><pre><span></span><code>an output line
</code></pre></div>
<p class="nmb-provenance">Output built on CPU.</p>
<p class="nmb-figure"><svg role="img"><title>a chart</title><text>bars</text></svg></p>
<h2 id="next">Next</h2>
<p>A tensor views a storage, which a view shares: its sizes, strides and offset say which of the bytes it
reads. The storage (almacenamiento) holds the bytes. AutogradCPU again.</p>
"""


class Page:
    """What Material's search plugin reads of a page."""

    def __init__(self, content: str):
        self.content, self.url, self.title, self.meta, self.toc = content, "p/", "Top", {}, []


def entries(html: str) -> list[dict]:
    index = SearchIndex(separator=SEPARATOR)
    index.add_entry_from_context(Page(html))
    return index.entries


def test_search_reads_prose_and_inline_code_not_what_snippets_show():
    marked = search_text.mark_shown(PAGE)
    text = " ".join(entry["text"] for entry in entries(marked))
    assert "<code>AutogradCPU</code>" in text and "almacenamiento" in text
    assert not any(shown in text for shown in ("secret_name", "snippets/x.py", "an output line", "Output built",
                                               "a chart", "bars"))
    assert re.sub(r' data-search-exclude="shown"', "", marked) == PAGE  # the marks add nothing else


def test_each_section_keeps_a_teaser_and_the_words_its_page_has_not_used_yet():
    sections = search_text.sections(entries(search_text.mark_shown(PAGE)), SEPARATOR)
    first, second = sections
    assert first["text"] == "<p>The call enters at <code>AutogradCPU</code>, then <code>aten::addmm</code> runs.</p>"
    words = second["words"].split()
    assert second["location"] == "p/#next" and second["text"].startswith("<p>A tensor views a storage")
    assert "almacenamiento" in words and "holds" in words  # after the teaser; "storage" in it already
    assert "storage" not in words and "again" in words and "again." not in words  # a word, not its full stop
    assert "autogradcpu" not in words  # used by the first section already
    assert search_text.sections(sections, SEPARATOR) == sections  # kept sections stay as they are


def test_a_long_teaser_is_cut_at_a_space_with_its_code_closed():
    teaser = search_text.teaser("<p>" + "word " * 15 + "<code>" + "x " * 30 + "</code></p>", limit=100)
    assert teaser.startswith("<p>word word") and teaser.endswith("</code> …</p>")
    assert len(teaser) < 130 and teaser.count("<code>") == teaser.count("</code>") == 1


def test_code_blocks_lose_their_plain_spans_and_carry_their_line_count():
    block = ('<pre><span></span><code><span class="k">def</span> <span class="nf">f</span><span class="p">()'
             '</span><span class="w"> </span><span class="n">x</span>\n<span class="n">y</span>\n</code></pre>')
    assert lighter.lighter(block) == ('<pre style="--nmb-lines: 2"><span></span><code><span class="k">def</span> '
                                      '<span class="nf">f</span><span class="p">()</span> x\ny\n</code></pre>')


def test_neighbouring_tokens_coloured_alike_are_one_span():
    block = ('<pre><span></span><code><span class="n">x</span><span class="p">[:,</span><span class="w"> </span>'
             '<span class="kc">None</span><span class="p">]</span><span class="w"> </span><span class="o">-&gt;</span>'
             '<span class="w"> </span><span class="s2">&quot;a</span><span class="si">{</span><span class="n">y</span>'
             '<span class="si">}</span><span class="s2">&quot;</span>\n</code></pre>')
    assert lighter.lighter(block) == ('<pre style="--nmb-lines: 1"><span></span><code>x<span class="p">[:,</span> None'
                                      '<span class="p">] -&gt;</span> '
                                      '<span class="s2">&quot;a{</span>y<span class="si">}&quot;</span>\n</code></pre>')


def test_a_block_that_may_scroll_sideways_is_focusable_before_the_theme_mounts_it():
    wide = "x" * (lighter.WIDE - 3) + " &lt; y"  # one character over (&lt; is one), as the reader sees it
    assert '<code tabindex="0">' in lighter.lighter(f"<pre><span></span><code>{wide}\n</code></pre>")
    assert "tabindex" not in lighter.lighter(f"<pre><span></span><code>{wide[:-1]}\n</code></pre>")
