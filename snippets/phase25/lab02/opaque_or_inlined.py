"""custom_op against triton_op, drawn from the GPU recordings of the compiled head: the calls of
Inductor's generated forward, the custom op an opaque call, the triton_op's kernel one of Inductor's own."""

import re
from pathlib import Path

from engine import current_recording
from snippets import figure

INPUTS = ("recordings/phase25.lab02.compile_demo.main.json", "recordings/phase25.lab02.inlined.main.json")
ROOT = Path(__file__).resolve().parents[3]
CALL = re.compile(r"^\s*(?:\w+ = )?(extern_kernels\.\w+|torch\.ops\.[\w.]+|\w+\.run)\(", re.MULTILINE)
PANEL, BOX, GAP = 290, 44, 26  # a variant's width, a call's box, the space between two
WORDS = {
    "en": {"custom_op": "custom_op: nmb::softmax", "triton_op": "triton_op: nmb::softmax_inlined",
           "extern": "a library call (BLAS)", "opaque": "opaque: Inductor calls the op", "kernel": "a kernel of Inductor's module",
           "title": "The compiled head's generated forward: custom_op against triton_op",
           "variant": "{name}: {calls}", "call": "{call}, {kind}"},
    "es": {"custom_op": "custom_op: nmb::softmax", "triton_op": "triton_op: nmb::softmax_inlined",
           "extern": "una llamada a biblioteca (BLAS)", "opaque": "opaca: Inductor llama a la op",
           "kernel": "un kernel del módulo de Inductor",
           "title": "El forward generado del head compilado: custom_op frente a triton_op",
           "variant": "{name}: {calls}", "call": "{call}, {kind}"},
}


def kind(call: str) -> str:
    return "opaque" if call.startswith("torch.ops.") else "extern" if call.startswith("extern_kernels.") else "kernel"


def forward_calls() -> dict[str, list[str]]:
    """Each variant's generated forward, from its GPU recording: the calls it makes, in order."""
    calls = {}
    for name, module in (("custom_op", "compile_demo"), ("triton_op", "inlined")):
        output = current_recording(ROOT, ROOT / "snippets" / "phase25" / "lab02" / f"{module}.py", "main").output
        forward = output.split("# generated forward")[1].split("# generated backward")[0]
        calls[name] = CALL.findall(forward)
    return calls


def draw(calls: dict[str, list[str]], lang: str) -> tuple[str, str]:
    """A column per variant, its calls top to bottom: BLAS blue, the opaque op dark, Inductor's kernel green."""
    words = WORDS[lang]
    style = {"extern": (figure.BLUE, 0.12), "opaque": ("currentColor", 0.3), "kernel": (figure.GREEN, 0.2)}
    body = []
    for n, (name, variant) in enumerate(calls.items()):
        x = 8 + n * (PANEL + 16)
        body.append(figure.text(x, 18, words[name], bold=True))
        for i, call in enumerate(variant):
            y = 30 + i * (BOX + GAP)
            body += [figure.rect(x, y, PANEL, BOX, *style[kind(call)]),
                     figure.text(x + 8, y + 18, call, size=12), figure.text(x + 8, y + 35, words[kind(call)], size=11)]
            if i:
                body.append(figure.arrow(x + PANEL / 2, y - GAP, x + PANEL / 2, y, "opaque-or-inlined", lang))
    height = 30 + max(map(len, calls.values())) * (BOX + GAP) - GAP + 8
    desc = "; ".join(words["variant"].format(name=words[name], calls=" > ".join(
        words["call"].format(call=call, kind=words[kind(call)]) for call in variant)) for name, variant in calls.items())
    return (figure.svg(8 + 2 * PANEL + 16 + 8, height, body, words["title"], desc, "opaque-or-inlined", lang,
                       described=True), desc + ".")


def main():
    calls = forward_calls()
    print(figure.in_languages("opaque-or-inlined", lambda lang: draw(calls, lang)))


def claim_opaque_and_inlined(main):
    """#triton-op: in the recorded forward, custom_op's softmax is a call to torch.ops.nmb.softmax.default after the addmm; triton_op's is softmax_kernel_0.run, a kernel of Inductor's module."""
    desc = main.desc
    custom, triton = desc.split("; triton_op: ")
    return (custom == "custom_op: nmb::softmax: extern_kernels.addmm, a library call (BLAS) &gt; "
                      "torch.ops.nmb.softmax.default, opaque: Inductor calls the op"
            and triton == "nmb::softmax_inlined: extern_kernels.addmm, a library call (BLAS) &gt; "
                          "softmax_kernel_0.run, a kernel of Inductor's module")
