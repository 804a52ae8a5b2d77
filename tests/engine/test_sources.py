"""Snippet discovery, dependency closure, hashing and include parsing."""

import pytest

from engine.source import sources
from engine.source.includes import Include, IncludeError, page_includes
from engine.source.sources import MEMO_FILE, closure, declarations, module_name, part_source, source_hash
from tests.engine.sandbox import Sandbox


def test_closure_follows_absolute_and_relative_imports(tmp_path):
    box = Sandbox(tmp_path)
    (tmp_path / "snippets" / "pkg").mkdir()
    box.snippet("pkg/__init__.py", "")
    box.snippet("pkg/base.py", "X = 1\n")
    box.snippet("pkg/mid.py", "from .base import X\n")
    top = box.snippet("top.py", "import os\nfrom snippets.pkg import mid\n")
    names = [module_name(tmp_path, p) for p in closure(tmp_path, top)]
    assert names == ["snippets", "snippets.pkg", "snippets.pkg.base", "snippets.pkg.mid", "snippets.top"]
    before = source_hash(tmp_path, top)
    (tmp_path / "snippets" / "pkg" / "base.py").write_text("X = 2\n")
    assert source_hash(tmp_path, top) != before


def test_declarations_and_parts(tmp_path):
    box = Sandbox(tmp_path)
    file = box.snippet("d.py", 'ISOLATE = True\nDEVICES = ["cpu", "cuda"]\n\n@staticmethod\ndef f():\n    return 1\n')
    assert declarations(file).isolate and declarations(file).devices == ("cpu", "cuda")
    assert part_source(file, "f") == "@staticmethod\ndef f():\n    return 1\n"


@pytest.mark.parametrize("code, alone", [
    ("import time\nT = time.perf_counter()\n", True),
    ("from snippets.timing import compare\n", True),
    ("def f(prof):\n    return [e.self_cpu_time_total for e in prof.key_averages()]\n", True),
    ("def f(prof):\n    return prof.key_averages().table()\n", True),
    ("def f(prof):\n    return [e.count for e in prof.key_averages()]\n", False),
])
def test_a_call_that_reads_a_clock_or_the_profilers_times_runs_alone(tmp_path, code, alone):
    box = Sandbox(tmp_path)
    box.snippet("timing.py", "def compare():\n    pass\n")
    assert sources.measures_time(tmp_path, box.snippet("s.py", code)) is alone


@pytest.mark.parametrize("code, compiler", [
    ("import torch\ndef f(m):\n    return torch.compile(m)\n", True),
    ("from torch._inductor.utils import run_and_get_code\n", True),
    ("import torch\ndef f(x):\n    return x + 1\n", False),
])
def test_calls_that_may_compile_get_fork_servers_that_imported_the_compiler(tmp_path, code, compiler):
    assert sources.compiles(tmp_path, Sandbox(tmp_path).snippet("s.py", code)) is compiler


@pytest.mark.parametrize("code, processes, ranks", [
    ("from torch.distributed import run\n", True, True),  # torchrun's entry point, as the course's torchrun.py
    ("import torch.distributed.run\n", True, True),
    ("from torch.distributed.launcher.api import elastic_launch\n", True, True),
    ("import torch.multiprocessing as mp\n", True, True),
    ("import multiprocessing\n", True, True),
    ("import subprocess\n", True, False),
    ("import torch.distributed as dist\n", False, False),  # its APIs, or a group of one: no rank started
    ("from torch.distributed.elastic.multiprocessing.errors import record\n", False, False),  # a rank's side
    ("import torch\n", False, False),
])
def test_calls_that_start_ranks_are_told_from_those_that_start_an_interpreter(tmp_path, code, processes, ranks):
    snippet = Sandbox(tmp_path).snippet("s.py", code)
    assert sources.starts_processes(tmp_path, snippet) is processes and sources.starts_ranks(tmp_path, snippet) is ranks


def test_a_build_keeps_what_it_computed_for_the_next_that_finds_the_same_files(tmp_path, monkeypatch):
    box = Sandbox(tmp_path)
    box.snippet("base.py", "X = 1\n")
    top = box.snippet("top.py", "ISOLATE = True\nfrom snippets.base import X\n")

    def build(known: bool = False) -> tuple[str, bool]:
        sources.freeze(tmp_path)
        try:
            assert (("hash", tmp_path, top.resolve()) in sources._frozen) is known
            return source_hash(tmp_path, top), declarations(top).isolate
        finally:
            sources.thaw(tmp_path)

    monkeypatch.setattr(sources, "_kept", None)
    first = build()
    assert (tmp_path / MEMO_FILE).is_file()
    assert build(known=True) == first  # the same process, as under mkdocs serve
    monkeypatch.setattr(sources, "_kept", None)  # a new process: it reads .cache/sources.json
    assert build(known=True) == first
    (tmp_path / "snippets" / "base.py").write_text("X = 2\n")  # another file: everything is computed anew
    (tmp_path / "snippets" / "top.py").write_text("ISOLATE = False\nfrom snippets.base import X\n")
    second = build()
    assert second[0] != first[0] and second[1] is False
    sources.freeze(tmp_path)
    source_hash(tmp_path, top)
    (tmp_path / "snippets" / "base.py").write_text("X = 3\n")  # changed while the build ran
    sources.thaw(tmp_path)
    assert sources._kept is None and build() != second  # nothing computed then is kept
    (tmp_path / "snippets" / "base.py").write_text("X = 2\n")
    (tmp_path / MEMO_FILE).write_text('{"digest": ')  # unreadable: a miss, not an error
    monkeypatch.setattr(sources, "_kept", None)
    assert build() == second


def test_includes_parse_and_reject():
    page = '```python exec="1"\nprint(snippet("a/b.py", call=None, show="code"))\n```\n'
    assert page_includes(page) == [Include("a/b.py", call=None, show="code")]
    with pytest.raises(IncludeError):
        page_includes('```python exec="1"\nprint(snippet(path))\n```\n')
    with pytest.raises(IncludeError):
        page_includes('```python exec="1"\nprint(snippet("a.py", show="all"))\n```\n')


def test_addresses_are_masked():
    from engine.run.runner import mask_addresses

    shown = mask_addresses("<built-in method run_backward of torch._C._EngineBase object at 0x7fab047a7ef0> 0x10")
    assert shown == "<built-in method run_backward of torch._C._EngineBase object at 0x…> 0x10"
