"""The layout measure is not vacuous. Every page of both languages is measured for fit during its one
visit in test_browser.py (the measure: layout.py)."""

from __future__ import annotations

from .layout import LAPTOP, measure


def test_the_measure_sees_output_blocks(reader, server):
    """A lab page's outputs are found (the renderer marks them .nmb-output) and measured."""
    visit = reader.open(server.origin, server.url("phase-25/lab/00-dispatcher-trace/"))
    try:
        assert measure(visit.page, *LAPTOP)["outputs"] >= 5
    finally:
        visit.close()
