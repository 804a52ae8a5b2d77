"""Isolated snippet calls started from a Python that has already imported torch.

`python -m engine.forkserver [--compiler] [--siblings r,w;...]` imports torch (and NumPy, which torch
imports), with `--compiler` also Dynamo, and Inductor on a CPU build of torch (a CUDA build's Inductor
initializes the CUDA driver as it imports) with the values Inductor computes once per process
(`warm_inductor`), which saves each call the seconds those imports and values take; then it serves one
call at a time, read as a JSON line from stdin: it forks, and the fork runs the call exactly as
`engine.child` does in a fresh interpreter, with stdout and stderr (every layer) written to the file the
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
import os
import signal
import sys
import threading
import time
from pathlib import Path

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
    """In the fork: become `python -m engine.child MODULE CALL` writing to `output`; never returns."""
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
        from engine import child

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


def main() -> int:
    parent = os.getppid()
    forks = preload(compiler="--compiler" in sys.argv[1:])
    return serve(sys.stdin, forks, parent, sibling_pairs(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
