"""Train the grammar MiniGPT and ship its weights: `python -m snippets.minigpt.train`.

Deterministic given `TrainConfig.seed` (one CPU thread, fresh grammar rows drawn from seeded
streams, AdamW with warm-up and cosine decay). Writes `grammar_minigpt.pt` (the float32 state_dict)
and `shipped.py` (its tensor digest, this configuration and the measured accuracy). Never run by the
site build or the tests: they load what this wrote.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from .config import CONFIG
from .evaluate import heldout_rows, prompt_accuracy, torch_predictions
from .torch_model import GrammarMiniGPT, sample_batch
from .weights import WEIGHTS_PATH, tensor_digest

SHIPPED_PATH = Path(__file__).with_name("shipped.py")


@dataclass(frozen=True)
class TrainConfig:
    """Everything the run depends on besides the model's shape (`config.CONFIG`)."""

    seed: int = 0
    steps: int = 1200
    batch: int = 32
    lr: float = 3e-3
    warmup: int = 60
    weight_decay: float = 0.01
    data_seed: int = 1000
    threads: int = 1


TRAIN = TrainConfig()


def learning_rate(cfg: TrainConfig, step: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def train(cfg: TrainConfig = TRAIN, log=None) -> tuple[GrammarMiniGPT, list[float]]:
    """The trained model (eval mode) and the loss of every step."""
    threads = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    try:
        torch.manual_seed(cfg.seed)
        model = GrammarMiniGPT()
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        losses = []
        for step in range(cfg.steps):
            batch = sample_batch(cfg.batch, CONFIG.block_size + 1, cfg.data_seed + step)
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, CONFIG.vocab_size), batch[:, 1:].reshape(-1))
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(cfg, step)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if log is not None and (step % 100 == 0 or step == cfg.steps - 1):
                log(f"step {step:5d}  loss {loss.item():.4f}")
    finally:
        torch.set_num_threads(threads)
    return model.eval(), losses


def write_shipped(model: GrammarMiniGPT, cfg: TrainConfig, accuracy: float, final_loss: float) -> None:
    """Save the state_dict and describe it in `shipped.py`."""
    state = {name: t.detach().clone() for name, t in model.state_dict().items()}
    torch.save(state, WEIGHTS_PATH)
    SHIPPED_PATH.write_text(
        '"""Written by `python -m snippets.minigpt.train`: what the shipped weights are. Do not edit."""\n\n'
        f"WEIGHTS_SHA256 = {tensor_digest(state)!r}\n"
        f"TRAIN_CONFIG = {asdict(cfg)!r}\n"
        f"MODEL_CONFIG = {asdict(CONFIG)!r}\n"
        f"HELDOUT_ACCURACY = {accuracy!r}\n"
        f"FINAL_LOSS = {final_loss!r}\n"
        f"TORCH_VERSION = {torch.__version__!r}\n",
        encoding="utf-8",
    )


def main() -> None:
    started = time.perf_counter()
    model, losses = train(TRAIN, log=print)
    rows = heldout_rows()
    accuracy = prompt_accuracy(rows, torch_predictions(model, rows))
    write_shipped(model, TRAIN, accuracy, losses[-1])
    print(f"held-out prompt accuracy {accuracy:.4f}; {time.perf_counter() - started:.0f} s")
    print(f"wrote {WEIGHTS_PATH.name} ({WEIGHTS_PATH.stat().st_size} bytes) and {SHIPPED_PATH.name}")


if __name__ == "__main__":
    main()
