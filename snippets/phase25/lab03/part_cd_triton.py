"""Parts C and D on a GPU: TinyHead's fused softmax as Inductor writes it in Triton, read with rules."""

from snippets.phase25.lab03.triton_reading import annotate, pointers, summary
from snippets.phase25.theory03.inductor_code import call_function, generated_code, kernels
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
DEVICES = ("cuda",)


def main():
    model, x = model_and_input(device="cuda")
    code = generated_code(model, x)
    fused = {name: source for name, source in kernels(code).items() if "softmax" in name}
    print("kernels:", ", ".join(kernels(code)))
    print("\ncall():")
    print(call_function(code))
    for name, source in fused.items():
        text, found = annotate(source)
        print(f"\n{name}, pointers {', '.join(pointers(source))}:\n")
        print(text)
        print("\nsoftmax steps found by the rules:")
        print(summary(found))
