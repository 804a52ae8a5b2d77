"""Theory 04, PyTorch as substrate: the claims the page makes, checked on what torch really does."""

import numpy as np
import pytest
import torch
from torch import nn

from snippets.minigpt.evaluate import heldout_rows
from snippets.minigpt.grammar import allowed_next
from snippets.phase24.theory04 import (dispatch_keys, dispatch_sequence, drills, exercises, head_softmax,
                                       minigpt_accuracy, minigpt_equivalence, numpy_differences, port_bugs,
                                       storage_views, tiny_mlp)
from snippets.minigpt.torch_model import load_pretrained, sample_batch


def test_typed_storage_identity_fails_and_data_pointers_agree():
    checks = storage_views.identity_checks()
    assert checks["x.storage() is y.storage()"] is False
    assert checks["x.storage() is x.storage()"] is False  # a fresh wrapper on every call
    assert checks["warning raised by .storage()"].startswith("UserWarning: TypedStorage is deprecated")
    assert checks["same data_ptr() of the untyped storage"] is True


def test_the_storage_checks_print_the_same_after_anything_that_warned_before():
    torch.zeros(2).storage()  # the deprecation warning torch gives once per process, spent here
    assert storage_views.identity_checks() == storage_views.identity_checks()
    assert storage_views.identity_checks()["warning raised by .storage()"].startswith("UserWarning")


def test_views_share_bytes_and_contiguous_copies():
    layouts = {name: rest for name, *rest in storage_views.view_layouts()}
    assert layouts["x.t()"] == [(4, 3), (1, 4), 0, False, True]
    assert layouts["x[1:, 2:]"][2] == 1 * 4 + 2  # offset = row * stride(0) + col * stride(1)
    assert layouts["x.t().contiguous()"][3:] == [True, False]


def test_module_registers_parameters_and_buffers_only():
    model = tiny_mlp.TinyMLP()
    names = [name for name, *_ in tiny_mlp.registry(model)]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert sum(p.numel() for p in model.parameters()) == 64 * 256 + 256 + 256 * 600 + 600
    assert tiny_mlp.state_dict_shares_storage(model)
    assert tiny_mlp.what_gets_registered() == {"plain": (False, False), "scale": (True, True),
                                               "running": (False, True)}
    assert tiny_mlp.mode_flags(model) == {"train": [True] * 3, "eval": [False] * 3}


def test_forward_decomposes_linear_into_t_and_addmm():
    ops = dispatch_sequence.forward_ops("cpu")
    assert ops["TorchFunctionMode (Python calls)"] == ["linear", "relu", "linear"]
    assert ops["TorchDispatchMode (ATen ops)"] == ["aten.t.default", "aten.addmm.default", "aten.relu.default"] + [
        "aten.t.default", "aten.addmm.default"]


def test_numpy_differences():
    devices = numpy_differences.device_rules()
    assert devices["cpu (2,) + meta (2,)"].startswith("RuntimeError")
    assert devices["meta (2,) + cpu 0-d tensor"] == "float32 on meta"
    grads = numpy_differences.autograd_rules()
    assert grads["x.grad after a second backward()"] == [2 * g for g in grads["x.grad after one backward()"]]
    assert grads["under no_grad: grad_fn"] is None
    table = {case: (t, n) for case, t, n in numpy_differences.promotion_table()}
    assert table["fp16 (2,) + fp32 (2,)"] == ("float32", "float32")
    assert table["fp16 (2,) + fp32 0-d"] == ("float16", "float32")  # 0-d tensors do not promote in torch
    assert table["int64 (3,) + 2.5"] == ("float32", "float64")
    assert table["fp16 (2,3) @ fp32 (3,2)"][0].startswith("RuntimeError")


def test_port_matches_numpy_reference_within_1e_5():
    result = minigpt_equivalence.compare()
    assert result["np.allclose(atol=1e-5, rtol=1e-5)"] is True
    assert result["max abs error, logits (B, T, 600)"] < 1e-5
    assert result["same argmax token"] == "100.0%"
    assert minigpt_equivalence.compare(batch=8, seq_len=64, seed=3)["np.allclose(atol=1e-5, rtol=1e-5)"] is True


def test_each_bug_fails_the_check_the_correct_port_passes():
    results = port_bugs.errors(batch=4, seq_len=16, seed=3)
    (correct, passes), *bugs = results.values()
    assert passes and correct < 1e-5 and len(bugs) == len(port_bugs.BUGS) - 1
    assert all(not close and error > 1e-2 for error, close in bugs)
    assert port_bugs.errors(batch=4, seq_len=16, seed=3) == results  # each bug broke a fresh model, not the weights


