"""Theory 02's claims about the autograd engine, checked on the live graph."""

import torch

from snippets.phase25.theory02 import accumulation, backward_order, capture, custom_function, functional, grad_modes
from snippets.phase25.theory02.graph_diagram import head_loss, svg, tree_text
from snippets.phase25.theory02.graph_walk import label, walk
from snippets.phase25.theory02.saved_tensors import addmm_saved, graph_only_bytes, loss_saved


def test_linear_records_addmm_whose_weight_path_goes_through_t():
    steps = dict(capture.walk_linear())
    assert steps["y.grad_fn"] == "AddmmBackward0"
    assert [steps[f"y.grad_fn.next_functions[{i}][0]"] for i in range(3)] == [
        "AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0"]
    assert steps["y.grad_fn.next_functions[2][0].next_functions[0][0]"] == "AccumulateGrad(W)"
    assert steps["AccumulateGrad(W).next_functions"] == "()"


def test_leaves_have_no_grad_fn_and_variants_change_next_functions():
    leaves = dict(capture.leaves_and_results())
    assert leaves["x: is_leaf=True, grad_fn"] == leaves["W: is_leaf=True, grad_fn"] == "None"
    assert leaves["W.t(): is_leaf=False, grad_fn"] == "TBackward0"
    variants = dict(capture.variants())
    assert variants["F.linear(x.detach(), W, b)"] == str(["AccumulateGrad", None, "TBackward0"])
    assert variants["torch.addmm(b, x, Wt), Wt a leaf"] == str(["AccumulateGrad"] * 3)


def test_diagram_is_the_walked_graph():
    loss, leaves = head_loss()
    nodes, edges = walk(loss.grad_fn)
    names = [label(n, leaves) for n in nodes]
    assert names == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "AccumulateGrad(b)",
                     "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]
    assert len(edges) == len(nodes) - 1  # a tree: every node but the root reached once
    text = tree_text(loss.grad_fn, leaves)
    assert text.splitlines()[0] == "NllLossBackward0" and all(name in text for name in names)
    picture = svg(loss.grad_fn, leaves)
    assert picture.startswith("<svg") and picture.count("<rect") == len(nodes) and picture.count("<line") == len(edges)
    assert "\n\n" not in picture  # a blank line would end the raw HTML block in Markdown


def test_addmm_saves_x_itself_and_a_view_of_w():
    saved = dict(addmm_saved())
    assert saved["_saved_mat1"].endswith("is x itself")
    assert saved["_saved_mat2"] == "Tensor(64, 600) strides (1, 64): a view of W's storage"
    assert saved["_saved_alpha"] == saved["_saved_beta"] == "1"


def test_graph_memory_grows_with_the_batch_and_counts_shared_storage_once():
    rows = loss_saved(2)
    names = {row["saved"] for row in rows}
    assert {"LogSoftmaxBackward0._saved_result", "AddmmBackward0._saved_mat1", "AddmmBackward0._saved_mat2"} <= names
    for batch in (2, 64):
        float32_bytes = 4
        assert graph_only_bytes(loss_saved(batch)) == batch * 600 * float32_bytes + float32_bytes  # log-probs + total_weight


def test_backward_runs_nodes_in_reverse_creation_order_leaves_as_soon_as_ready():
    log = backward_order.backward_order()
    assert [row["node"] for row in log] == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0",
                                           "AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]
    made = [row["made"] for row in log if row["made"]]
    assert made == ["op 4 of 4", "op 3 of 4", "op 2 of 4", "op 1 of 4"]
    assert log[3]["received"] == [(600,)]  # the engine summed AddmmBackward0's (2, 600) to b's shape


def test_gradients_accumulate_and_the_graph_is_freed():
    steps = accumulation.accumulate()
    results = dict(steps)
    assert results["loss.backward()"].endswith("True")
    assert "retain_graph=True" in results["loss.backward() again"]
    assert results["AddmmBackward0._saved_mat1"].startswith("RuntimeError")


def test_no_grad_keeps_keys_inference_mode_drops_them():
    effects = grad_modes.mode_effects()
    normal, no_grad, inference = (effects[m] for m in grad_modes.MODES)
    assert no_grad["key set of y"] == normal["key set of y"] == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert no_grad["thread excludes AutogradFunctionality"] == "False"
    assert no_grad["torch.is_grad_enabled()"] == "False" and no_grad["y.requires_grad, y.grad_fn"] == "False, None"
    assert inference["key set of y"] == "DispatchKeySet(CPU, AutocastCPU)"
    assert inference["thread excludes AutogradFunctionality"] == "True"
    assert inference["thread includes ADInplaceOrView"] == "False"
    later = grad_modes.later_use()
    assert later["torch.no_grad()"].startswith("backward ran")
    assert later["torch.inference_mode()"].startswith("RuntimeError: Inference tensors cannot be saved for backward")


def test_inference_mode_skips_inplace_or_view_only_for_inference_tensors():
    normal, inference = grad_modes.inside_inference_mode().values()
    assert normal["key set of a call on t"].endswith("ADInplaceOrView)")
    assert normal["t._version before -> after t.add_(1)"] == "0 -> 1" and normal["t.view(3)._base is t"] == "True"
    assert "ADInplaceOrView" not in inference["key set of a call on t"]
    assert inference["t._version before -> after t.add_(1)"].startswith("RuntimeError")


def test_custom_function_is_one_node_with_hand_backward():
    graph = custom_function.graph_of_custom()
    assert graph["type(y.grad_fn).__name__"] == "HandLinearBackward"
    assert graph["next_functions"] == str(["AccumulateGrad"] * 3)
    checks = custom_function.check_custom()
    assert checks["gradcheck(HandLinear.apply, float64, fast_mode=True)"] == "True"
    assert float(checks["max |grad - F.linear grad| (float32)"]) <= 1e-6


def test_torch_func_returns_gradients_without_touching_grad():
    result = functional.functional_gradients()
    assert result["dW, db shapes"] == "(600, 64), (600,)"
    assert result["W.requires_grad, W.grad"] == "False, None" and result["dW.grad_fn"] == "None"
    assert all(float(v) <= 1e-7 for v in result["max |dW - W_leaf.grad|, |db - b_leaf.grad|"].split(", "))


def test_exercises_shared_node_bias_gradient_and_packed_tensors():
    from snippets.phase25.theory02 import exercises

    tree, runs, summed = exercises.squared_graph()
    assert tree.count("AddmmBackward0") == 2 and tree.count("AccumulateGrad(W)") == 1
    assert runs == 1 and summed
    for batch in (2, 5):
        assert exercises.bias_gradient(batch).unique().tolist() == [float(batch)]
    owners = [row.split()[-1] for row in exercises.packed_tensors()]
    assert len(owners) == 6 and "logits" not in owners


def test_codegen_runs_torchgen_for_addmm_backward():
    from snippets.phase25.theory02 import codegen

    entry = codegen.derivatives_entry()
    assert entry[0].startswith("- name: addmm(Tensor self, Tensor mat1, Tensor mat2")
    declaration, definition = codegen.generated()
    assert "struct TORCH_API AddmmBackward0 : public TraceableFunction {" in codegen.struct(declaration)
    fields = codegen.saved_fields(declaration)
    exposed = codegen.live_saved()
    assert {f"_saved_{field}" for field in fields} - set(exposed) == {"_saved_mat1_layout", "_saved_mat2_layout"}
    assert sum(line.startswith("if (needs_input_grad") for line in codegen.formulas(definition)) == 3
