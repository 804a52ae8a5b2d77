"""A code task of the course, and the check that grades a learner's functions against the reference."""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

from engine import Output, claims_of, seed_everything
from workbench.grade import Wrong, agree
from workbench.pages import hint_text, task_text

SNIPPETS = Path(__file__).resolve().parent.parent / "snippets"


class NotWritten(Wrong):
    """The learner's function still raises its task."""


@dataclass(frozen=True)
class Task:
    """One task that asks for code: where the page sets it, which functions the learner writes, and
    how they are graded (calls compared with the reference's, printed outputs held to the page's claims)."""

    page: str  # the page under docs/
    anchor: str  # the section that sets the task
    module: str  # the reference module under snippets/, which the learner's file mirrors
    writes: tuple[str, ...]  # the functions the learner writes
    cases: Callable[[], list[tuple[str, tuple]]] = list  # (function, arguments) to compare, made fresh
    calls: tuple = ()  # zero-argument calls whose printed output the page's claims check: a name, or
    # (function of the learner's namespace, the call whose claims apply): a demo of torchrun's, run in-process
    atol: float = 0.0  # the course's tolerance for the comparison
    rtol: float = 0.0
    parts: tuple[str, ...] = ()  # names of the items of a tuple the functions return
    number: int = 0  # the exercise's number, where a page numbers its exercises under one anchor
    renames: tuple[tuple[str, str], ...] = ()  # (reference text, learner's): an op namespace of their own
    page_in_name: bool = False  # name it after its page too: a second page of the same lab numbers its own
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def lab(self) -> str:
        """The snippet folder the task belongs to: phase25/lab01."""
        return str(Path(self.module).parent)

    @property
    def name(self) -> str:
        page = Path(self.page).stem.split("-", 1)[-1] + "-" if self.page_in_name else ""
        return f"{self.lab}#{page}{self.anchor}" + (f"-{self.number}" if self.number else "")

    @property
    def text(self) -> str:
        return task_text(self.page, self.anchor, self.number)

    @property
    def look(self) -> str:
        """What to look at when a result is off: the page's hint for the task."""
        return hint_text(self.page, self.anchor, self.number)

    @property
    def reference(self):
        return importlib.import_module("snippets." + self.module.removesuffix(".py").replace("/", "."))


def _call(namespace, name, args: tuple):
    """Call `name` of the namespace on a copy of `args`, seeded; a `name` that is a function is called
    on the namespace itself (a check that needs more than one call: a gradient through an op)."""
    if callable(name):
        seed_everything()
        return name(namespace, *copy.deepcopy(args))
    function = getattr(namespace, name, None)
    if not callable(function):
        raise Wrong(f"your code has no function {name}()")
    seed_everything()
    return function(*copy.deepcopy(args))


def _shown(name: str, args: tuple) -> str:
    """A call as the learner would write it, tensors by shape and dtype."""
    def one(arg):
        if hasattr(arg, "shape") and hasattr(arg, "dtype"):
            return f"<{str(arg.dtype).removeprefix('torch.')} {tuple(arg.shape)}>"
        return repr(arg)
    if callable(name) and not args:  # a check's own call, named by its docstring
        return name.__doc__
    return f"{name.__doc__ if callable(name) else name}({', '.join(map(one, args))})"


def _not_written(error: NotImplementedError) -> str:
    """Which function still raises its task, and the task."""
    frame = error.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    return f"{frame.tb_frame.f_code.co_name}() is not written yet. Its task: {error}"


def _unwritten_inside(error: BaseException) -> NotImplementedError | None:
    """The NotImplementedError a wrapping error carries (as its cause, its context or its argument)."""
    for inner in (error.__cause__, error.__context__, *error.args):
        if isinstance(inner, NotImplementedError):
            return inner
    return None


def _versions() -> dict[str, str]:
    """What produced the learner's output, as a claim reads it: this Python and this torch (the engine's
    own list lies behind its public face, which the workbench keeps to)."""
    return {"python": platform.python_version(), "torch": metadata.version("torch")}


def _printed(namespace, call: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _call(namespace, call, ())
    return out.getvalue().rstrip("\n")


def _grade(task: Task, learner) -> None:
    seed_everything()  # the same arguments at every grading: the reference's results are kept
    for i, (name, args) in enumerate(task.cases()):
        try:  # the learner's call first: a function not written yet costs no run of the reference
            got = _call(learner, name, args)
        except NotImplementedError as error:
            raise NotWritten(_not_written(error)) from None
        except Wrong:
            raise
        except Exception as error:  # noqa: BLE001 - the learner's error, reported as what went wrong
            if (inner := _unwritten_inside(error)) is not None:  # Triton's interpreter wraps it
                raise NotWritten(_not_written(inner)) from None
            raise Wrong(f"{_shown(name, args)} raised {type(error).__name__}: {error}") from None
        if i not in task._cache:
            task._cache[i] = _call(task.reference, name, args)
        want, shown = task._cache[i], _shown(name, args)
        if task.parts and isinstance(want, tuple) and len(want) == len(task.parts):
            if not isinstance(got, (tuple, list)) or len(got) != len(want):
                raise Wrong(f"{shown} should return {len(want)} items: {', '.join(task.parts)}")
            for part, g, w in zip(task.parts, got, want):
                agree(f"{part} from {shown}", g, w, task.atol, task.rtol)
        else:
            agree(shown, got, want, task.atol, task.rtol)
    path = SNIPPETS / task.module
    for call in task.calls:
        run, claimed = (call, call) if isinstance(call, str) else call
        shown = f"{run}()" if isinstance(run, str) else run.__doc__
        try:
            output = Output(_printed(learner, run), versions=_versions())
        except NotImplementedError as error:
            raise NotWritten(_not_written(error)) from None
        except Wrong:
            raise
        except Exception as error:  # noqa: BLE001 - the learner's error (gradcheck's mismatch), its first line
            if (inner := _unwritten_inside(error)) is not None:
                raise NotWritten(_not_written(inner)) from None
            first = (str(error).splitlines() or [""])[0].rstrip(",:")
            raise Wrong(f"{shown} raised {type(error).__name__}: {first}") from None
        for claim in claims_of(path, claimed):
            if claim.holds(output) is not None:
                raise Wrong(f"the page says \"{claim.sentence}\", and what your {shown} prints does not bear it out")


def check(task: Task, learner) -> str | None:
    """None when the learner's functions pass, else what is wrong, as a sentence. `learner` is a
    module, or a notebook's globals()."""
    if isinstance(learner, dict):
        learner = SimpleNamespace(**learner)
    try:
        _grade(task, learner)
    except NotWritten as missing:
        return f"{missing}"
    except Wrong as wrong:
        return f"{wrong}." + (f" Hint: {task.look}" if task.look else "")
    return None


def check_here(name: str, namespace: dict) -> None:
    """A notebook's check cell: print that the task passes, or raise what is wrong."""
    from workbench.catalogue import TASKS

    task = next(task for task in TASKS if task.name == name)
    problem = check(task, namespace)
    if problem is not None:
        raise AssertionError(problem)
    print(f"PASS {name}")
