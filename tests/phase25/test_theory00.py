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


def test_exercises_change_the_tree_as_the_solutions_say():
    from snippets.phase25.theory00 import exercises

    no_bias = [line.strip() for line in exercises.without_bias()]
    assert no_bias[0] == "aten::linear" and "aten::mm" in no_bias and "aten::addmm" not in no_bias
    functional, module = exercises.as_module()
    assert functional == module and one_line.calls_of(module, "aten::addmm") == 1
    backward = exercises.only_weight_backward()
    assert one_line.calls_of(backward, "aten::mm") == 1
    assert exercises.engine_nodes(backward).count("torch::autograd::AccumulateGrad") == 1
