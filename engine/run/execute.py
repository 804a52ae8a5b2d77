"""Run a snippet call at most once: memory cache, then disk cache, then a real run."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import time
import traceback
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from engine.base import atomic
from engine.source import numerics
from engine.run.progress import Progress
from engine.base.settings import knob
from engine.run.forkserver import ForkServer
from engine.run.runner import Result, child_env, mask_addresses, run_in_process, run_in_subprocess
from engine.source.sources import (SnippetError, compiles, declarations, measures_time, module_name, source_hash,
                                   starts_processes, starts_ranks)

log = logging.getLogger("mkdocs.engine")
CACHE_SCHEMA = "2"  # bump when what is stored for a run changes
# Idle OpenMP threads sleep instead of spinning (OMP_WAIT_POLICY, set by the build and the tests): calls
# run side by side on few cores, where a spinning thread takes a core from one that works. Thread
# counts, and so every output but timings, stay the same.
SLEEPING_OPENMP = "PASSIVE"


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def build_environment() -> dict[str, str]:
    """The versions a CPU build's outputs depend on (read without importing torch)."""
    return {
        "python": platform.python_version(),
        "torch": package_version("torch"),
        "triton": package_version("triton"),
        "device": "cpu",
        "kernels": numerics.KERNELS,
        "numerics": " ".join(f"{k}={v}" for k, v in sorted(numerics.PINNED.items())),
    }


class Queue:
    """Isolated calls in the order they are taken, except that two calls that start ranks (distributed
    demos: they fill the cores by themselves) never run at the same time. A call that starts one
    interpreter of its own runs beside them."""

    def __init__(self, calls: list[tuple[Path, str]], starts_ranks):
        self.calls, self.starts_ranks = list(calls), starts_ranks
        self.running_ranks = False

    def take(self) -> tuple[Path, str] | None:
        """The next call that may start now, or None."""
        for call in self.calls:
            if not (self.running_ranks and self.starts_ranks(call)):
                self.calls.remove(call)
                self.running_ranks |= self.starts_ranks(call)
                return call
        return None

    def done(self, call: tuple[Path, str]) -> None:
        if self.starts_ranks(call):
            self.running_ranks = False

    def width(self) -> int:
        """How many of its calls could run at once: each that starts no ranks, and one that does."""
        ranks = sum(map(self.starts_ranks, self.calls))
        return len(self.calls) - ranks + min(ranks, 1)


def jobs() -> int:
    """How many snippet calls run side by side: NMB_JOBS, else one per core (at most 4)."""
    return max(1, int(knob("NMB_JOBS") or min(4, os.cpu_count() or 1)))


