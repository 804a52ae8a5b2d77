"""Isolated snippet calls started from a Python that has already imported torch: the server, and the
engine's client of it (`ForkServer`), in one module.

`python -m engine.run.forkserver FD [--compiler]` imports torch (and NumPy, which torch imports), with
`--compiler` also Dynamo, and Inductor on a CPU build of torch (a CUDA build's Inductor initializes the
CUDA driver as it imports) with the values Inductor computes once per process (`warm_inductor`), which
saves each call the seconds those imports and values take. It then says on stdout whether it forks, and
serves every lane of calls at once: it accepts connections on the Unix socket FD (which the engine
bound), one per call, and forks for each; the fork runs the call exactly as `engine.run.child` does in a fresh
interpreter, in a process group of its own, with stdout and stderr (every layer) written to the file the
request names. When the call ends, or its deadline passes (then its process group is killed), the server
replies on that connection with the exit status, or "timeout". No server ever runs snippet code itself,
so every fork starts from the same state: a fresh interpreter that has made those imports. It forks only
when that is safe: no Python thread, no native thread other than OpenBLAS's pool, which OpenBLAS stops
around fork() itself (an initialized CUDA driver runs threads of its own, which a fork could not use), and
no CUDA context of torch's; where it is not, it starts a fresh interpreter for each call instead. When
its stdin ends (the engine closed it, or died), it kills whatever still runs and leaves.
"""

from __future__ import annotations

import json
import locale
import os
import itertools
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from engine.run.runner import Result, child_env, child_result

TASKS = Path("/proc/self/task")


def threads() -> int:
    return len(list(TASKS.iterdir())) if TASKS.is_dir() else -1


def preload(compiler: bool) -> bool:
    """Import what isolated calls import first (with `compiler`, what torch.compile imports too);
    whether forking this process is safe."""
    before = threads()
    import numpy  # noqa: F401 - its OpenBLAS pool is the one native pool allowed (fork-safe)

    with_numpy = threads()
    import torch

    if compiler:
        import torch._dynamo  # noqa: F401

        if torch.version.cuda is None:
            import torch._inductor.compile_fx  # noqa: F401

            warm_inductor()
    return (before == 1 and threads() == with_numpy and threading.active_count() == 1
            and not torch.cuda.is_initialized())


def warm_inductor() -> None:
    """Compute what Inductor computes once per process before its first compile, the same in every
    process of a build: the hashes of torch's and Triton's sources that key its caches, and the CPU's
    vector instruction sets (tested once per cache folder by compiling and loading a small program).
    Each fork that compiles would otherwise spend about a second on them."""
    from torch._inductor import codecache, cpu_vec_isa

    codecache.torch_key()
    codecache.triton_key()
    cpu_vec_isa.valid_vec_isa_list()


def run_child(request: dict, inherited: list[int]) -> None:
    """In the fork: become `python -m engine.run.child MODULE CALL` writing to the request's output, with the
    request's environment variables, in a process group of its own; never returns."""
    status = 1
    try:
        os.setsid()
        for fd in inherited:  # the server's socket and connections: none of the snippet's business
            os.close(fd)
        os.environ.update(request["env"])
        target = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(target, 1)
        os.dup2(target, 2)
        os.close(target)
        os.close(null)
        from engine.run import child

        sys.argv = [child.__file__, request["module"], request["call"]]
        status = child.main([request["module"], request["call"]])
    finally:
        os._exit(status)


