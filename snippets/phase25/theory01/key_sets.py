"""Key sets: what a tensor carries, what the thread adds and removes, and the key that wins."""

import torch

from snippets.phase25.theory01.dispatch_table import call_key_set, names

C = torch._C


def lm_head_inputs(seed: int = 0, requires_grad: bool = True):
    """x (2, 64), W (600, 64), b (600,): the LM head's linear(x, W, b)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(2, 64, generator=generator)
    W = torch.randn(600, 64, generator=generator, requires_grad=requires_grad)
    b = torch.randn(600, generator=generator, requires_grad=requires_grad)
    return x, W, b


def tensor_key_sets() -> dict[str, str]:
    """The key set each kind of tensor carries (dtype is not a key: float16 looks like float32)."""
    x, W, b = lm_head_inputs()
    with torch.inference_mode():
        frozen = torch.randn(2, 64)
    examples = {
        "x (float32)": x,
        "x.half() (float16)": x.half(),
        "W (requires_grad)": W,
        "W.t() (a view)": W.t(),
        "x on meta": x.to("meta"),
        "x.to_sparse()": x.to_sparse(),
        "complex x, conj()": torch.complex(x, x).conj(),
        "made in inference_mode": frozen,
    }
    return {name: ", ".join(names(C._dispatch_keys(t))) for name, t in examples.items()}


def cpu_only(keys: C.DispatchKeySet) -> str:
    """A key set's names with the autocast keys of other devices folded into a count."""
    shown = [n for n in names(keys) if not n.startswith("Autocast") or n == "AutocastCPU"]
    folded = len(names(keys)) - len(shown)
    parts = shown + ([f"+{folded} Autocast keys of other devices"] if folded else [])
    return ", ".join(parts) or "(nothing)"


def thread_local_sets() -> dict[str, tuple[str, str]]:
    """(include, exclude) key sets of this thread, by default and inside each context manager."""
    contexts = {
        "default": torch.enable_grad,
        "torch.no_grad()": torch.no_grad,
        "torch.inference_mode()": torch.inference_mode,
        "torch.autocast('cpu')": lambda: torch.autocast("cpu"),
    }
    sets = {}
    for name, context in contexts.items():
        with context():
            sets[name] = (cpu_only(C._dispatch_tls_local_include_set()), cpu_only(C._dispatch_tls_local_exclude_set()))
    return sets


def winning_keys() -> dict[str, str]:
    """The highest-priority key of linear's addmm call (b, x, W.t()) in each situation."""
    x, W, b = lm_head_inputs()
    situations = {
        "plain": torch.enable_grad,
        "torch.no_grad()": torch.no_grad,
        "torch.inference_mode()": torch.inference_mode,
        "torch.autocast('cpu')": lambda: torch.autocast("cpu"),
    }
    winners = {}
    for name, context in situations.items():
        with context():
            keys = call_key_set(b, x, W.t())
            winners[name] = f"{', '.join(names(keys))}  ->  {keys.highestPriorityTypeId().name}"
    return winners


def main():
    print("Key sets carried by tensors:")
    for name, keys in tensor_key_sets().items():
        print(f"  {name:<24} {keys}")
    print("\nThread-local include / exclude sets:")
    for name, (include, exclude) in thread_local_sets().items():
        print(f"  {name:<22} include: {include}\n  {'':<22} exclude: {exclude}")
    print("\nKey set of the addmm call inside linear(x, W, b), and the key that wins:")
    for name, line in winning_keys().items():
        print(f"  {name:<22} {line}")
