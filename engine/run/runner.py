"""Run one snippet call, in this process or in a child process, and capture its output."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import os
import re
import signal
import subprocess
import sys
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path

from engine.source.sources import PACKAGE, closure, module_file, uses_any

SEED = 0


@dataclass
class Result:
    """What a run printed, and the traceback when it failed."""

    output: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def seed_everything(seed: int = SEED, torch_too: bool = True) -> bool:
    """Seed Python, NumPy and torch (when installed) before every call; torch only when `torch_too` or
    already imported (importing it costs seconds, which a call that never uses it need not pay).
    Whether torch was seeded."""
    import random

    random.seed(seed)
    with contextlib.suppress(ImportError):
        import numpy

        numpy.random.seed(seed)
    if torch_too or "torch" in sys.modules:
        with contextlib.suppress(ImportError):
            import torch

            torch.manual_seed(seed)
            return True
    return False


def call_module(module: str, call: str, torch_too: bool = True) -> None:
    """Import `module` as itself and call its zero-argument function `call`; torch is seeded before the
    call whenever it is imported by then."""
    seeded = seed_everything(torch_too=torch_too)
    function = getattr(importlib.import_module(module), call, None)
    if not callable(function):
        raise AttributeError(f"{module} has no function {call}()")
    if not seeded and "torch" in sys.modules:  # imported by a library the module imports
        sys.modules["torch"].manual_seed(SEED)
    function()


def _describe(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"the snippet called sys.exit({error.code!r}); snippets must return, not exit\n" + traceback.format_exc()
    return traceback.format_exc()


# Modules this process imported, with the hash of their file at import time.
_loaded: dict[str, str] = {}


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def forget_changed_modules(root: Path) -> list[str]:
    """Drop from sys.modules every project module whose file (or a dependency) changed."""
    loaded = {name: module_file(root, name) for name in list(sys.modules) if name.startswith(PACKAGE + ".")}
    changed = {
        path.resolve()
        for name, path in loaded.items()
        if path is not None and _loaded.get(name) != _file_hash(path)
    }
    dropped = []
    for name, path in loaded.items():
        if path is not None and changed & set(closure(root, path)):
            sys.modules.pop(name, None)
            _loaded.pop(name, None)
            dropped.append(name)
    return dropped


def _remember_loaded(root: Path) -> None:
    for name in list(sys.modules):
        if name.startswith(PACKAGE + ".") and name not in _loaded:
            path = module_file(root, name)
            if path is not None:
                _loaded[name] = _file_hash(path)


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def _alarm(seconds: float):
    """Interrupt Python code after `seconds` (main thread only, where signals arrive)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise _Timeout(f"timed out after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_in_process(root: Path, module: str, call: str, timeout: float) -> Result:
    """Run in this process; everything Python prints to stdout or stderr is captured."""
    forget_changed_modules(root)
    path = module_file(root, module)
    torch_too = path is None or uses_any(root, path, ("torch",))
    seed_everything(torch_too=torch_too)  # imports torch outside the alarm: a signal inside its C++ start-up aborts
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), _alarm(timeout):
            call_module(module, call, torch_too)
    except KeyboardInterrupt:
        raise
    except _Timeout as error:
        return Result(buffer.getvalue(), f"{error}: {module}.{call}()")
    except BaseException as error:  # noqa: BLE001 - sys.exit included, on purpose
        return Result(buffer.getvalue(), _describe(error))
    finally:
        _remember_loaded(root)
    return Result(buffer.getvalue())


ENGINE_ROOT = Path(__file__).resolve().parents[2]


def child_env(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment of a child run: the project and the engine importable, hashing and seeds fixed."""
    env = dict(os.environ)
    paths = dict.fromkeys([str(root), str(ENGINE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONHASHSEED"] = str(SEED)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def run_in_subprocess(root: Path, module: str, call: str, timeout: float, env: dict[str, str] | None = None) -> Result:
    """Run in a fresh Python; stdout and stderr of every layer (C++ included) are captured."""
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.run.child", module, call],
        cwd=root,
        env=env or child_env(root),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        text=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return child_result(output, "timeout", module, call, timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # nothing the snippet started outlives it
    return child_result(output, process.returncode, module, call, timeout)


def child_result(output: str, status: int | str, module: str, call: str, timeout: float) -> Result:
    """The Result of a child run, from what it wrote and its exit status (or "timeout")."""
    if status == "timeout":
        return Result(output, f"timed out after {timeout:g} s: {module}.{call}() (process group killed)")
    if status != 0:
        output, _, trace = output.partition(CHILD_ERROR_MARK)
        return Result(output, trace or f"child exited with status {status}")
    return Result(output)


CHILD_ERROR_MARK = "\n=== snippet failed ===\n"
ADDRESS = re.compile(r"\b(at|object at) 0x[0-9a-fA-F]{6,}")


def mask_addresses(output: str) -> str:
    """Memory addresses in reprs (`<... object at 0x7f...>`) change every run: shown as `0x…`."""
    return ADDRESS.sub(r"\1 0x…", output)
