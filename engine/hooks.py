"""MkDocs hooks: wire `snippet()` into markdown-exec, and make every failure loud.

Listed under `hooks:` in mkdocs.yml. Both language passes of static-i18n and every
`mkdocs serve` rebuild share one `engine.site.pages.Site`, hence one execution per snippet.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the engine package itself, wherever the config lives
    sys.path.insert(0, str(ROOT))

from engine import background  # noqa: E402
from engine.base import atomic, store  # noqa: E402
from engine.source import numerics, sources, translations  # noqa: E402
from engine.site import (bilingual, interface, lighter, not_found, pages, reading_time, render,  # noqa: E402
                         render_cache, search_split, search_text)
from engine.jupyter import notebook_html, notebook_pages, notebooks  # noqa: E402
from engine.run.execute import SLEEPING_OPENMP, Executor, jobs  # noqa: E402
from engine.source.includes import IncludeError, page_includes  # noqa: E402
from engine.run.progress import read_timings, save_timings  # noqa: E402
from engine.base.settings import Layout  # noqa: E402
from engine.source.sources import SnippetError  # noqa: E402

log = logging.getLogger("mkdocs.engine")
DISARM = re.compile(r"^([ \t]*`{3,}\s*\w+[^\n]*?)\bexec=\S+", re.MULTILINE)  # shown, never run


@dataclass
class BuildState:
    """What the hooks keep between MkDocs' events, and between the rebuilds of one `mkdocs serve`."""

    command: str = "build"  # or "serve"
    dirty: bool = False  # --dirty: only changed pages are rendered again
    expected: dict = field(default_factory=dict)  # (page, language) -> exec blocks its Markdown holds
    signatures: dict = field(default_factory=dict)  # built page -> its snippets' signature (--dirty)
    background: subprocess.Popen | None = None  # serve's background run (engine/background.py)
    background_checked: bool = False  # whether the first serve build has looked for missing outputs
    server: object = None  # serve's LiveReloadServer, watching the cache while the background run fills it
    prefetch_seconds: float = 0.0  # spent running snippet calls before pages render


_state = BuildState()


def on_startup(command, dirty):
    _state.command, _state.dirty = command, dirty
    if (reason := numerics.unsupported()) is not None:
        raise PluginError(f"unsupported machine: {reason}")
    numerics.pin()  # before anything imports torch, MKL or NumPy: every call and child inherits it
    os.environ.setdefault("OMP_WAIT_POLICY", SLEEPING_OPENMP)  # read when torch loads OpenMP: before any call


@event_priority(-200)  # after static-i18n has given each file its language's destination
def on_files(files, config):
    """Each lab's notebook page joins the files (engine/jupyter/notebook_pages.py). `mkdocs serve --dirty`
    re-renders only pages whose file changed; a page whose snippets or recordings changed is made to
    look changed too, by removing its built HTML (a notebook page is re-rendered every time: cached)."""
    if _state.dirty:
        _mark_changed_pages(files)
    return notebook_pages.add(files, config)


def _mark_changed_pages(files) -> None:
    site = pages.current()
    root = site.root
    for file in files.documentation_pages():
        if file.src_uri in site.running:  # it showed an output still running: render it again
            Path(file.abs_dest_path).unlink(missing_ok=True)
            continue
        text = Path(file.abs_src_path).read_text(encoding="utf-8")
        try:
            signature = pages.page_signature(root, text)
        except (IncludeError, SnippetError):
            signature = None  # the render reports it
        if _state.signatures.get(file.abs_dest_path) != signature:
            Path(file.abs_dest_path).unlink(missing_ok=True)
            _state.signatures[file.abs_dest_path] = signature


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("TRITON_INTERPRET", "1")  # no GPU at build time: Triton runs on CPU
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(Layout(root).inductor))
    # Kineto, the profiler's library, writes a line to the process's stderr as each profile starts and stops
    # (past any capture: no page shows them), which a build would print among its own: 6 is above its
    # highest level.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    missing = translations.missing_twins(Path(config.docs_dir))
    if missing:
        raise PluginError("missing translation(s):\n" + "\n".join(f"  {m}" for m in missing))
    site = pages.current()
    if site is None or site.root != root:
        pages.activate(pages.Site(Executor(root, Layout(root).snippets)))
    builtins.snippet = pages.snippet
    render_cache.install(root)
    return config


def on_env(env, config, files):
    """The theme's templates compiled once, not at every build: Jinja keeps their bytecode in
    .cache/jinja/<its version>, keyed by each template's name and checked against its source."""
    import jinja2

    folder = Layout(pages.current().root).jinja / jinja2.__version__
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
    return env


def on_pre_build(config):
    """Every snippet call of the site (both languages) not cached yet runs now, side by side where
    that is safe (Executor.prefetch), so that pages render from the cache. Under `mkdocs serve` with
    calls missing at start, they run in a background process instead (engine.background) while pages
    show what is ready. When calls ran, every lab notebook whose HTML is not cached starts converting
    then, beside the pages (engine/jupyter/notebook_pages.convert_ahead)."""
    site = pages.current()
    sources.freeze(site.root)  # each snippet's closure and hash once per build
    if _state.command == "serve" and _in_background(site, Path(config.docs_dir)):
        return
    start, executed = time.perf_counter(), len(site.executor.executed)
    site.executor.prefetch(pages.site_calls(site.root, Path(config.docs_dir)), read_timings(site.root))
    _state.prefetch_seconds += time.perf_counter() - start
    if len(site.executor.executed) > executed:
        notebook_pages.convert_ahead(config, site, jobs())


