"""Word-level tokenizer over the grammar's 600-token vocabulary: one word, one id."""

from __future__ import annotations

from .grammar import UNK, VOCAB

TOKEN_ID: dict[str, int] = {word: i for i, word in enumerate(VOCAB)}


def encode(text: str) -> list[int]:
    """Ids of the space-separated words of `text`; a word outside the vocabulary becomes `<unk>`."""
    return [TOKEN_ID.get(word, TOKEN_ID[UNK]) for word in text.split()]


def decode(ids) -> str:
    """Text of a sequence of ids (ints or 0-d tensors), words joined by spaces."""
    return " ".join(VOCAB[int(i)] for i in ids)
