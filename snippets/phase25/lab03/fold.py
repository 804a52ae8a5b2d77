"""A recorded GPU output made to fit the page: each note of triton_reading.py moved onto a line of its
own (`# ↓`) above the line it explains, Inductor's long metadata dicts elided, long lines wrapped.
Nothing is run again: the text is the recording's."""

import re
import textwrap
from pathlib import Path

from engine import current_recording
from snippets.phase25.theory03.readable import ROOT

WIDTH = 100
NOTE = "    # <- "
BELOW = "# ^ "
METADATA = re.compile(r"^(\s*)(triton_meta|inductor_meta)=(\{.*\})(,?)$")


def recorded_output(snippet_file: str, call: str = "main") -> str | None:
    """The output recorded on a GPU for `call()` of the snippet at `snippet_file` (None while pending)."""
    recording = current_recording(ROOT, Path(snippet_file), call)
    return None if recording is None else recording.output


def wrap(line: str, width: int = WIDTH) -> list[str]:
    """A line longer than `width` broken, continued 4 columns deeper: code after a comma, a comment
    or other text at a space (a comment stays one). A line holding a word too long to fit stays whole."""
    indent, text = line[:len(line) - len(line.lstrip())], line.lstrip()
    if len(line) <= width or max(map(len, text.split())) > width - len(indent) - 4:
        return [line]
    if text.startswith("#") or ", " not in text:
        more = indent + ("#   " if text.startswith("#") else "    ")
        return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=more,
                             break_long_words=False, break_on_hyphens=False)
    lines = [indent]
    for chunk in re.split(r"(?<=,) ", text):
        if len(lines[-1]) + len(chunk) + 1 > width and lines[-1].strip():
            lines.append(indent + "    ")
        lines[-1] += chunk if not lines[-1].strip() else " " + chunk
    return lines


def notes(text: str) -> list[tuple[str, str | None]]:
    """(code, note or None) per line: a note is a `# <-` comment after the code, or a `# ^` line below it."""
    out = []
    for line in text.splitlines():
        if line.startswith(BELOW) and out:
            out[-1] = (out[-1][0], line.removeprefix(BELOW))
        else:
            code, found, note = line.partition(NOTE)
            out.append((code, note if found else None))
    return out


def fold(text: str, width: int = WIDTH) -> str:
    """`text` with its notes above the lines they explain (one written once for the lines it repeats
    on), the metadata dicts elided and long lines wrapped where they can be."""
    out, last_note = [], None
    for code, note in notes(text):
        indent = code[:len(code) - len(code.lstrip())]
        if note and note != last_note:
            out += wrap(f"{indent}# ↓ {note}", width)
        if code.strip():
            last_note = note
        metadata = METADATA.match(code)
        if metadata:
            code = f"{indent}{metadata[2]}={{...}}{metadata[4]}  # {len(metadata[3])} characters, elided here"
        out += wrap(code, width)
    return "\n".join(out)
