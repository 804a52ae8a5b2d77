"""Each lab's deliverable validated: the learner's own `experiments/...` folder, checked for the files and
sections the lab asks for, its manifest, and numbers that agree with what the lab's code computes here."""

from __future__ import annotations

import importlib
from pathlib import Path

from engine import seed_everything
from workbench.folder import Folder
from workbench.grade import Wrong
from workbench.workspace import MYWORK, load


class Code:
    """The lab's functions that recompute a deliverable's numbers: the learner's file in mywork/ where there
    is one (what their code prints), else the course's snippet."""

    def __init__(self, lab: str, mywork: Path):
        self.lab, self.mywork = lab, Path(mywork)

    def __call__(self, module: str, function: str, *args):
        """(what `function(*args)` of `module` returns, whose code it is, for a message)."""
        path = self.mywork / module
        if path.is_file():
            namespace, whose = load(path), f"your mywork/{module}"
        else:
            namespace = importlib.import_module("snippets." + module.removesuffix(".py").replace("/", "."))
            whose = f"the course's snippets/{module}"
        seed_everything()
        try:
            return getattr(namespace, function)(*args), f"{function}() of {whose}"
        except Exception as error:  # noqa: BLE001 - the learner's code failing, said as what to do
            raise Wrong(f"recomputing the numbers with {function}() of {whose} raised {type(error).__name__}: "
                        f"{error}; run `make check LAB={self.lab}` until it passes") from None


def validators() -> dict:
    """lab -> its validator, a function of (Folder, Code) that raises Wrong."""
    from workbench import validators as v

    return {"phase24/lab00": v.hello_cuda, "phase25/lab00": v.dispatcher_trace, "phase25/lab01": v.autograd_by_hand,
            "phase25/lab02": v.custom_op, "phase25/lab03": v.compile_and_inductor,
            "phase25/distributed": v.distributed_survey, "week09": v.trace_an_op}


def default_folder(lab: str) -> Path:
    """The folder the course's own deliverable command writes for `lab`."""
    module = importlib.import_module(f"snippets.{lab.replace('/', '.')}.deliverable")
    return Path(getattr(module, "DEFAULT_OUT", None) or module.DEFAULT_DIR)


def validate(lab: str, path: Path, mywork: Path | None = None) -> str | None:
    """None when the folder at `path` is a valid deliverable of `lab`, else what is wrong, as a sentence
    (numbers recomputed with the learner's files in `mywork`, mywork/ by default)."""
    try:
        validators()[lab](Folder(path), Code(lab, MYWORK if mywork is None else mywork))
    except Wrong as wrong:
        return f"{wrong}."
    return None
