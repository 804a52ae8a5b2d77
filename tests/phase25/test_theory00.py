"""Theory 00: one line of Python opens into a tree of operator calls."""

from snippets.phase25.theory00 import one_line


def test_linear_opens_into_t_and_addmm():
    forward, backward = one_line.call_tree()
    assert forward[0] == "aten::linear"
    assert [line.strip() for line in forward if line.startswith("  aten")] == ["aten::t", "aten::addmm"]
    engine = [line.split(": ")[-1] for line in backward if line.startswith("autograd::engine")]
    assert engine[:2] == ["SumBackward0", "AddmmBackward0"] and "TBackward0" in engine
    assert engine.count("torch::autograd::AccumulateGrad") == 3


def test_calls_of_counts_one_operator_at_any_depth():
    assert one_line.calls_of(["aten::mm", "  aten::mm", "    aten::mm_out", "aten::t"], "aten::mm") == 2
