"""Part E, continued: the ops each backward node ran, read from the profiler's tree of calls."""

from snippets.phase25.lab00.part_e_profiler import profile_linear

NODES = ("AddmmBackward0", "TBackward0")


def backward_calls(prof) -> dict[str, list[str]]:
    """For each backward node of linear, the ops it called directly (name and input shapes), in order."""
    return {event.name: [f"{child.name} {child.input_shapes}" for child in event.cpu_children]
            for event in prof.events() if event.name in NODES}


def main():
    for node, calls in backward_calls(profile_linear()).items():
        print(f"{node} called:")
        for call in calls:
            print(f"    {call}")


def claim_both_mm_under_addmm_backward(main):
    """#part-e: `AddmmBackward0` runs both `aten::mm`, one for the gradient of `x` and one for that of `Wᵀ`."""
    return (main.between("AddmmBackward0", "TBackward0").count("aten::mm") == 2
            and "aten::mm [[2, 600], [600, 64]]" in main and "aten::mm [[600, 2], [2, 64]]" in main)


def claim_t_backward_only_transposes(main):
    """#part-e: `TBackward0` runs only `aten::t`, which transposes that gradient back to `W`'s shape."""
    return [line.split()[0] for line in main.between("TBackward0").lines] == ["aten::t"]
