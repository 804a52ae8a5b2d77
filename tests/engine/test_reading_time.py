"""The reading time a page states (engine/site/reading_time.py): counted from what the page shows."""
from engine.site import reading_time

PAGE = ("<h1>Title</h1><p>" + "word " * 400 + "</p>"
        "<pre><code>" + "line\n" * 60 + "</code></pre>"
        "<details class='success'><summary>Solution</summary><pre><code>" + "x\n" * 300 + "</code></pre>"
        "<p>" + "hidden " * 1000 + "</p></details>"
        "<details open><summary>Shown</summary><pre><code>" + "y\n" * 30 + "</code></pre></details>"
        "<p class='nmb-provenance'>Output built on CPU</p><svg><text>" + "drawn " * 500 + "</text></svg>"
        "<details class='example nmb-run-box' open><summary>Run</summary><p>" + "setup " * 300 + "</p></details>"
        "<div class='nmb-notebooks'><a>Download the .ipynb</a></div>")


def test_it_counts_what_the_page_shows_and_not_what_it_folds():
    assert reading_time.counts(PAGE) == (1 + 400 + 1 + 1, 60 + 30)
    assert reading_time.minutes(PAGE) == 6  # 403 words at 200 a minute, 90 lines at 30 a minute


def test_the_time_is_stated_under_the_title_in_the_pages_language():
    stamped = reading_time.stamp(PAGE, "es")
    assert stamped.startswith('<h1>Title</h1>\n<p class="nmb-reading-time">Tiempo de lectura: unos 6 min.</p>')
    assert reading_time.stated(stamped) == 6 and reading_time.minutes(stamped) == 6
