"""What the dispatcher chooses a kernel by: the dispatch keys a tensor carries (device, layout,
autograd), not its dtype; the dtype is read inside the kernel the dispatcher chose."""

import torch

from snippets.phase25.theory01.dispatch_table import names, table

DTYPES = (torch.float32, torch.float16, torch.int64, torch.uint16)


def key_sets() -> dict[str, str]:
    """The keys each tensor carries, lowest priority first: the dtypes, then a sparse layout, the meta
    device and requires_grad, each beside a plain float32 CPU tensor."""
    tensors = {f"{str(dtype).removeprefix('torch.')} on cpu": torch.ones(2, 3, dtype=dtype) for dtype in DTYPES}
    tensors |= {"float32, sparse layout": torch.ones(2, 3).to_sparse(),
                "float32 on meta": torch.ones(2, 3, device="meta"),
                "float32, requires_grad=True": torch.ones(2, 3, requires_grad=True)}
    return {name: ", ".join(names(torch._C._dispatch_keys(t))) for name, t in tensors.items()}


def add_rows(op: str = "aten::add.Tensor") -> dict[str, str]:
    """The dispatch table rows of `op` for the keys the tensors above carry: one kernel per key."""
    rows = table(op)
    return {key: f"{rows[key].kind}, {rows[key].where.rsplit('/', 1)[-1]}" for key in ("CPU", "SparseCPU", "Meta")}


def add_by_dtype() -> dict[str, str]:
    """x + x for each dtype: the same CPU kernel is chosen every time; what it does depends on the dtype."""
    results = {}
    for dtype in DTYPES:
        x = torch.ones(2, 3, dtype=dtype)
        try:
            results[str(dtype).removeprefix("torch.")] = f"{str((x + x).dtype).removeprefix('torch.')} result"
        except NotImplementedError as error:
            results[str(dtype).removeprefix("torch.")] = f"NotImplementedError: {error}"
    return results


def main():
    print("Keys each tensor carries (lowest priority first):")
    for name, keys in key_sets().items():
        print(f"  {name:<28} {keys}")
    print("\naten::add.Tensor's table, the rows for these keys:")
    for key, row in add_rows().items():
        print(f"  {key:<10} {row}")
    print("\nx + x on CPU, by dtype:")
    for dtype, result in add_by_dtype().items():
        print(f"  {dtype:<8} {result}")


def claim_dtype_is_not_a_key(main):
    """#dispatch-keys: float16, int64 and uint16 tensors carry exactly the keys of a float32 one."""
    keys = main.line("float32 on cpu").split("cpu", 1)[1].strip()
    return all(main.line(f"{dtype} on cpu").split("cpu", 1)[1].strip() == keys for dtype in ("float16", "int64", "uint16"))


def claim_layout_and_device_are_keys(main):
    """#dispatch-keys: a sparse tensor carries SparseCPU instead of CPU, a meta tensor Meta."""
    sparse, meta = main.line("sparse layout"), main.line("float32 on meta")
    return "SparseCPU" in sparse and " CPU," not in sparse and "Meta" in meta and " CPU," not in meta


def claim_requires_grad_is_not_a_key(main):
    """#dispatch-keys: requires_grad changes no key: every CPU tensor carries AutogradCPU already."""
    keys = main.line("float32 on cpu").split("cpu", 1)[1].strip()
    return main.line("requires_grad=True").split("True", 1)[1].strip() == keys and "AutogradCPU" in keys


def claim_one_kernel_per_key(main):
    """#dispatch-keys: the table has one kernel for CPU, one for SparseCPU and one for Meta, none per dtype."""
    rows = main.between("aten::add.Tensor's table", "x + x").lines
    return [line.split()[0] for line in rows if line.strip()] == ["CPU", "SparseCPU", "Meta"] \
        and all(" kernel, " in line for line in rows if line.strip())


def claim_dtype_inside_the_kernel(main):
    """#dispatch-keys: float32, float16 and int64 add in their own dtype; uint16 reaches the same CPU kernel, whose add_stub has no uint16 loop."""
    results = main.between("x + x on CPU")
    return (all(results.line(f"{dtype} ").endswith(f"{dtype} result") for dtype in ("float32", "float16", "int64"))
            and results.line("uint16").endswith("NotImplementedError: \"add_stub\" not implemented for 'UInt16'"))
