"""Isolated snippet calls started from a Python that has already imported torch: the server, and the
engine's client of it (`ForkServer`), in one module.

`python -m engine.run.forkserver [--compiler] [--siblings r,w;...]` imports torch (and NumPy, which torch
imports), with `--compiler` also Dynamo, and Inductor on a CPU build of torch (a CUDA build's Inductor
initializes the CUDA driver as it imports) with the values Inductor computes once per process
(`warm_inductor`), which saves each call the seconds those imports and values take; then it serves one
call at a time, read as a JSON line from stdin: it forks, and the fork runs the call exactly as
`engine.run.child` does in a fresh interpreter, with stdout and stderr (every layer) written to the file the
request names. The server replies with a JSON line: the exit status, or "timeout" when it killed the
call's process group. Asked for a sibling, it forks a second server, which serves another lane of calls
on file descriptors the engine passed (start_sibling) without making the imports again. No server ever
runs snippet code itself, so every fork starts from the same state: a fresh interpreter that has made
those imports. It forks only when that is safe: no Python
thread, no native thread other than OpenBLAS's pool, which OpenBLAS stops around fork() itself (an
initialized CUDA driver runs threads of its own, which a fork could not use), and no CUDA context of
torch's; it says which on its first line, and the engine starts fresh interpreters instead when it is
not.
"""

from __future__ import annotations

import json
import locale
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from engine.run.runner import Result, child_env, child_result, run_in_subprocess

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


def run_child(module: str, call: str, output: str) -> None:
    """In the fork: become `python -m engine.run.child MODULE CALL` writing to `output`; never returns."""
    status = 1
    try:
        os.setsid()
        target = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(target, 1)
        os.dup2(target, 2)
        os.close(target)
        os.close(null)
        from engine.run import child

        sys.argv = [child.__file__, module, call]
        status = child.main([module, call])
    finally:
        os._exit(status)


def wait(pid: int, timeout: float, parent: int) -> int | str:
    """The fork's exit status, or "timeout"; its whole process group is killed either way."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            if time.monotonic() > deadline or os.getppid() != parent:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout"
            time.sleep(0.02)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)  # nothing the snippet started outlives it
        except ProcessLookupError:
            pass


def serve(requests, forks: bool, parent: int, siblings: dict[int, tuple[int, int]]) -> int:
    """Say whether calls fork, then answer each request read from `requests` until it ends: a call, or
    {"sibling": i}, which starts a sibling server on the pair of file descriptors `siblings` holds under
    i, and closes them here (see start_sibling)."""
    print(json.dumps({"fork": forks}), flush=True)
    started = []
    for line in requests:
        request = json.loads(line)
        if "sibling" in request:
            started.append(start_sibling(siblings.pop(request["sibling"]), forks, siblings))
            continue
        pid = os.fork()
        if pid == 0:
            run_child(request["module"], request["call"], request["output"])
        print(json.dumps({"status": wait(pid, request["timeout"], parent)}), flush=True)
    for pid in started:  # reaped here, so that the engine counts their CPU time as its children's
        while os.waitpid(pid, os.WNOHANG) == (0, 0) and os.getppid() == parent:
            time.sleep(0.02)
    return 0


def start_sibling(pair: tuple[int, int], forks: bool, others: dict[int, tuple[int, int]]) -> int:
    """Fork a second server, in the same state as this one (its imports made, no call run), that reads
    its requests from `pair`'s first file descriptor and answers on its second: one server's imports
    serve two lanes of calls. The sibling reads from a fresh buffer, not from whatever this server has
    read ahead. Returns its process id; the engine closes it before this server, which waits for it (unless
    the engine has died: then it leaves, and the sibling, left without a parent, kills its call)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.dup2(pair[0], 0)
            os.dup2(pair[1], 1)
            for fd in {*pair, *(fd for both in others.values() for fd in both)}:  # its own now 0 and 1
                os.close(fd)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - for as long as it lives
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            status = serve(sys.stdin, forks, os.getppid(), {})
        finally:
            os._exit(status)
    for fd in pair:
        os.close(fd)
    return pid


def sibling_pairs(argv: list[str]) -> dict[int, tuple[int, int]]:
    """The file descriptor pairs after `--siblings` ("r,w;r,w"), which the engine passed for siblings, by
    their place in that list."""
    if "--siblings" not in argv:
        return {}
    pairs = argv[argv.index("--siblings") + 1].split(";")
    return {i: tuple(map(int, pair.split(","))) for i, pair in enumerate(pairs)}


# The engine's side: the client that starts a server and hands it calls.


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
    """An `engine.run.forkserver` process running one call at a time: `submit` starts it and returns at
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
        command = [sys.executable, "-m", "engine.run.forkserver"] + (["--compiler"] if self.compiler else [])
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


def main() -> int:
    parent = os.getppid()
    forks = preload(compiler="--compiler" in sys.argv[1:])
    return serve(sys.stdin, forks, parent, sibling_pairs(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
