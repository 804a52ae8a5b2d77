"""Markdown for a snippet: its code titled with its path, its output and where it came from."""

from __future__ import annotations

import re
import textwrap

from engine.site.bilingual import in_language

LABELS = {
    "en": {
        "built": "Output built on CPU ({kernels} kernels) with torch {torch}, Python {python}.",
        "built_triton": "Output built on CPU ({kernels} kernels) with torch {torch}, triton {triton} (interpreter), "
                        "Python {python}.",
        "drawn": "Output drawn at build time from the recording made on {gpu} with torch {torch}, triton {triton}, "
                 "CUDA {cuda}, on {date}.",
        "recorded": "Output recorded on {gpu} with torch {torch}, triton {triton}, CUDA {cuda}, on {date}.",
        "cpu_tab": "CPU (built)",
        "gpu_tab": "{gpu} (recorded)",
        "empty": "(the call printed nothing)",
        "failed": "Snippet failed",
        "pending": "GPU recording pending for {name}: run `make record` on a machine with an NVIDIA GPU.",
        "running_title": "Still running",
        "running": "`make serve` is still running {name} for the first time; this page reloads by itself when "
                   "the output is ready.",
    },
    "es": {
        "built": "Salida generada en CPU (kernels {kernels}) con torch {torch} y Python {python}.",
        "built_triton": "Salida generada en CPU (kernels {kernels}) con torch {torch}, triton {triton} (intérprete) "
                        "y Python {python}.",
        "drawn": "Salida dibujada al generar el sitio a partir de la grabación hecha en {gpu} con torch {torch}, "
                 "triton {triton} y CUDA {cuda}, el {date}.",
        "recorded": "Salida grabada en {gpu} con torch {torch}, triton {triton} y CUDA {cuda}, el {date}.",
        "cpu_tab": "CPU (generada)",
        "gpu_tab": "{gpu} (grabada)",
        "empty": "(la llamada no imprimió nada)",
        "failed": "El snippet falló",
        "pending": "Falta la grabación en GPU de {name}: ejecuta `make record` en una máquina con GPU NVIDIA.",
        "running_title": "Ejecutándose",
        "running": "`make serve` todavía está ejecutando {name} por primera vez; esta página se recarga sola "
                   "cuando la salida esté lista.",
    },
}
MONTHS = {"es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                 "octubre", "noviembre", "diciembre")}


def written_date(date: str, lang: str) -> str:
    """A recording's date (ISO, as recorded) as the page's language writes it: «26 de noviembre de 2026»."""
    if lang not in MONTHS:
        return date
    year, month, day = (int(part) for part in date.split("-"))
    return f"{day} de {MONTHS[lang][month - 1]} de {year}"


def fence(text: str, info: str) -> str:
    """A code fence long enough that no backtick run inside the text closes it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}\n"


def code(source: str, title: str) -> str:
    return fence(source, f'python title="{title}"')


def figure(svg: str) -> str:
    """A chart a snippet drew, as a paragraph that scrolls sideways rather than shrink its text
    below 11 px: its minimum width is the drawn width scaled by 11 over the smallest font size."""
    width = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)"', svg)
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    style = ""
    if width and sizes:
        style = f' style="--nmb-min-width: {float(width[1]) * max(1.0, 11 / min(sizes)):.0f}px"'
    return f"{svg.strip()}\n{{: .nmb-figure{style} }}\n"


def raw_output(text: str) -> str:
    """Markdown or HTML a snippet printed, inserted as it is; each chart (an SVG paragraph) a figure."""
    blocks = re.split(r"\n[ \t]*\n", text.strip())
    return "\n".join(figure(b) if b.lstrip().startswith("<svg") else f"{b}\n" for b in blocks)


def output(text: str, label: str, lang: str, raw: bool = False) -> str:
    body = text if text.strip() else LABELS[lang]["empty"]
    shown = raw_output(in_language(body, lang)) if raw else fence(body, "{.text .nmb-output}")
    # A paragraph with a class (attr_list), not raw HTML: indented inside a tab, raw HTML is not
    # recognised as a block and ends up inside a paragraph of its own (<p><p>, invalid markup).
    return shown + f"\n{label}\n{{: .nmb-provenance }}\n"


def built_label(lang: str, environment: dict[str, str], triton: bool = False) -> str:
    """Where a CPU output comes from; triton's interpreter is named only where Triton ran."""
    return LABELS[lang]["built_triton" if triton else "built"].format(**environment)


def drawn_label(lang: str, provenance: dict[str, str]) -> str:
    """A CPU output drawn from a GPU recording carries that recording's provenance."""
    return LABELS[lang]["drawn"].format(**{**provenance, "date": written_date(provenance["date"], lang)})


def recorded_label(lang: str, provenance: dict[str, str]) -> str:
    return LABELS[lang]["recorded"].format(**{**provenance, "date": written_date(provenance["date"], lang)})


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


def running(name: str, lang: str) -> str:
    """Shown only by `mkdocs serve` on a cold cache: an output the background run has not produced yet."""
    return f'!!! info "{LABELS[lang]["running_title"]}"\n\n    {LABELS[lang]["running"].format(name=name)}\n'
