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


def claim_tensor_match_key_set(main):
    """#guards: TENSOR_MATCH checks the dispatch key set a call computes: the tensor's own keys plus the thread's BackendSelect, minus AutocastCPU, which the thread excludes."""
    guards = main.between("the tensor guards", "one ID_MATCH").lines
    keys = [re.search(r"DispatchKeySet\(([^)]*)\)", line).group(1) for line in guards if "check_tensor" in line]
    return len(keys) == 3 and all(k == "CPU, BackendSelect, ADInplaceOrView, AutogradCPU" for k in keys)


def claim_tensor_match_fields(main):
    """#guards: TENSOR_MATCH checks, for x and both parameters, the Python type, the dtype, the device, requires_grad and the exact sizes and strides; x's is size=[2, 64]."""
    x = main.line("check_tensor(L['x']")
    return (re.search(r"^ +3 TENSOR_MATCH$", main.text, re.M) is not None and ", Tensor, " in x
            and x.endswith("torch.float32, device=None, requires_grad=False, size=[2, 64], stride=[64, 1])")
            and ", Parameter, " in main.line("_parameters['weight']"))


def claim_id_and_type_match(main):
    """#guards: ID_MATCH and TYPE_MATCH pin the Python objects the trace looked up, among them the torch module itself."""
    count = {kind: int(n) for n, kind in re.findall(r"^ +(\d+) ([A-Z_]+)$", main.text, re.M)}
    return count["ID_MATCH"] > 0 and count["TYPE_MATCH"] > 0 and \
        main.line("___check_obj_id(").startswith("  ___check_obj_id(G['torch']")


def claim_five_per_tensor(main):
    """#guards: DIMENSION_DYNAMIC_MARKING_GUARD (five per tensor) checks that nobody has marked a dimension dynamic since; one GLOBAL_STATE guard checks grad mode, autocast and the default dtype."""
    count = {kind: int(n) for n, kind in re.findall(r"^ +(\d+) ([A-Z_]+)$", main.text, re.M)}
    return count["DIMENSION_DYNAMIC_MARKING_GUARD"] == 5 * count["TENSOR_MATCH"] and count["GLOBAL_STATE"] == 1