def test_prompt_accuracy_above_95_percent_for_both_implementations():
    result = minigpt_accuracy.accuracies()
    assert result["held-out prompts (prefixes of 64 rows of 64 tokens)"] == sum(len(r) for r in heldout_rows())
    assert result["accuracy, PyTorch port"] > 0.95
    assert result["accuracy, NumPy reference"] == pytest.approx(result["accuracy, PyTorch port"], abs=1e-3)


def test_prompt_examples_report_allowed_words():
    mass, top = minigpt_accuracy.next_word("<bos> my teacher reads a book")
    assert 0.5 < mass <= 1.0 + 1e-6
    allowed = allowed_next("<bos> my teacher reads a book".split())
    assert [ok for *_, ok in top] == [w in allowed for w, *_ in top]


def test_custom_softmax_slots_into_the_head():
    model, idx = load_pretrained(), sample_batch(2, 16, seed=0)
    with torch.no_grad():
        probs = head_softmax.next_token_probs(model, idx)
        swapped = head_softmax.next_token_probs(model, idx, softmax=head_softmax.softmax_by_hand)
        logits = model(idx)[:, -1]
    assert probs.shape == (2, 600)
    torch.testing.assert_close(probs, torch.softmax(logits, -1))
    assert (probs - swapped).abs().max() < 1e-7


def test_drill_answers():
    d1 = drills.drill1_contiguous()
    assert d1["new storage"] and d1["its bytes"] == 12 * 4 and d1["x.t().contiguous() stride"] == (3, 1)
    assert d1["in memory order"] == torch.arange(12.0).reshape(3, 4).t().flatten().tolist()
    d2 = drills.drill2_data_ptr()
    assert d2["equals w.untyped_storage().data_ptr()"] and d2["equals w.data_ptr() (offset 0)"]
    assert d2["w[1].data_ptr() - w.data_ptr() (bytes)"] == d2["w.stride(0) * w.element_size()"] == 64 * 4
    d4 = drills.drill4_precision()
    assert d4["float16 eps, max"] == (2.0**-10, 65504.0)
    assert d4["torch.tensor(70000.0).half()"] == float("inf")
    first, second = d4["(1e8 + -1e8) + 1 vs 1e8 + (-1e8 + 1), float32"]
    assert first != second
    assert d4["64-term dot product, |error| in float16"] > 100 * d4["64-term dot product, |error| in float32"]


def test_numpy_reference_shares_names_with_the_port():
    from snippets.minigpt.numpy_model import load_pretrained as load_numpy

    reference = load_numpy()
    assert all(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in reference.params.values())
    assert list(reference.params) == list(load_pretrained().state_dict())


def test_dtype_is_not_a_dispatch_key_and_the_kernel_reads_it():
    keys = dispatch_keys.key_sets()
    assert keys["float16 on cpu"] == keys["int64 on cpu"] == keys["uint16 on cpu"] == keys["float32 on cpu"]
    assert keys["float32, requires_grad=True"] == keys["float32 on cpu"]
    assert keys["float32, sparse layout"].startswith("SparseCPU,") and keys["float32 on meta"].startswith("Meta,")
    assert set(dispatch_keys.add_rows()) == {"CPU", "SparseCPU", "Meta"}
    results = dispatch_keys.add_by_dtype()
    assert results["float16"] == "float16 result" and "add_stub" in results["uint16"]


def test_layers_in_a_list_are_invisible_and_module_list_registers_them():
    listed = exercises.what_the_registry_sees(list)
    assert listed["tensors in parameters()"] == listed["entries in state_dict()"] == 0
    assert listed["weights after .double()"] == "float32"
    assert listed["forward(float64 input)"].startswith("RuntimeError")
    registered = exercises.what_the_registry_sees(nn.ModuleList)
    assert registered["tensors in parameters()"] == registered["entries in state_dict()"] == 4
    assert registered["weights after .double()"] == "float64"
    assert registered["forward(float64 input)"] == "ok"
    model = exercises.ListedMLP(nn.ModuleList)
    assert list(model.state_dict()) == [f"layers.{i}.{p}" for i in (0, 1) for p in ("weight", "bias")]
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in tiny_mlp.TinyMLP().parameters())


def test_only_inference_mode_changes_the_keys():
    plain = dispatch_keys.key_sets()["float32 on cpu"]
    keys = exercises.more_key_sets()
    assert [name for name, k in keys.items() if k != plain] == ["made under inference_mode()"]
    inference = keys["made under inference_mode()"].split(", ")
    assert "CPU" in inference and "AutogradCPU" not in inference and "ADInplaceOrView" not in inference
    assert set(inference) < set(plain.split(", "))
