"""Claims: what a page says about a snippet's output, written as checks beside the snippet's code.

A claim is a top-level function of a snippet module whose name starts with `claim_`. Its one
parameter is named after the call whose output it checks (`main`, `drill1`, ...) and receives that
output as an `Output`; its docstring starts with the anchor of the page section that makes the claim,
then the sentence as the page says it:

    def claim_four_nodes(main):
        \"\"\"#reverse-traversal: backward runs four nodes before the leaves'.\"\"\"
        return main.count("Backward0") == 4

A claim returns True when it holds (False, or any exception, means it does not). The engine runs it
against every output the site shows for that call: the CPU execution and each GPU recording, at every
build and before `make record` writes a recording. Claims only read the output: they are left out of
the source hash (adding one never makes an output stale) and out of the code shown on the page. They
run in a namespace of their own with `re` and `math`; they do not import the snippet.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from engine.base import syntax

PREFIX = "claim_"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


class ClaimError(AssertionError):
    """An output contradicts a claim, or a claim cannot be read."""


@dataclass(frozen=True)
class Output:
    """One output as a claim reads it: its text and where it came from."""

    text: str
    device: str = "cpu"  # "cpu" (built) or "cuda" (recorded)
    versions: dict = field(default_factory=dict)  # what produced it: torch, triton, python (+ gpu, cuda, date)

    @property
    def gpu(self) -> str | None:
        """The recording's GPU name (None for a CPU output)."""
        return self.versions.get("gpu")

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def __contains__(self, needle: str) -> bool:
        return needle in self.text

    def count(self, needle: str) -> int:
        """Lines that contain `needle`."""
        return sum(needle in line for line in self.lines)

    @property
    def desc(self) -> str:
        """The text of the first figure description (`<desc>`) in the output: the English one, drawn first."""
        return self.text.split("<desc>")[1].split("</desc>")[0]

    def line(self, needle: str) -> str:
        """The one line that contains `needle` (an error when none or several do)."""
        found = [line for line in self.lines if needle in line]
        if len(found) != 1:
            raise ClaimError(f"{len(found)} lines contain {needle!r}, expected exactly one")
        return found[0]

    def numbers(self, needle: str) -> list[float]:
        """Every number on the one line that contains `needle`, after `needle` itself."""
        line = self.line(needle)
        return [float(n) for n in NUMBER.findall(line[line.index(needle) + len(needle):])]

    def number(self, needle: str, index: int = 0) -> float:
        """The `index`-th number after `needle` on its line."""
        found = self.numbers(needle)
        if len(found) <= index:
            raise ClaimError(f"no number #{index} after {needle!r} in: {self.line(needle)!r}")
        return found[index]

    def between(self, start: str, end: str | None = None) -> "Output":
        """The lines after the first line containing `start`, up to the next containing `end`."""
        lines = self.lines
        first = next((i for i, line in enumerate(lines) if start in line), None)
        if first is None:
            raise ClaimError(f"no line contains {start!r}")
        rest = lines[first + 1:]
        if end is not None:
            rest = rest[: next((i for i, line in enumerate(rest) if end in line), len(rest))]
        return Output("\n".join(rest), self.device, self.versions)


@dataclass(frozen=True)
class Claim:
    name: str
    call: str
    anchor: str
    sentence: str
    check: object  # the compiled function

    def holds(self, output: Output) -> str | None:
        """None when the claim holds against `output`, else why not."""
        try:
            verdict = self.check(output)
        except Exception as error:  # noqa: BLE001 - a claim that cannot be checked does not hold
            return f"{type(error).__name__}: {error}"
        if verdict is True:
            return None
        return "it returned False" if verdict is False else f"it returned {verdict!r}, not True or False"


def claim_nodes(tree: ast.Module) -> list[ast.FunctionDef]:
    """The top-level claim functions of a parsed module."""
    return [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith(PREFIX)]


def strip_claims(text: str, tree: ast.Module) -> str:
    """The module's text without its claim functions (for hashing and for the page)."""
    lines = text.splitlines(keepends=True)
    for node in reversed(claim_nodes(tree)):
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        end = node.end_lineno
        while start > 0 and not lines[start - 1].strip():  # the blank lines before it go too
            start -= 1
        del lines[start:end]
    return "".join(lines)


def _read(node: ast.FunctionDef, path: Path) -> tuple[str, str, str]:
    where = f"{path.name}:{node.lineno} {node.name}()"
    args = node.args
    if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise ClaimError(f"{where}: a claim takes one parameter, named after the call it checks")
    doc = ast.get_docstring(node) or ""
    anchor, _, sentence = doc.partition(":")
    if not re.fullmatch(r"#[\w-]+", anchor.strip()) or not sentence.strip():
        raise ClaimError(f"{where}: the docstring must read '#anchor: the sentence the page says'")
    return args.args[0].arg, anchor.strip()[1:], " ".join(sentence.split())


@lru_cache(maxsize=1024)
def _load(path: Path, mtime_ns: int) -> tuple[Claim, ...]:
    tree = syntax.parse(path)
    found = []
    for node in claim_nodes(tree):
        call, anchor, sentence = _read(node, path)
        namespace = {"re": re, "math": math}
        exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
        found.append(Claim(node.name, call, anchor, sentence, namespace[node.name]))
    return tuple(found)


def claims(path: Path, call: str | None = None) -> tuple[Claim, ...]:
    """The claims of a snippet file (those about `call` only, when given)."""
    found = _load(path, path.stat().st_mtime_ns)
    return tuple(c for c in found if call is None or c.call == call)


def check(path: Path, call: str, output: Output) -> list[str]:
    """One line per claim about `call` that `output` contradicts."""
    where = "the CPU output" if output.device == "cpu" else f"the recording on {output.gpu}"
    return [f"claim {c.name} (#{c.anchor}: {c.sentence!r}) is false against {where}: {reason}"
            for c in claims(path, call) if (reason := c.holds(output)) is not None]
