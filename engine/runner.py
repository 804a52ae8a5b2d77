"""Run one snippet call, in this process or in a child process, and capture its output."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import locale
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from engine.sources import PACKAGE, closure, module_file, uses_any

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


ENGINE_ROOT = Path(__file__).resolve().parent.parent


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
        [sys.executable, "-m", "engine.child", module, call],
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


class _Pipes:
    """A sibling server's requests and replies, in place of a subprocess.Popen (stdin, stdout, wait)."""

    def __init__(self, requests: int, replies: int):
        self.stdin = open(requests, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self.stdout = open(replies, encoding="utf-8")  # noqa: SIM115

    def wait(self) -> None:
        """Until the sibling has ended: it holds the only other end of `stdout`."""
        self.stdout.read()
        self.stdout.close()

    def close(self) -> None:
        self.stdin.close()
        self.stdout.close()


class ForkServer:
    """An `engine.forkserver` process running one call at a time: `submit` starts it and returns at
    once, `result` waits for it; the call runs as `run_in_subprocess` would run it, without importing
    torch again (nor, with `compiler`, what torch.compile imports), and in a fresh interpreter,
    `submit` waiting for it, where the server says forking is not safe. The server makes its imports
    while its creator goes on: `ready` says whether it has, `submit` and `forks` wait for it. With
    `siblings`, it can fork up to that many more servers for more lanes of calls (`sibling`)."""

    def __init__(self, root: Path, env: dict[str, str] | None = None, compiler: bool = False,
                 siblings: int = 0, process: _Pipes | None = None):
        self.root, self.env, self.compiler = root, env or child_env(root), compiler
        self._spare: list[tuple[int, _Pipes]] = []  # (index the server knows it by, the engine's ends)
        self.process = process or self._start(siblings)
        self._forks: bool | None = None  # unknown until the server's first line
        self.call: tuple[str, str, float] | None = None
        self.started = 0.0
        self._folder: str | None = None
        self._done: Result | None = None

    def _start(self, siblings: int) -> subprocess.Popen:
        pipes = [(os.pipe(), os.pipe()) for _ in range(siblings)]  # each sibling's requests and replies
        theirs = [(requests[0], replies[1]) for requests, replies in pipes]
        command = [sys.executable, "-m", "engine.forkserver"] + (["--compiler"] if self.compiler else [])
        if theirs:
            command += ["--siblings", ";".join(f"{r},{w}" for r, w in theirs)]
        try:
            process = subprocess.Popen(command, cwd=self.root, env=self.env, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, start_new_session=True,
                                       pass_fds=[fd for pair in theirs for fd in pair])
        finally:
            for fd in (fd for pair in theirs for fd in pair):
                os.close(fd)
        self._spare = [(i, _Pipes(requests[1], replies[0])) for i, (requests, replies) in enumerate(pipes)]
        return process

    def sibling(self) -> ForkServer:
        """A server for another lane: a fork of this one, its imports made once (ask before this server's
        first call: it answers in order; close the sibling first: this server waits for it as it ends);
        else, where it does not fork or has no pipes left, a new one."""
        if not (self.forks and self._spare):
            return ForkServer(self.root, self.env, self.compiler)
        index, pipes = self._spare.pop(0)
        self.process.stdin.write(json.dumps({"sibling": index}) + "\n")
        self.process.stdin.flush()
        return ForkServer(self.root, self.env, self.compiler, process=pipes)

    def ready(self, wait: bool = False) -> bool:
        """Whether the server has made its imports and said if it forks (with `wait`, once it has)."""
        if self._forks is None and (wait or select.select([self.process.stdout], [], [], 0)[0]):
            try:
                self._forks = json.loads(self.process.stdout.readline())["fork"] is True
            except (ValueError, KeyError, TypeError):  # it died, or wrote something else first
                self._forks = False
        return self._forks is not None

    @property
    def forks(self) -> bool:
        """Whether calls run as forks of the server (else as fresh interpreters); waits for its imports."""
        self.ready(wait=True)
        return self._forks

    def submit(self, module: str, call: str, timeout: float) -> None:
        self.call, self.started = (module, call, timeout), time.perf_counter()
        if not self.forks:
            self._done = run_in_subprocess(self.root, module, call, timeout, self.env)
            return
        self._folder = tempfile.mkdtemp(prefix="nmb-call-")
        request = {"module": module, "call": call, "output": str(Path(self._folder) / "output.txt"),
                   "timeout": timeout}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    def result(self) -> Result:
        """What the submitted call printed, and how it ended."""
        if self._done is not None:
            done, self._done = self._done, None
            return done
        module, call, timeout = self.call
        try:
            reply = self.process.stdout.readline()
            if not reply:
                raise RuntimeError(f"the fork server died while running {module}.{call}()")
            file = Path(self._folder) / "output.txt"
            # read as `text=True` reads a pipe: the locale's encoding, universal newlines
            output = file.read_text(encoding=locale.getpreferredencoding(False)) if file.exists() else ""
            return child_result(output, json.loads(reply)["status"], module, call, timeout)
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)

    @staticmethod
    def finished(servers: list[ForkServer], wait: bool) -> list[ForkServer]:
        """The servers whose call has ended; with `wait`, block until at least one has (if any runs).
        A server given before its first line counts as ended once it has said it (it is ready)."""
        done = [s for s in servers if s._done is not None]
        running = {s.process.stdout: s for s in servers if s._done is None}
        if not running:
            return done
        readable, _, _ = select.select(list(running), [], [], 0 if done or not wait else None)
        return done + [running[r] for r in readable]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()
        for _, pipes in self._spare:
            pipes.close()


CHILD_ERROR_MARK = "\n=== snippet failed ===\n"
ADDRESS = re.compile(r"\b(at|object at) 0x[0-9a-fA-F]{6,}")


def mask_addresses(output: str) -> str:
    """Memory addresses in reprs (`<... object at 0x7f...>`) change every run: shown as `0x…`."""
    return ADDRESS.sub(r"\1 0x…", output)
