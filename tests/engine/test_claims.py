"""Claims: read from snippets, left out of hashes and pages, checked against every output shown."""

import json
import re
from pathlib import Path

import pytest

from engine.source import claims
from engine.gpu import recordings
from engine.source.includes import page_includes
from engine.source.sources import part_source, snippet_path, source_hash
from tests.engine.sandbox import Sandbox, include

GPU = {"gpu": "Test GPU", "torch": "x", "triton": "y", "cuda": "z", "python": "3", "date": "2026-01-02"}
CLAIMED = '''DEVICES = ("cpu", "cuda")


def main():
    print("ops: 4")
    print("fast 1.5 us, slow 3.0 us")


def claim_four_ops(main):
    """#page: the backward runs four ops."""
    return main.number("ops:") == 4


def claim_fast_wins(main):
    """#page: fast beats slow."""
    fast, slow = main.numbers("fast")
    return fast < slow
'''


@pytest.fixture
def sandbox(tmp_path):
    return Sandbox(tmp_path)


def test_output_helpers():
    out = claims.Output("a 1\nrow x 2.5e-3 and -4\nrow y 7\n", "cuda", {"gpu": "G", "torch": "2.11"})
    assert "row x" in out and out.count("row") == 2
    assert out.numbers("row x") == [2.5e-3, -4.0] and out.number("row y") == 7
    assert out.between("a 1", "row y").text == "row x 2.5e-3 and -4"
    assert out.gpu == "G" and out.between("a 1").versions["torch"] == "2.11"
    with pytest.raises(claims.ClaimError, match="2 lines contain 'row'"):
        out.line("row")


def test_claims_leave_hash_and_page_alone(sandbox):
    bare = sandbox.snippet("s.py", CLAIMED.split("\n\n\ndef claim_")[0] + "\n")
    before, shown = source_hash(sandbox.path, bare), part_source(bare, None)
    bare.write_text(CLAIMED)
    assert source_hash(sandbox.path, bare) == before
    assert part_source(bare, None) == shown and "claim_" not in shown
    assert [(c.name, c.call, c.anchor) for c in claims.claims(bare)] == [
        ("claim_four_ops", "main", "page"), ("claim_fast_wins", "main", "page")]


def test_malformed_claim_is_loud(sandbox):
    file = sandbox.snippet("bad.py", 'def claim_x(main):\n    """No anchor here."""\n    return True\n')
    with pytest.raises(claims.ClaimError, match="#anchor: the sentence"):
        claims.claims(file)


def test_recording_that_contradicts_a_claim_fails_the_build(sandbox):
    file = sandbox.snippet("gpu.py", CLAIMED)
    sandbox.page("index", include("gpu.py"))
    recordings.save(sandbox.path, file, "main", "ops: 4\nfast 1.0 us, slow 2.0 us\n", GPU)
    good = sandbox.build()
    assert good.returncode == 0, good.log
    recorded = recordings.recording_path(sandbox.path, file, "main")
    data = json.loads(recorded.read_text())
    data["output"] = "ops: 4\nfast 3.0 us, slow 2.0 us\n"  # edited by hand: same source hash
    recorded.write_text(json.dumps(data))
    for strict in (True, False):
        bad = sandbox.build(strict=strict)
        assert bad.returncode != 0
        for needle in ("[en] page index.md", "snippets/gpu.py:main()", "claim_fast_wins",
                       "fast beats slow", "the recording on Test GPU"):
            assert needle in bad.log, (needle, bad.log)


def test_a_stale_recording_shown_while_authoring_logs_the_claims_it_breaks(sandbox):
    """Claims are written for the code as it is now; a stale recording is the output of older code. While
    authoring (NMB_PENDING_RECORDINGS=1) it is shown, and what its claims say of it is logged, not raised;
    a build without that setting fails on the stale recording itself."""
    file = sandbox.snippet("gpu.py", CLAIMED)
    sandbox.page("index", include("gpu.py"))
    recordings.save(sandbox.path, file, "main", "ops: 4\nfast 3.0 us, slow 2.0 us\n", GPU)
    assert sandbox.build().returncode != 0  # the claim fails on a current recording
    file.write_text(CLAIMED.replace('print("ops: 4")', 'print("ops:", 4)'))  # the source changed: stale
    authoring = sandbox.build(env={"NMB_PENDING_RECORDINGS": "1"})
    assert authoring.returncode == 0, authoring.log
    assert "claims that the stale recording breaks" in authoring.log and "claim_fast_wins" in authoring.log
    assert "fast 3.0 us" in authoring.page()
    plain = sandbox.build()
    assert plain.returncode != 0 and "is stale" in plain.log


def test_cached_cpu_output_that_contradicts_a_claim_fails_the_build(sandbox):
    sandbox.snippet("cpu.py", CLAIMED.replace('DEVICES = ("cpu", "cuda")', ""))
    sandbox.page("index", include("cpu.py"))
    assert sandbox.build().returncode == 0
    (entry,) = (sandbox.path / ".cache" / "snippets").glob("*.json")
    entry.write_text(json.dumps({"output": "ops: 5\nfast 1.5 us, slow 3.0 us\n"}))
    bad = sandbox.build()
    assert bad.returncode != 0
    for needle in ("[en] page index.md", "claim_four_ops", "the CPU output"):
        assert needle in bad.log, (needle, bad.log)


def _claimed_calls(root: Path):
    for page in sorted((root / "docs").rglob("*.md")):
        for inc in page_includes(page.read_text(encoding="utf-8")):
            if inc.call and inc.show in ("both", "output"):
                path = snippet_path(root, inc.path)
                yield page, inc.call, path
                for recorded, call in recordings.read_calls(root, path):  # a recording it shows, folded
                    yield page, call, recorded


def test_every_claim_names_a_section_of_a_page_that_shows_its_output(root):
    """A reader finds each claim's sentence: the anchor is a heading of a page showing that output (or a
    snippet drawn from its recording)."""
    anchors = {}
    for page, call, path in _claimed_calls(root):
        text = page.read_text(encoding="utf-8")
        anchors.setdefault((path, call), set()).update(
            a.strip() for a in re.findall(r"\{[^}]*#([\w-]+)[^}]*\}", text))
    claimed = {p for p in (root / "snippets").rglob("*.py") if claims.claims(p)}
    for path in sorted(claimed):
        for claim in claims.claims(path):
            shown = anchors.get((path, claim.call))
            assert shown is not None, f"{path.relative_to(root)}: {claim.name} is about {claim.call}(), no page shows it"
            assert claim.anchor in shown, f"{path.relative_to(root)}: {claim.name} names #{claim.anchor}, not a section of a page showing it"


def test_an_output_that_breaks_its_claims_runs_again_next_build(sandbox):
    """A CPU output whose claims fail (a machine too loaded for a demo, say) fails the build and is not
    kept: the next build runs the call again instead of failing on the same output for ever."""
    file = sandbox.snippet("ops.py", '''from pathlib import Path


def main():
    print("ops:", Path(__file__).with_name("ops.txt").read_text())


def claim_four_ops(main):
    """#page: the backward runs four ops."""
    return main.number("ops:") == 4
''')
    file.with_name("ops.txt").write_text("5")
    sandbox.page("index", include("ops.py"))
    bad = sandbox.build()
    assert bad.returncode != 0 and "claim_four_ops" in bad.log, bad.log
    file.with_name("ops.txt").write_text("4")  # what the call reads changes; its source does not
    good = sandbox.build()
    assert good.returncode == 0, good.log
