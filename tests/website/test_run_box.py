"""Every lab page opens with its "Run it yourself" box, in both languages: the commands that check the
learner's code for that lab, set-up, system, GPU and a working time computed from the page's marks."""

import re

import pytest

LABS = ["phase-24/lab/00-hello-cuda", "phase-25/lab/00-dispatcher-trace", "phase-25/lab/01-autograd-by-hand",
        "phase-25/lab/02-custom-op", "phase-25/lab/03-compile-and-inductor", "phase-25/lab/03-distributed-survey",
        "phase-25/lab/03-running-torchrun"]


@pytest.mark.parametrize("lang", ["", "es/"])
@pytest.mark.parametrize("lab", LABS)
def test_lab_page_opens_with_its_run_box(built_site, lab, lang):
    html = (built_site / lang / lab / "index.html").read_text()
    box = html[html.index('class="example nmb-run-box"'):]
    box = box[: box.index("</details>")]
    assert re.search(r"make check LAB=phase2[45]/\w+", box)
    marks = [len(re.findall(f'>{mark}<', html)) for mark in ("●○○", "●●○", "●●●")]
    minutes = 5 * marks[0] + 15 * marks[1] + 30 * marks[2]
    assert f"{minutes // 60} h {minutes % 60} min" in box and minutes > 0
    assert ("Qué necesita una GPU" if lang else "What needs a GPU") in box