@dataclass
class Executor:
    """Executes snippet calls for one project root, caching results on disk."""

    root: Path
    cache_dir: Path
    memory: dict[str, Result] = field(default_factory=dict)
    executed: list[str] = field(default_factory=list)
    timings: dict[str, dict] = field(default_factory=dict)  # call -> {"seconds", "kind"} of each execution
    environment: dict[str, str] = field(default_factory=build_environment)

    def key(self, path: Path, call: str) -> str:
        parts = [CACHE_SCHEMA, source_hash(self.root, path), module_name(self.root, path), call,
                 repr(declarations(path)), json.dumps(self.environment, sort_keys=True)]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]

    def name(self, path: Path, call: str) -> str:
        return f"{module_name(self.root, path)}.{call}"

    def cached(self, path: Path, call: str) -> Result | None:
        """The result from memory or disk, or None; an entry that cannot be read is a miss, said in one line."""
        key = self.key(path, call)
        if key in self.memory:
            return self.memory[key]
        stored = self.cache_dir / f"{key}.json"
        if not stored.is_file():
            return None
        try:
            output = json.loads(stored.read_text(encoding="utf-8"))["output"]
            if not isinstance(output, str):
                raise TypeError(f"output is {type(output).__name__}, not str")
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
            log.info("engine: cache entry %s of %s() unreadable (%s): running it again",
                     stored.name, self.name(path, call), error)
            return None
        self.memory[key] = Result(output)
        return self.memory[key]

    def run(self, path: Path, call: str, runner=None) -> Result:
        """The result of `call()` in the snippet at `path`, executing only on a cache miss."""
        result = self.cached(path, call)
        return self._compute(path, call) if result is None else result

    def forget(self, path: Path, call: str) -> None:
        """Drop the call's entry from disk (this build keeps its result in memory): the next build runs it again."""
        (self.cache_dir / f"{self.key(path, call)}.json").unlink(missing_ok=True)

    def _compute(self, path: Path, call: str, runner=None, started: float | None = None) -> Result:
        """Execute the call and keep its result: in memory, and on disk when it succeeded."""
        result = self._execute(path, call, runner, started)
        key = self.key(path, call)
        if result.ok:
            atomic.write_text(self.cache_dir / f"{key}.json", json.dumps({"output": result.output}))
        self.memory[key] = result
        return result

    def prefetch(self, calls: list[tuple[Path, str]], expected: dict[str, float] | None = None) -> None:
        """Execute every call not cached yet, before any page renders, `jobs()` at a time: in-process calls
        one after another in this process, isolated ones meanwhile in children of fork servers, never two
        that start ranks at once (Queue). This process starts no thread: an in-process call (a profiler,
        say) sees only itself. A call that reads a clock runs last, with nothing beside it, in a fresh interpreter. Failures are
        kept in memory for the page that shows the call to report."""
        todo = [c for c in dict.fromkeys(calls) if self.missing(*c)]
        if not todo:
            return
        alone = [c for c in todo if measures_time(self.root, c[0])]
        multi = {c for c in todo if starts_processes(self.root, c[0])}
        ranks = {c for c in multi if starts_ranks(self.root, c[0])}
        # In this process, the calls that start processes last: this lane blocks while a call runs, and
        # the fork servers are still importing when the first calls begin.
        in_process = sorted((c for c in todo if c not in alone and not declarations(c[0]).isolate),
                            key=lambda c: c in multi)
        isolated = Queue(sorted((c for c in todo if c not in alone and declarations(c[0]).isolate),
                                key=lambda c: -declarations(c[0]).timeout),  # the likely longest first
                         ranks.__contains__)
        workers = jobs()
        compiler = any(compiles(self.root, path) for path, _ in todo if declarations(path).isolate)
        servers: list[ForkServer] = []
        progress = Progress(len(todo), workers, expected or {}, kinds={self.name(*c): self.kind(c[0]) for c in todo})
        progress.queue([self.name(*c) for c in in_process + isolated.calls + alone])
        try:
            self._side_by_side(in_process, isolated, workers, servers, progress, compiler)
            for path, call in alone:  # in a fresh interpreter each: without MKL's slow branch (numerics)
                progress.start(self.name(path, call))
                self._compute(path, call, self._timed)
                progress.finish(self.name(path, call))
        finally:
            progress.close()
            for server in reversed(servers):  # siblings first: the server that forked them waits for them
                server.close()

    def _side_by_side(self, in_process: list, isolated: Queue, workers: int, servers: list[ForkServer],
                      progress: Progress, compiler: bool) -> None:
        """While in-process calls run here, up to `workers - 1` isolated ones run in fork servers'
        children (servers that have imported what torch.compile imports when a call may compile);
        once those are done, up to `workers` of them. The first server makes its imports while the
        in-process calls run; the others are its siblings (forks of it, ForkServer.sibling)."""
        busy: dict[ForkServer, tuple[Path, str]] = {}
        in_process = list(in_process)
        lanes = min(workers, isolated.width())
        if lanes:
            servers.append(ForkServer(self.root, compiler=compiler, siblings=lanes - 1))
        while in_process or isolated.calls or busy:
            if 0 < len(servers) < lanes and servers[0].ready():  # its siblings, before it takes a call
                servers += [servers[0].sibling() for _ in range(lanes - len(servers))]
            for server in servers if len(servers) == lanes else []:
                if (server not in busy and len(busy) < workers - (1 if in_process else 0) and server.ready()
                        and (taken := isolated.take()) is not None):
                    progress.start(self.name(*taken))
                    server.submit(module_name(self.root, taken[0]), taken[1], declarations(taken[0]).timeout)
                    busy[server] = taken
            if in_process:
                path, call = in_process.pop(0)
                progress.start(self.name(path, call))
                self._compute(path, call, self._in_process)
                progress.finish(self.name(path, call))
            else:  # nothing to do here: wait for a call to end, or for a server to be ready for one
                starting = [s for s in servers if s not in busy and not s.ready()] if isolated.calls else []
                ForkServer.finished(list(busy) + starting, wait=True)
            for server in ForkServer.finished(list(busy), wait=False):
                path, call = busy.pop(server)
                self._collect(server, path, call)
                isolated.done((path, call))
                progress.finish(self.name(path, call))

    def _collect(self, server: ForkServer, path: Path, call: str) -> None:
        """Keep the result of the call `server` ran (see _compute)."""
        self._compute(path, call, lambda module, call_, timeout: server.result(), server.started)

    def missing(self, path: Path, call: str) -> bool:
        """Not in the cache (a call whose snippet cannot be read counts as present: its page reports it)."""
        try:
            return self.cached(path, call) is None
        except SnippetError:
            return False  # the page that shows the call reports it

    def kind(self, path: Path) -> str:
        """multi-process (it starts processes of its own), isolated or in-process."""
        return ("multi-process" if starts_processes(self.root, path) else
                "isolated" if declarations(path).isolate else "in-process")

    def _in_process(self, module: str, call: str, timeout: float) -> Result:
        return run_in_process(self.root, module, call, timeout)

    def _fresh(self, module: str, call: str, timeout: float) -> Result:
        return run_in_subprocess(self.root, module, call, timeout)

    def _timed(self, module: str, call: str, timeout: float) -> Result:
        """A call that reads a clock: a fresh interpreter with the pins but MKL's slow branch."""
        return run_in_subprocess(self.root, module, call, timeout,
                                 numerics.timed_environment(child_env(self.root)))

    def _execute(self, path: Path, call: str, runner=None, started: float | None = None) -> Result:
        settings = declarations(path)
        module = module_name(self.root, path)
        start = time.perf_counter() if started is None else started
        if runner is None:
            runner = self._fresh if settings.isolate else self._in_process
        try:
            result = runner(module, call, settings.timeout)
        except Exception:  # noqa: BLE001 - the page that shows the call reports it
            result = Result("", f"engine error while running {module}.{call}():\n{traceback.format_exc()}")
        result.output = mask_addresses(result.output)
        seconds = time.perf_counter() - start
        kind = self.kind(path)
        self.executed.append(f"{module}.{call}")
        self.timings[f"{module}.{call}"] = {"seconds": round(seconds, 2), "kind": kind}
        log.info("engine: ran %s.%s() in %.1f s%s", module, call, seconds, "" if result.ok else " (failed)")
        return result
