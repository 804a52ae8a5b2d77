"""A recording's provenance line gives its date as the page's language writes it."""

from engine.site import render

PROVENANCE = {"gpu": "NVIDIA H200", "torch": "2.11.0", "triton": "3.5.0", "cuda": "12.8", "date": "2026-11-26"}


def test_spanish_provenance_dates_are_written_as_in_spain():
    assert render.recorded_label("es", PROVENANCE).endswith(", el 26 de noviembre de 2026.")
    assert render.drawn_label("es", {**PROVENANCE, "date": "2027-01-01"}).endswith(", el 1 de enero de 2027.")
    assert render.recorded_label("en", PROVENANCE).endswith(", on 2026-11-26.")
