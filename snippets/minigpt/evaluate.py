"""Prompt-prediction accuracy: how often the model's argmax next token is one the grammar allows."""

from __future__ import annotations

from .config import CONFIG
from .data import sample_ids
from .grammar import VOCAB, allowed_after

HELDOUT_SEED = 1  # training rows use seeds from train.TrainConfig.data_seed (1000 and up)


def heldout_rows(n_rows: int = 64, seed: int = HELDOUT_SEED) -> list[list[int]]:
    """Rows the training run never draws; every prefix of a row is one prompt."""
    return sample_ids(n_rows, CONFIG.block_size, seed)


def prompt_accuracy(rows: list[list[int]], predictions: list[list[int]]) -> float:
    """Share of prefixes `row[:t + 1]` whose predicted next id `predictions[r][t]` the grammar allows."""
    hits = total = 0
    for row, predicted in zip(rows, predictions):
        for allowed, guess in zip(allowed_after([VOCAB[i] for i in row]), predicted):
            hits += VOCAB[guess] in allowed
            total += 1
    return hits / total


def torch_predictions(model, rows: list[list[int]]) -> list[list[int]]:
    """Argmax next-token ids of a torch model (on any device) for every prefix of every row."""
    import torch

    with torch.no_grad():
        return model(torch.tensor(rows, device=model.lm_head.weight.device)).argmax(-1).tolist()
