"""Run a snippet call at most once: memory cache, then disk cache, then a real run."""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from engine.runner import Result, mask_addresses, run_in_process, run_in_subprocess
from engine.sources import declarations, module_name, source_hash

log = logging.getLogger("mkdocs.engine")
CACHE_SCHEMA = "2"  # bump when what is stored for a run changes


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
    }


@dataclass
class Executor:
    """Executes snippet calls for one project root, caching results on disk."""

    root: Path
    cache_dir: Path
    memory: dict[str, Result] = field(default_factory=dict)
    executed: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=build_environment)

    def key(self, path: Path, call: str) -> str:
        parts = [CACHE_SCHEMA, source_hash(self.root, path), module_name(self.root, path), call,
                 repr(declarations(path)), json.dumps(self.environment, sort_keys=True)]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]

    def run(self, path: Path, call: str) -> Result:
        """The result of `call()` in the snippet at `path`, executing only on a cache miss."""
        key = self.key(path, call)
        if key in self.memory:
            return self.memory[key]
        stored = self.cache_dir / f"{key}.json"
        if stored.is_file():
            result = Result(json.loads(stored.read_text(encoding="utf-8"))["output"])
        else:
            result = self._execute(path, call)
            if result.ok:
                self.cache_dir.mkdir(parents=True, exist_ok=True)
                stored.write_text(json.dumps({"output": result.output}), encoding="utf-8")
        self.memory[key] = result
        return result

    def _execute(self, path: Path, call: str) -> Result:
        settings = declarations(path)
        module = module_name(self.root, path)
        start = time.perf_counter()
        runner = run_in_subprocess if settings.isolate else run_in_process
        result = runner(self.root, module, call, settings.timeout)
        result.output = mask_addresses(result.output)
        self.executed.append(f"{module}.{call}")
        log.info("engine: ran %s.%s() in %.1f s%s", module, call, time.perf_counter() - start,
                 "" if result.ok else " (failed)")
        return result
