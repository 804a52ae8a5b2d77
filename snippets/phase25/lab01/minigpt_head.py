"""The hand gradients on the grammar MiniGPT's real LM head: checked, then used for one SGD step."""

import torch
import torch.nn.functional as F

from snippets.minigpt.evaluate import HELDOUT_SEED
from snippets.minigpt.torch_model import load_pretrained, sample_batch
from snippets.phase25.lab01.compare import NAMES, TOLERANCE
from snippets.phase25.lab01.float32_error import spacing
from snippets.phase25.lab01.hand_gradients import autograd_gradients, hand_gradients

ROWS, SEQ_LEN = 8, 32
LR = 1.0


def head_problem():
    """The head's real inputs: hidden states of held-out grammar rows, their next tokens, W and b."""
    model = load_pretrained()
    ids = sample_batch(ROWS, SEQ_LEN + 1, HELDOUT_SEED)
    with torch.no_grad():
        hidden = model.features(ids[:, :-1]).reshape(-1, model.config.d_model)
    head = model.lm_head
    return hidden, head.weight.detach(), head.bias.detach(), ids[:, 1:].reshape(-1)


def head_errors() -> dict[str, dict[str, float]]:
    """max |hand - autograd| for the head's three gradients, in float64 and in float32."""
    problem = head_problem()
    errors = {}
    for dtype in (torch.float64, torch.float32):
        x, W, b, target = (t.to(dtype) if t.is_floating_point() else t for t in problem)
        pairs = zip(hand_gradients("cross_entropy", x, W, b, target),
                    autograd_gradients("cross_entropy", x, W, b, target))
        errors[str(dtype).removeprefix("torch.")] = {name: (hand - auto).abs().max().item()
                                                     for name, (hand, auto) in zip(NAMES, pairs)}
    return errors


def largest_difference(a: torch.Tensor, b: torch.Tensor) -> tuple[float, float]:
    """max |a - b|, and that difference in float32 ulps of the value of b where it sits."""
    difference = (a - b).abs().flatten()
    where = int(difference.argmax())
    return difference[where].item(), difference[where].item() / spacing(b.flatten()[where].item())


def sgd_step() -> dict[str, float]:
    """One SGD step W -= lr * dW, b -= lr * db with the hand gradients, and with .backward()'s."""
    x, W, b, target = head_problem()
    _, dW, db = hand_gradients("cross_entropy", x, W, b, target)
    W_hand, b_hand = W - LR * dW, b - LR * db
    _, W_grad, b_grad = autograd_gradients("cross_entropy", x, W, b, target)
    W_auto, b_auto = W - LR * W_grad, b - LR * b_grad
    return {"loss before": F.cross_entropy(F.linear(x, W, b), target).item(),
            "loss after the hand step": F.cross_entropy(F.linear(x, W_hand, b_hand), target).item(),
            "max abs(W_hand - W_auto)": largest_difference(W_hand, W_auto)[0],
            "the same, in ulps of W": largest_difference(W_hand, W_auto)[1],
            "max abs(b_hand - b_auto)": (b_hand - b_auto).abs().max().item()}


def main():
    x = head_problem()[0]
    print(f"LM head inputs: {ROWS} held-out rows x {SEQ_LEN} positions = {tuple(x.shape)} hidden states")
    for dtype, errors in head_errors().items():
        cells = "  ".join(f"{name} {value:.2e}" for name, value in errors.items())
        verdict = "within 1e-7" if max(errors.values()) <= TOLERANCE else "over 1e-7"
        print(f"{dtype:8} {cells}  {verdict}")
    print()
    for what, value in sgd_step().items():
        print(f"{what:26} {value:.6g}")


def claim_float64_around_1e_17(main):
    """#minigpt: float64 stays around 1e-17."""
    return 1e-18 <= max(main.numbers("float64")[:3]) < 1e-16


def claim_float32_tiny(main):
    """#minigpt: float32 errors stay around 1e-8, more than ten times under 1e-7."""
    largest = max(main.numbers("float32")[:3])
    return 1e-9 < largest < 1e-8 * 3 and largest < 1e-7 / 10


def claim_step_lowers_the_loss(main):
    """#minigpt: The step with the hand gradients lowers the loss on this batch."""
    return main.number("loss after the hand step") < main.number("loss before")


def claim_weights_one_ulp_apart(main):
    """#minigpt: The weights differ from those of the same step taken with `.backward()`'s gradients by one float32 ulp of the weight where they differ most."""
    return main.number("the same, in ulps of W") == 1
