"""Key sets: what a tensor carries, what the thread adds and removes, and the key that wins."""

import torch

from snippets.phase25.lab00.part_a_baseline import make_inputs
from snippets.phase25.theory01.dispatch_table import call_key_set, names

C = torch._C


def cpu_only(keys: C.DispatchKeySet) -> str:
    """A key set's names with the autocast keys of other devices folded into a count."""
    shown = [n for n in names(keys) if not n.startswith("Autocast") or n == "AutocastCPU"]
    folded = len(names(keys)) - len(shown)
    parts = shown + ([f"+{folded} Autocast keys of other devices"] if folded else [])
    return ", ".join(parts) or "(nothing)"


def layout_key_sets() -> dict[str, str]:
    """Key sets that differ from a plain CPU tensor's: layout and lazy conjugation are keys, views are not."""
    x, W, _ = make_inputs()
    examples = {
        "x": x,
        "W.t() (a view)": W.t(),
        "x.to_sparse()": x.detach().to_sparse(),
        "torch.complex(x, x).conj()": torch.complex(x, x).conj(),
    }
    return {name: ", ".join(names(C._dispatch_keys(t))) for name, t in examples.items()}


CONTEXTS = {  # the situations compared: name -> context manager factory
    "default": torch.enable_grad,
    "torch.no_grad()": torch.no_grad,
    "torch.inference_mode()": torch.inference_mode,
    "torch.autocast('cpu')": lambda: torch.autocast("cpu"),
}


def thread_local_sets() -> dict[str, tuple[str, str]]:
    """(include, exclude) key sets of this thread, by default and inside each context manager."""
    sets = {}
    for name, context in CONTEXTS.items():
        with context():
            sets[name] = (cpu_only(C._dispatch_tls_local_include_set()), cpu_only(C._dispatch_tls_local_exclude_set()))
    return sets


def winning_keys() -> dict[str, tuple[str, str]]:
    """(key set, highest key) of linear's addmm call (b, x, W.t()) in each situation."""
    x, W, b = make_inputs()
    winners = {}
    for name, context in CONTEXTS.items():
        with context():
            keys = call_key_set(b, x, W.t())
            winners[name] = (", ".join(names(keys)), keys.highestPriorityTypeId().name)
    return winners


def main():
    print("Key sets carried by tensors (lowest priority first):")
    for name, keys in layout_key_sets().items():
        print(f"  {name:<28} {keys}")
    print("\nThread-local sets, added to and removed from every call:")
    for name, (include, exclude) in thread_local_sets().items():
        print(f"  {name:<22} include: {include}\n  {'':<22} exclude: {exclude}")
    print("\nKey set of the addmm call inside linear(x, W, b), and the key that wins:")
    for name, (keys, winner) in winning_keys().items():
        print(f"  {name:<22} {keys}  ->  {winner}")


def claim_sparse_and_conj(main):
    """#lookup: a sparse tensor carries SparseCPU instead of CPU, and conj() of a complex tensor only sets a flag that the Conjugate key will honour later."""
    sparse, conj = main.line("x.to_sparse()"), main.line(".conj()")
    return "SparseCPU" in sparse and " CPU," not in sparse and "Conjugate" in conj


def claim_view_same_keys(main):
    """#lookup: a view carries the same keys as its base: W.t() is metadata over W's storage, not a new kind of tensor."""
    return main.line("W.t() (a view)").split("(a view)")[1].split() == main.lines[1].split()[1:]


def claim_default_thread_sets(main):
    """#lookup: by default every call gets BackendSelect and ADInplaceOrView added, and every autocast key removed."""
    default = main.between("Thread-local sets", "torch.no_grad()").lines
    return default[0].endswith("include: BackendSelect, ADInplaceOrView") and \
        default[1].endswith("exclude: AutocastCPU, +9 Autocast keys of other devices")


def claim_autocast_leaves_exclude(main):
    """#lookup: autocast stays switched off until torch.autocast takes AutocastCPU out of the exclude set."""
    exclude = main.between("Thread-local sets", "Key set of").between("torch.autocast").lines[0]
    return "exclude:" in exclude and "AutocastCPU" not in exclude


def claim_inference_and_no_grad(main):
    """#lookup: inference_mode stops adding ADInplaceOrView and excludes autograd (AutogradOther, AutogradNestedTensor), which removes AutogradCPU too; no_grad changes neither set."""
    sets = main.between("Thread-local sets", "Key set of").lines
    default, no_grad, inference = sets[0:2], sets[2:4], sets[4:6]
    addmm = main.between("Key set of the addmm").line("inference_mode")
    return ([line.split(":", 1)[1] for line in no_grad] == [line.split(":", 1)[1] for line in default]
            and inference[0].endswith("include: BackendSelect")
            and "AutogradOther, AutogradNestedTensor" in inference[1] and "AutogradCPU" not in addmm)


def claim_winning_keys(main):
    """#lookup: the addmm call inside linear normally enters at AutogradCPU; under inference_mode at ADInplaceOrView; under torch.autocast one level higher, at AutocastCPU."""
    calls = main.between("Key set of the addmm")
    winner = {name: calls.line(name).split("->")[1].strip()
              for name in ("default", "torch.no_grad()", "torch.inference_mode()", "torch.autocast('cpu')")}
    return winner == {"default": "AutogradCPU", "torch.no_grad()": "AutogradCPU",
                      "torch.inference_mode()": "ADInplaceOrView", "torch.autocast('cpu')": "AutocastCPU"}
