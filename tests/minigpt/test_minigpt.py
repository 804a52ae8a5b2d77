"""The grammar MiniGPT: vocabulary, corpus, shipped weights, NumPy/PyTorch equivalence (never retrains fully)."""

from dataclasses import asdict, replace

import numpy as np
import pytest
import torch

from snippets.minigpt import grammar, shipped
from snippets.minigpt.config import CONFIG
from snippets.minigpt.evaluate import heldout_rows, prompt_accuracy, torch_predictions
from snippets.minigpt.numpy_model import load_pretrained as load_numpy
from snippets.minigpt.tokenizer import decode, encode
from snippets.minigpt.torch_model import GrammarMiniGPT, load_pretrained, sample_batch
from snippets.minigpt.train import TRAIN, train
from snippets.minigpt.weights import load_state_dict, tensor_digest


@pytest.fixture(scope="module")
def model():
    return load_pretrained()


def test_vocabulary_has_600_distinct_tokens():
    assert len(grammar.VOCAB) == 600 == CONFIG.vocab_size
    assert len(set(grammar.VOCAB)) == 600
    assert grammar.VOCAB[:4] == grammar.SPECIALS


def test_tokenizer_round_trip_and_unknown_words():
    text = grammar.generate_corpus(1, seed=3)[0]
    assert decode(encode(text)) == text
    assert decode(encode("the dog barks")) == "the dog <unk>"


def test_corpus_is_deterministic_and_grammatical():
    corpus = grammar.generate_corpus(50, seed=7)
    assert corpus == grammar.generate_corpus(50, seed=7)
    assert corpus != grammar.generate_corpus(50, seed=8)
    for text in corpus:
        words = text.split()
        assert words[0] == grammar.BOS and words[-1] == grammar.EOS
        allowed = grammar.allowed_after(words)
        assert all(words[i + 1] in allowed[i] for i in range(len(words) - 1))


def test_verb_agrees_with_subject_across_a_prepositional_phrase():
    allowed = grammar.allowed_next("<bos> the old dog near those cats".split())
    assert "sees" in allowed and "sleeps" in allowed
    assert "see" not in allowed and "sleep" not in allowed
    with pytest.raises(ValueError):
        grammar.allowed_next("<bos> the dogs sees".split())


def test_sample_batch_rows_start_documents_and_are_seeded():
    batch = sample_batch(3, 40, seed=5)
    assert batch.shape == (3, 40) and batch.dtype == torch.long
    assert torch.equal(batch, sample_batch(3, 40, seed=5))
    assert batch[:, 0].tolist() == [encode(grammar.BOS)[0]] * 3


def test_shipped_weights_are_what_the_training_script_describes(model):
    assert shipped.TRAIN_CONFIG == asdict(TRAIN)
    assert shipped.MODEL_CONFIG == asdict(CONFIG)
    state = load_state_dict()  # raises unless the tensors match shipped.WEIGHTS_SHA256
    fresh = GrammarMiniGPT().state_dict()
    assert {k: v.shape for k, v in state.items()} == {k: v.shape for k, v in fresh.items()}
    assert all(t.dtype == torch.float32 for t in state.values())
    assert state["lm_head.weight"].shape == (600, 64)
    assert not model.training


def test_shipped_weights_predict_grammatical_next_tokens(model):
    rows = heldout_rows()
    accuracy = prompt_accuracy(rows, torch_predictions(model, rows))
    assert accuracy > 0.95
    assert accuracy == pytest.approx(shipped.HELDOUT_ACCURACY, abs=2e-3)


def test_training_is_deterministic_given_its_seed():
    short = replace(TRAIN, steps=3)
    (first, losses_a), (second, losses_b) = train(short), train(short)
    assert losses_a == losses_b
    assert tensor_digest(first.state_dict()) == tensor_digest(second.state_dict())
    other, _ = train(replace(short, seed=1))
    assert tensor_digest(other.state_dict()) != tensor_digest(first.state_dict())


def test_numpy_reference_and_torch_port_agree_in_float32(model):
    reference = load_numpy()
    assert list(reference.params) == list(model.state_dict())
    idx = sample_batch(2, 32, seed=0)
    with torch.no_grad():
        ours = model(idx).numpy()
    theirs = reference(idx.numpy())
    assert theirs.dtype == np.float32 and ours.shape == (2, 32, 600)
    assert np.abs(ours - theirs).max() < 1e-5
