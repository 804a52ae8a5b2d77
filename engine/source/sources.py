"""Snippet files: where they are, what they declare, what they import, their hash."""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from engine.base import atomic, syntax
from engine.source.claims import claim_nodes, strip_claims
from engine.base.settings import Layout

PACKAGE = "snippets"


class SnippetError(Exception):
    """A snippet cannot be found, parsed or run; the message says why."""


@dataclass(frozen=True)
class Declarations:
    """Module-level settings a snippet may declare (read without importing it)."""

    devices: tuple[str, ...] = ("cpu",)
    isolate: bool = False
    timeout: float = 120.0
    inputs: tuple[str, ...] = ()  # data files or folders (relative to snippets/) the output depends on
    gpus: int = field(default=1, repr=False)  # GPUs a recording needs: not part of any output or cache key
    gpu_memory_gib: float = field(default=0.0, repr=False)  # memory per GPU a recording needs: likewise


DECLARED = {"DEVICES", "ISOLATE", "TIMEOUT", "INPUTS", "GPUS", "GPU_MEMORY_GIB"}
HARDWARE = {"GPUS", "GPU_MEMORY_GIB"}  # what a recording needs, not what it prints: left out of the source hash


def snippet_path(root: Path, rel: str) -> Path:
    """Absolute path of a snippet given as a path relative to `snippets/`."""
    path = (root / PACKAGE / rel).resolve()
    if not path.is_file():
        raise SnippetError(f"missing snippet file: {PACKAGE}/{rel}")
    return path