def _in_background(site, docs: Path) -> bool:
    """True while the background run started by the first `mkdocs serve` build is still going."""
    if not _state.background_checked:
        _state.background_checked = True
        if any(site.executor.missing(*call) for call in pages.site_calls(site.root, docs)):
            log.info("engine: snippet outputs missing: they run in the background; pages show them as they come")
            _state.background = background.start(site.root, docs)
    process = _state.background
    if process is not None and not any(site.executor.missing(*call) for call in pages.site_calls(site.root, docs)):
        process.wait(timeout=60)  # every output is in: it is only saving its timings
    site.waiting = process is not None and process.poll() is None
    if process is not None and not site.waiting:
        _state.background = None
        if _state.server is not None:
            _state.server.unwatch(str(site.executor.cache_dir))
        log.info("engine: the background run has ended (exit status %s)", process.returncode)
    return site.waiting


def on_serve(server, config, builder):
    """While the background run fills the cache, every entry it writes triggers a rebuild."""
    if _state.background is not None:
        _state.server = server
        cache = pages.current().executor.cache_dir
        cache.mkdir(parents=True, exist_ok=True)
        server.watch(str(cache))
    return server


def on_shutdown():
    notebook_html.wait_ahead(stop=True)  # a build that failed may have left some converting
    process = _state.background
    if process is not None and process.poll() is None:
        process.terminate()


def _lang(config) -> str:
    return config.theme.get("language", "en")


def on_page_markdown(markdown, page, config, files):
    site = pages.current()
    site.start_page(page.file.src_uri, _lang(config))
    notebooks.offer(page, config)
    try:
        _state.expected[site.page, site.lang] = len(page_includes(markdown))
    except IncludeError as error:
        # Stop before markdown-exec runs a block we did not write (a sys.exit there ends the build "fine").
        _state.expected[site.page, site.lang] = None
        site.fail("(page)", str(error))
        _report(site)
        return DISARM.sub(r"\1", markdown) + "\n" + render.failure(str(error), site.lang)
    return markdown


def on_page_content(html, page, config, files):
    """A notebook page's body; every snippet block the page showed ran; its code blocks made lighter
    (engine/site/lighter.py); what search leaves out marked (engine/site/search_text.py: the search plugin
    reads the page next, and removes the marks); a page of the site its reading time stated
    (engine/site/reading_time.py)."""
    site = pages.current()
    if notebook_pages.is_notebook_page(page):
        html = notebook_pages.render(page, config, site) or html
    else:
        html = reading_time.stamp(html, site.lang)
    expected = _state.expected.get((site.page, site.lang), 0)
    if expected is not None and site.rendered != expected:
        site.fail("(page)", f"{expected - site.rendered} of {expected} snippet block(s) did not run "
                            "(markdown-exec could not execute them: see the warning above)")
    _report(site)
    return search_text.mark_shown(lighter.lighter(html))


def _report(site) -> None:
    """Abort a build on this page's failures; under `mkdocs serve`, log them (the page shows them)."""
    failures = [f for f in site.failures if (f.page, f.lang) == (site.page, site.lang)]
    if failures:
        message = "snippet failure(s):\n" + "\n\n".join(str(f) for f in failures)
        if _state.command == "serve":
            log.error(message)
        else:
            raise PluginError(message)


def on_post_page(output, page, config):
    """The theme's markup in the page's language, and valid (engine/site/interface.py); each figure described by
    its paragraph (engine/site/bilingual.py)."""
    return interface.fix(bilingual.link_descriptions(output), _lang(config))


def on_post_template(output_content, template_name, config):
    """The 404 page's markup too (it is no page: on_post_page never sees it), in its language's folder."""
    return not_found.placed(interface.valid(output_content), template_name, config)


@event_priority(-200)  # after static-i18n, whose post-build step builds the other languages
def on_post_build(config):
    site = pages.current()
    sources.thaw(site.root)
    notebook_html.wait_ahead()
    search_split.split_by_language(Path(config.site_dir), config)
    render_cache.STORE.save()
    executor = site.executor
    log.info("engine: %d snippet call(s) executed in this process so far", len(executor.executed))
    root = site.root
    save_timings(root, executor)
    if _state.command == "build" and not _state.dirty and Path(config.docs_dir).resolve() == root / "docs":
        _prune(Layout(root), executor)  # a whole build of the course looked up every entry the course needs
    atomic.write_text(Layout(root).last_build, json.dumps(
        {"executed": executor.executed, "timings": executor.timings,
         "prefetch_seconds": round(_state.prefetch_seconds, 2)}))


def _prune(layout: Layout, executor) -> None:
    """Drop the snippet outputs and notebook pages no page of this build used (`mkdocs serve` never does:
    its background run may be writing entries that no page has read yet; nor does a build of other pages
    with the course's configuration, such as the tests' fixture site, which runs beside the course's)."""
    gone = store.prune(layout.snippets, (f"{key}.json" for key in executor.memory))
    gone += store.prune(layout.notebook_html, notebook_html.used)
    if gone:
        log.info("engine: %d cache entries that this build did not use removed", len(gone))
