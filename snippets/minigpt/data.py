"""Token-id rows drawn from the grammar: what the model trains and is evaluated on."""

from __future__ import annotations

from .grammar import token_stream
from .tokenizer import TOKEN_ID


def sample_ids(batch: int, seq_len: int, seed: int) -> list[list[int]]:
    """`batch` rows of `seq_len` ids, each a stream of documents starting at `<bos>`; seeded."""
    return [[TOKEN_ID[w] for w in token_stream(seq_len, seed * 1_000_003 + row)] for row in range(batch)]