def module_name(root: Path, path: Path) -> str:
    """Dotted module name of a file under the project root."""
    parts = path.resolve().relative_to(root.resolve()).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(root: Path, name: str) -> Path | None:
    """File of a dotted `snippets.*` module, or None when it is not a project file."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def parse(path: Path) -> ast.Module:
    """Parsed module, cached until the file changes."""
    try:
        return syntax.parse(path)
    except SyntaxError as error:
        raise SnippetError(f"syntax error in {path.name}: {error}") from error


def declarations(path: Path) -> Declarations:
    """The DEVICES, ISOLATE, TIMEOUT, INPUTS, GPUS and GPU_MEMORY_GIB constants assigned at module level."""
    if _frozen is None or not path.is_relative_to(_frozen_root):
        return _declarations(_frozen_root, path)
    return _declarations_once(_frozen_root, path)


def _declarations(root: Path | None, path: Path) -> Declarations:
    """declarations(path), read from the file (`root` only keys the frozen memo)."""
    found = {}
    for node in parse(path).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in DECLARED:
                found[target.id.lower()] = ast.literal_eval(node.value)
    for name in ("devices", "inputs"):
        if name in found:
            found[name] = tuple(found[name])
    return Declarations(**found)


def _imported_names(root: Path, path: Path) -> frozenset[str]:
    """Project modules named by the import statements of one file (cached until it changes)."""
    return _imported_names_at(root, path, path.stat().st_mtime_ns)


@lru_cache(maxsize=4096)
def _imported_names_at(root: Path, path: Path, mtime_ns: int) -> frozenset[str]:
    package = module_name(root, path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(n for n in names if n == PACKAGE or n.startswith(PACKAGE + "."))


_frozen: dict | None = None  # while a build renders: closures, hashes and declarations, each computed once
_kept: tuple[str, dict] | None = None  # the snippets' digest and what was computed from them
_frozen_root: Path | None = None
ENGINE = Path(__file__).resolve().parent
MEMO_FILE = Layout(Path()).sources  # relative to a project root


def tree_digest(root: Path) -> str:
    """Hash of every file under snippets/ (name and bytes) and of the code that reads them: what every
    closure, hash and declaration depends on."""
    digest = hashlib.sha256()
    files = [p for p in (root / PACKAGE).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    named = [(str(p.relative_to(root)), p) for p in sorted(files)]
    for name, file in named + [(f"engine/{p.name}", p) for p in (ENGINE / "sources.py", ENGINE / "claims.py")]:
        data = file.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def freeze(root: Path) -> None:
    """From now until `thaw()`, snippet files are taken not to change: each closure, source hash and
    declaration is computed once (a build calls this before it runs or renders anything; its other
    language's pass keeps what the first computed while no file changed). What a build computed is kept,
    in memory and in .cache/sources.json, for the next build that finds every snippet file as it was
    (`mkdocs serve` after a prose edit, a rebuild with nothing changed)."""
    global _frozen, _kept, _frozen_root
    root = root.resolve()
    digest = tree_digest(root)  # checked at every freeze: a build that failed before thaw() keeps nothing stale
    if _kept is None or _kept[0] != digest or _frozen_root != root:
        _kept = (digest, _read_memo(root, digest))
    _frozen, _frozen_root = _kept[1], root


def thaw(root: Path) -> None:
    """Snippet files may change from now on. What was computed is saved for the next build, unless a
    file changed while the build ran (then nothing computed from the files is kept)."""
    global _frozen, _kept
    root = root.resolve()
    if _frozen is not None and _kept is not None:
        if tree_digest(root) == _kept[0]:
            _write_memo(root, *_kept)
        else:
            _kept = None
    _frozen = None


def _read_memo(root: Path, digest: str) -> dict:
    try:
        stored = json.loads((root / MEMO_FILE).read_text(encoding="utf-8"))
        if stored["digest"] != digest or stored["root"] != str(root):
            return {}
        return {(kind, root, root / rel): _revive(kind, root, value) for kind, rel, value in stored["entries"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # none yet, or unreadable: computed again


def _write_memo(root: Path, digest: str, memo: dict) -> None:
    """`root` resolved: entries for another root, or for a file outside it, are not kept."""
    entries = sorted([kind, str(path.relative_to(root)), _flat(kind, root, value)]
                     for (kind, key_root, path), value in memo.items() if key_root == root and path.is_relative_to(root))
    text = json.dumps({"digest": digest, "root": str(root), "entries": entries})
    file = root / MEMO_FILE
    if not file.is_file() or file.read_text(encoding="utf-8") != text:
        atomic.write_text(file, text)


def _flat(kind: str, base: Path, value):
    if kind in ("imports", "closure"):
        return [str(p.relative_to(base)) for p in value]
    return asdict(value) if kind == "declarations" else value  # a hash, a bool


def _revive(kind: str, base: Path, value):
    if kind in ("imports", "closure"):
        return tuple(base / rel for rel in value)
    if kind == "declarations":
        return Declarations(**{k: tuple(v) if isinstance(v, list) else v for k, v in value.items()})
    return value


def _once(kind: str, compute):
    """Decorator: while frozen, compute(root, path) once per path."""
    def memoized(root: Path, path: Path):
        if _frozen is None:
            return compute(root, path)
        key = (kind, root, path)
        if key not in _frozen:
            _frozen[key] = compute(root, path)
        return _frozen[key]
    memoized.__doc__ = compute.__doc__
    return memoized


_declarations_once = _once("declarations", _declarations)


def _imports(root: Path, path: Path) -> tuple[Path, ...]:
    """The project files one file imports directly (parent packages included: their __init__ runs too)."""
    found = []
    for name in _imported_names(root, path):
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            file = module_file(root, ".".join(parts[:i]))
            if file is not None:
                found.append(file.resolve())
    return tuple(found)


_imports_once = _once("imports", _imports)


def _closure(root: Path, path: Path) -> tuple[Path, ...]:
    """The file and every project module it imports, directly or not, sorted."""
    seen: set[Path] = set()
    todo = [path.resolve()]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(_imports_once(root, current))
    return tuple(sorted(seen))


def closure(root: Path, path: Path) -> list[Path]:
    """The file and every project module it imports, directly or not, sorted."""
    return list(_closure_once(root, path))


_closure_once = _once("closure", _closure)


def _names_used(path: Path) -> frozenset[str]:
    """Every module a file imports (any package) and every attribute name it reads."""
    return _names_used_at(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=4096)
def _names_used_at(path: Path, mtime_ns: int) -> frozenset[str]:
    names = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Attribute):
            names.add("." + node.attr)
    return frozenset(names)


def uses_any(root: Path, path: Path, prefixes: tuple[str, ...]) -> bool:
    """Whether the snippet or a project module it imports imports a module starting with one of
    `prefixes` (a name `m` matches `m` and `m.*`), or reads an attribute named in it as `.attr`."""
    return _once("uses " + " ".join(prefixes), lambda root, path: _uses_any(root, path, prefixes))(root, path)


def _uses_any(root: Path, path: Path, prefixes: tuple[str, ...]) -> bool:
    for module in closure(root, path):
        for name in _names_used(module):
            if any(name == p or name.startswith(p + ".") for p in prefixes):
                return True
    return False


def uses_triton(root: Path, path: Path) -> bool:
    """Whether the snippet or a project module it imports imports triton (run by its interpreter on CPU)."""
    return uses_any(root, path, ("triton",))


# Calls that time work run with nothing beside them; calls that start processes are "multi-process".
CLOCKS = ("timeit", "torch.utils.benchmark", ".perf_counter", ".perf_counter_ns", ".process_time",
          ".cpu_time_total", ".self_cpu_time_total", ".device_time_total", ".self_device_time_total",
          ".cuda_time_total", ".self_cuda_time_total", ".table")  # the profiler's times, alone or in its table
# A call starts ranks when it imports what launches them: torchrun's entry point (torch.distributed.run),
# elastic_launch (torch.distributed.launcher), the older torch.distributed.launch, elastic's own
# start_processes, or multiprocessing (mp.spawn, and the course's torchrun.py, whose agent is a child process).
# A snippet that only names torch.distributed's APIs, or joins a group of one, starts none.
RANKS = ("multiprocessing", "torch.multiprocessing", "torch.distributed.run", "torch.distributed.launch",
         "torch.distributed.launcher", "torch.distributed.elastic.multiprocessing.start_processes")
PROCESSES = ("subprocess",) + RANKS
COMPILER = ("torch._dynamo", "torch._inductor", "torch.export", "torch.compile", ".compile", ".export")


def measures_time(root: Path, path: Path) -> bool:
    """Whether the output may depend on how fast the machine runs (the snippet reads a clock or the
    profiler's times, or it imports snippets.timing): another call beside it would skew it."""
    reads_clock = any(n == c or n.startswith(c + ".") for n in _names_used(path) for c in CLOCKS)
    return reads_clock or uses_any(root, path, (PACKAGE + ".timing",))


def starts_processes(root: Path, path: Path) -> bool:
    return uses_any(root, path, PROCESSES)


def starts_ranks(root: Path, path: Path) -> bool:
    """Whether the snippet may start ranks (torchrun or another launcher, multiprocessing): processes that fill the cores."""
    return uses_any(root, path, RANKS)


def compiles(root: Path, path: Path) -> bool:
    """Whether the snippet may use torch.compile, Dynamo, Inductor or export (any `.compile` counts, a
    regular expression's too: a wrong yes only makes the fork server import what it would have)."""
    return uses_any(root, path, COMPILER)


def input_files(root: Path, path: Path, modules: list[Path] | None = None) -> list[Path]:
    """The data files named by the INPUTS of every module in the snippet's closure."""
    files = set()
    for module in modules if modules is not None else closure(root, path):
        for name in declarations(module).inputs:
            target = root / PACKAGE / name
            files.update([target] if not target.is_dir() else (p for p in target.rglob("*") if p.is_file()))
    return sorted(f.resolve() for f in files)


def _hardware_lines(tree: ast.Module) -> list[ast.Assign]:
    return [node for node in tree.body if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id in HARDWARE]


def _hashed_bytes(file: Path) -> bytes:
    """What of a file an output depends on: a module without its claims and its hardware declarations
    (GPUS, GPU_MEMORY_GIB), any other file whole."""
    if not file.exists():
        return b"<missing>"  # an input not there yet
    if file.suffix != ".py":
        return file.read_bytes()
    tree, hardware = parse(file), _hardware_lines(parse(file))
    if not claim_nodes(tree) and not hardware:
        return file.read_bytes()
    text = file.read_text(encoding="utf-8")
    if hardware:
        lines = text.splitlines(keepends=True)
        for node in reversed(hardware):
            del lines[node.lineno - 1 : node.end_lineno]
        text = "".join(lines)
        tree = ast.parse(text, filename=str(file))
    return strip_claims(text, tree).encode()


def _source_hash(root: Path, path: Path) -> str:
    """Hash of a snippet's source, every project module it imports, and their declared inputs."""
    digest = hashlib.sha256()
    modules = closure(root, path)
    for file in modules + input_files(root, path, modules):
        digest.update(str(file.relative_to(root.resolve())).encode())
        digest.update(b"\0")
        digest.update(_hashed_bytes(file))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


source_hash = _once("hash", _source_hash)


def part_source(path: Path, part: str | None) -> str:
    """The whole file, or one top-level function or class (decorators included)."""
    text = path.read_text(encoding="utf-8")
    if part is None:
        return strip_claims(text, parse(path)).rstrip() + "\n"
    lines = text.splitlines()
    for node in parse(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return "\n".join(lines[start - 1 : node.end_lineno]) + "\n"
    raise SnippetError(f"no top-level function or class named {part!r} in {path.name}")