def kill_group(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


@dataclass(eq=False)
class Running:
    """A call the server started, in a fork or a fresh interpreter (`process`), and the connection it
    answers on; readable (`fileno`) once it has ended."""

    pid: int
    connection: socket.socket
    deadline: float
    process: subprocess.Popen | None = None
    pidfd: int = field(init=False)

    def __post_init__(self):
        self.pidfd = os.pidfd_open(self.pid)

    def fileno(self) -> int:
        return self.pidfd

    def end(self, expired: bool) -> None:
        """Reply with its exit status, or "timeout" when its deadline has passed; its whole process group is
        killed either way: nothing the snippet started outlives it."""
        if expired:
            kill_group(self.pid)
        status = self.process.wait() if self.process else os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        kill_group(self.pid)
        with suppress(OSError):  # the engine has gone
            self.connection.sendall((json.dumps({"status": "timeout" if expired else status}) + "\n").encode())
        self.connection.close()
        os.close(self.pidfd)


def start(connection: socket.socket, forks: bool, environment: dict[str, str], inherited: list[int]) -> Running:
    """Read a request from `connection` and start its call: a fork where `forks`, else a fresh interpreter
    with the server's `environment` as it started."""
    with connection.makefile(encoding="utf-8") as lines:
        request = json.loads(lines.readline())
    deadline = time.monotonic() + request["timeout"]
    if not forks:
        with open(request["output"], "wb") as output:
            process = subprocess.Popen([sys.executable, "-m", "engine.run.child", request["module"], request["call"]],
                                       stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                       start_new_session=True, env={**environment, **request["env"]})
        return Running(process.pid, connection, deadline, process)
    pid = os.fork()
    if pid == 0:
        run_child(request, [*inherited, connection.fileno()])
    return Running(pid, connection, deadline)


def serve(listener: socket.socket, forks: bool, environment: dict[str, str]) -> int:
    """Say whether calls fork, then start every call asked on `listener` at once, each in a process of its
    own, and answer each as it ends, until stdin ends: then kill what still runs."""
    print(json.dumps({"fork": forks}), flush=True)
    calls: list[Running] = []
    try:
        while True:
            soonest = min((call.deadline for call in calls), default=None)
            wait = None if soonest is None else max(0.0, soonest - time.monotonic())
            readable = select.select([sys.stdin, listener, *calls], [], [], wait)[0]
            if sys.stdin in readable:  # the engine never writes: it closed its end, or died
                return 0
            now = time.monotonic()
            for call in [c for c in calls if c in readable or c.deadline <= now]:
                calls.remove(call)
                call.end(expired=call not in readable)
            if listener in readable:
                connection, _ = listener.accept()
                inherited = [listener.fileno()] + [fd for c in calls for fd in (c.pidfd, c.connection.fileno())]
                calls.append(start(connection, forks, environment, inherited))
    finally:
        for call in calls:
            call.end(expired=True)


# The engine's side: the client that starts a server and hands it calls.


class Call:
    """A call the server runs: readable (`fileno`) once it has ended; `result` says what it printed and how
    it ended."""

    def __init__(self, module: str, function: str, timeout: float, connection: socket.socket, output: Path):
        self.module, self.function, self.timeout = module, function, timeout
        self.connection, self.output = connection, output
        self.started = time.perf_counter()

    def fileno(self) -> int:
        return self.connection.fileno()

    def result(self) -> Result:
        """What the call printed, and how it ended (waits for it to end)."""
        try:
            with self.connection.makefile(encoding="utf-8") as replies:
                reply = replies.readline()
            if not reply:
                raise RuntimeError(f"the fork server died while running {self.module}.{self.function}()")
            # read as `text=True` reads a pipe: the locale's encoding, universal newlines
            output = (self.output.read_text(encoding=locale.getpreferredencoding(False))
                      if self.output.exists() else "")
            return child_result(output, json.loads(reply)["status"], self.module, self.function, self.timeout)
        finally:
            self.connection.close()
            self.output.unlink(missing_ok=True)


class ForkServer:
    """An `engine.run.forkserver` process running calls side by side, each in a process of its own: `submit`
    starts one and returns at once its `Call`. The call runs as `run_in_subprocess` would run it, without
    importing torch again (nor, with `compiler`, what torch.compile imports), or in a fresh interpreter where
    the server says forking is not safe. The server makes its imports while its creator goes on: `ready`
    says whether it has (its `fileno` turns readable once it has), `submit` and `forks` wait for it."""

    def __init__(self, root: Path, env: dict[str, str] | None = None, compiler: bool = False):
        self.root, self.env = root, env or child_env(root)
        self.folder = Path(tempfile.mkdtemp(prefix="nmb-forkserver-"))  # its socket, and the calls' outputs
        self.address = str(self.folder / "socket")
        self._forks: bool | None = None  # unknown until the server's first line
        self._numbers = itertools.count()
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(self.address)
            listener.listen(64)
            command = [sys.executable, "-m", "engine.run.forkserver", str(listener.fileno())]
            self.process = subprocess.Popen(command + (["--compiler"] if compiler else []), cwd=root, env=self.env,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                            start_new_session=True, pass_fds=[listener.fileno()])

    def fileno(self) -> int:
        return self.process.stdout.fileno()

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

    def submit(self, module: str, call: str, timeout: float, env: dict[str, str] | None = None) -> Call:
        """Start `module.call()`, with `env`'s variables set in its process, once the server is ready."""
        self.ready(wait=True)
        output = self.folder / f"{next(self._numbers)}.txt"
        request = {"module": module, "call": call, "output": str(output), "timeout": timeout, "env": env or {}}
        connection = socket.socket(socket.AF_UNIX)
        try:
            connection.connect(self.address)
            connection.sendall((json.dumps(request) + "\n").encode())
        except OSError as error:
            connection.close()
            raise RuntimeError(f"the fork server has ended (exit status {self.process.poll()}): "
                               f"{module}.{call}() cannot run") from error
        return Call(module, call, timeout, connection, output)

    def close(self) -> None:
        """End the server (it kills any call still running) and wait for it: its calls' CPU time counts as
        this process's children's."""
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    environment = dict(os.environ)  # a fresh interpreter's, before torch's imports change anything
    listener = socket.socket(fileno=int(argv[0]))
    forks = preload(compiler="--compiler" in argv[1:])
    return serve(listener, forks, environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
