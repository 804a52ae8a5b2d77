"""Dynamo's guards: the checks run before every call to decide whether the compiled graph still applies."""

import collections
import re

import torch

from snippets.phase25.theory03.readable import captured_logs, tidy
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
GUARD = re.compile(r"^[| ]*\+- (?P<kind>[A-Z_]+): (?P<check>.*?)(?:\s+# .*)?$")


def guard_lines(model, x) -> list[tuple[str, str]]:
    """(kind, check) for every guard of the first compile, read from the `guards` log artifact."""
    torch._dynamo.reset()
    with captured_logs("guards") as records:
        torch.compile(model, backend="eager")(x)
    tree = next(r for r in records if "TREE_GUARD_MANAGER" in r)
    return [(m["kind"], tidy(m["check"])) for m in map(GUARD.match, tree.splitlines()) if m]


def main():
    model, x = model_and_input()
    guards = guard_lines(model, x)
    kinds = collections.Counter(kind for kind, _ in guards)
    print(f"{len(guards)} guards on the compiled forward; by kind:")
    for kind, count in sorted(kinds.items()):
        print(f"  {count:3} {kind}")
    print("\nthe tensor guards (input x, then the two parameters):")
    for kind, check in guards:
        if kind == "TENSOR_MATCH":
            print(" ", check)
    print("\none ID_MATCH and one TYPE_MATCH (the number is an object id, replaced here):")
    for wanted in ("ID_MATCH", "TYPE_MATCH"):
        print(" ", next(check for kind, check in guards if kind == wanted))
