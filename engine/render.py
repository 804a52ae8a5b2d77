"""Markdown for a snippet: its code titled with its path, its output and where it came from."""

from __future__ import annotations

import re
import textwrap

LABELS = {
    "en": {
        "built": "Output built on CPU with torch {torch}, Python {python}.",
        "built_triton": "Output built on CPU with torch {torch}, triton {triton} (interpreter), Python {python}.",
        "drawn": "Output drawn at build time from the recording made on {gpu} with torch {torch}, triton {triton}, "
                 "CUDA {cuda}, on {date}.",
        "recorded": "Output recorded on {gpu} with torch {torch}, triton {triton}, CUDA {cuda}, on {date}.",
        "cpu_tab": "CPU (built)",
        "gpu_tab": "{gpu} (recorded)",
        "empty": "(the call printed nothing)",
        "failed": "Snippet failed",
        "pending": "GPU recording pending for {name}: run `make record` on a machine with an NVIDIA GPU.",
    },
    "es": {
        "built": "Salida generada en CPU con torch {torch} y Python {python}.",
        "built_triton": "Salida generada en CPU con torch {torch}, triton {triton} (intérprete) y Python {python}.",
        "drawn": "Salida dibujada al generar el sitio a partir de la grabación hecha en {gpu} con torch {torch}, "
                 "triton {triton} y CUDA {cuda}, el {date}.",
        "recorded": "Salida grabada en {gpu} con torch {torch}, triton {triton} y CUDA {cuda}, el {date}.",
        "cpu_tab": "CPU (generada)",
        "gpu_tab": "{gpu} (grabada)",
        "empty": "(la llamada no imprimió nada)",
        "failed": "El snippet falló",
        "pending": "Falta la grabación en GPU de {name}: ejecuta `make record` en una máquina con GPU NVIDIA.",
    },
}


def fence(text: str, info: str) -> str:
    """A code fence long enough that no backtick run inside the text closes it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}\n"


def code(source: str, title: str) -> str:
    return fence(source, f'python title="{title}"')


def output(text: str, label: str, lang: str, raw: bool = False) -> str:
    body = text if text.strip() else LABELS[lang]["empty"]
    shown = f"{body.strip()}\n" if raw else fence(body, "text")
    return shown + f'\n<p class="nmb-provenance">{label}</p>\n'


def built_label(lang: str, environment: dict[str, str], triton: bool = False) -> str:
    """Where a CPU output comes from; triton's interpreter is named only where Triton ran."""
    return LABELS[lang]["built_triton" if triton else "built"].format(**environment)


def drawn_label(lang: str, provenance: dict[str, str]) -> str:
    """A CPU output drawn from a GPU recording carries that recording's provenance."""
    return LABELS[lang]["drawn"].format(**provenance)


def recorded_label(lang: str, provenance: dict[str, str]) -> str:
    return LABELS[lang]["recorded"].format(**provenance)


def tabs(cpu: str, gpu: str, gpu_name: str, lang: str) -> str:
    """CPU and GPU outputs side by side in content tabs."""
    labels = LABELS[lang]
    return (f'=== "{labels["cpu_tab"]}"\n\n{textwrap.indent(cpu, "    ")}\n'
            f'=== "{labels["gpu_tab"].format(gpu=gpu_name)}"\n\n{textwrap.indent(gpu, "    ")}\n')


def failure(message: str, lang: str) -> str:
    return f'!!! failure "{LABELS[lang]["failed"]}"\n\n{textwrap.indent(fence(message, "text"), "    ")}\n'


def pending(name: str, lang: str) -> str:
    """Shown only while authoring (NMB_PENDING_RECORDINGS=1): a recording not made yet."""
    return f'!!! warning "GPU"\n\n    {LABELS[lang]["pending"].format(name=name)}\n'
