"""The dispatcher's table for one operator, read from torch._C, and the walk it implies."""

import re
from dataclasses import dataclass

import torch

from snippets.phase25.theory01.normalise import normalise

C = torch._C
ROW = re.compile(r"^(?P<key>\w+): (?P<fallthrough>fallthrough )?registered (?:at|in) (?P<where>.+?) \[(?P<kind>[^\]]+)\]$")


@dataclass(frozen=True)
class Row:
    """One line of `_dispatch_dump_table`: which kernel runs for one dispatch key."""

    key: str
    kind: str  # kernel, autograd kernel, default backend kernel, backend fallback, ...
    where: str  # file:line of the registration, paths normalised
    fallthrough: bool  # skip this key and go on to the next one down


def table(op: str) -> dict[str, Row]:
    """Every computed row of the operator's dispatch table, keyed by dispatch key name."""
    rows = {}
    for line in normalise(C._dispatch_dump_table(op)).splitlines():
        match = ROW.match(line)
        if match:
            rows[match["key"]] = Row(match["key"], match["kind"], match["where"], bool(match["fallthrough"]))
    return rows


def names(keys: C.DispatchKeySet) -> list[str]:
    """The key names in a DispatchKeySet's repr, lowest priority first."""
    text = str(keys)
    return [name for name in text[text.index("(") + 1 : text.rindex(")")].split(", ") if name]


def priority_order() -> list[str]:
    """Every runtime dispatch key, highest priority first (the order of the full key set)."""
    return names(C._dispatch_keyset_full())[::-1]


def by_priority(keys) -> list[str]:
    """The given key names sorted highest priority first."""
    rank = {name: i for i, name in enumerate(priority_order())}
    return sorted(keys, key=rank.__getitem__)


def call_key_set(*tensors) -> C.DispatchKeySet:
    """The key set a call on these tensors dispatches with: tensor keys, plus TLS include, minus TLS exclude."""
    keys = C._dispatch_tls_local_include_set()
    for tensor in tensors:
        keys = keys | C._dispatch_keys(tensor)
    return keys - C._dispatch_tls_local_exclude_set()


def is_backend(key: C.DispatchKey) -> bool:
    """Backend keys (CPU, CUDA, Meta, ...) sit below BackendSelect: their kernels compute, they do not redispatch."""
    return C._dispatch_keyset_full_after(C.DispatchKey.BackendSelect).has(key)


def walk(op: str, keys: C.DispatchKeySet) -> list[Row]:
    """The rows a call visits: each kernel that is not the last redispatches to the keys below its own.

    The walk ends at a backend kernel (it computes), at a math kernel (a CompositeImplicitAutograd
    decomposition: it calls other operators, each dispatched from the top), or when no key is left
    (a BackendSelect kernel picks the backend from the call's arguments instead).
    """
    rows = table(op)
    visited = []
    while (key := keys.highestPriorityTypeId()).name != "Undefined":
        visited.append(rows[key.name])
        if is_backend(key) or rows[key.name].kind == "math kernel":
            break
        keys = keys & C._dispatch_keyset_full_after(key)
    return visited


def format_rows(rows) -> str:
    """One aligned line per row: key, kind (or fallthrough), registration site."""
    return "\n".join(
        f"  {row.key:<17} {'fallthrough' if row.fallthrough else row.kind:<23} {row.where}" for row in rows
    )
