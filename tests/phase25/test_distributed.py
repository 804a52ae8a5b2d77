"""The distributed survey: every pattern trains one step on 2 gloo ranks; counts, bytes, gradients."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch.distributed as dist

from snippets.phase25.distributed import api_names, commdebug_limits, deliverable, exercises, faults, launch, traffic
from snippets.phase25.distributed.comm import ring_bytes_sent
from snippets.phase25.distributed.compare import BATCHES, PATTERNS, compare_rank, crossover, rows, verdicts
from snippets.phase25.distributed.launch import RankFailed, run_ranks
from snippets.phase25.distributed.model import D_MODEL, SEQ_LEN, build_model
from snippets.phase25.distributed.pipeline import pp_both_rank
from snippets.phase25.distributed.timeline import draw, idle_ticks, peak_in_flight, place
from tests.test_readable import long_paragraphs

FLOAT = 4
TOLERANCE = 1e-6
PARAMS = sum(p.numel() for p in build_model().parameters())


@pytest.fixture(scope="module")
def ranks():
    """One launch: every pattern at every batch size, on 2 ranks."""
    return run_ranks(compare_rank, timeout=300)


def runs(ranks, name, batch=BATCHES[0]):
    return [r[f"{name} @{batch}"] for r in ranks]


# --- every pattern reproduces the single-process gradient ------------------------------------

@pytest.mark.parametrize("name", list(PATTERNS))
def test_gradients_match_one_process(ranks, name):
    for batch in BATCHES:
        for r in runs(ranks, name, batch):
            assert r["grad_error"] < TOLERANCE


def test_ddp_gradients_bitwise_identical_on_both_ranks(ranks):
    digests = {r["grad_digest"] for batch in BATCHES for r in runs(ranks, "DDP", batch)}
    assert len(digests) == len(BATCHES)  # one digest per batch size: both ranks agree bit for bit


# --- what each pattern communicates -----------------------------------------------------------

def test_ddp_one_bucketed_all_reduce_of_every_gradient(ranks):
    for r in runs(ranks, "DDP"):
        assert r["counts"] == {"backward:all_reduce": 1}
        assert r["torch_counts"] == {"c10d.allreduce_": 1}
        assert r["payload"] == PARAMS * FLOAT
        assert r["params"] == PARAMS
        assert r["rows"][1] - r["rows"][0] == BATCHES[0] // 2


def test_fsdp_shards_gathers_forward_reduce_scatters_backward(ranks):
    units = 3  # block 0, block 1, root
    r0, r1 = runs(ranks, "FSDP2")
    for r in (r0, r1):
        assert r["counts"]["forward:all_gather"] == units
        assert r["counts"]["backward:reduce_scatter"] == units
        assert r["counts"]["backward:all_gather"] == units - 1  # the root is not resharded after forward
        assert "optimizer:all_gather" not in r["counts"]
        assert r["placements"] == ["(Shard(dim=0),)"]
        assert sum(p for phase, kind, p in r["calls"] if kind == "reduce_scatter") == PARAMS * FLOAT
    assert r0["params"] + r1["params"] == PARAMS
    for name, (full, local) in r0["shards"].items():
        assert local[0] + r1["shards"][name][1][0] == full[0]
        assert local[1:] == full[1:]


def test_tensor_parallel_splits_columns_then_rows_with_one_all_reduce_per_block_and_pass(ranks):
    for batch in BATCHES:
        for r in runs(ranks, "TP", batch):
            assert r["counts"] == {"forward:all_reduce": 2, "backward:all_reduce": 2}
            assert r["torch_counts"] == {"c10d_functional.all_reduce": 4}
            assert {p for _, _, p in r["calls"]} == {batch * SEQ_LEN * D_MODEL * FLOAT}
    shards = runs(ranks, "TP")[0]["shards"]
    assert shards["fc.weight"] == [[4 * D_MODEL, D_MODEL], [2 * D_MODEL, D_MODEL], "S(0)"]
    assert shards["proj.weight"] == [[D_MODEL, 4 * D_MODEL], [D_MODEL, 2 * D_MODEL], "S(1)"]
    assert shards["proj.bias"][2] == "R"


def test_the_fused_qkv_projection_does_not_split_by_columns(ranks):
    # rank 0's 96 output columns are q and half of k: split(64) yields two pieces, not three
    assert runs(ranks, "TP")[0]["attention"] == "ValueError: not enough values to unpack (expected 3, got 2)"


@pytest.mark.parametrize("name", ["PP GPipe", "PP 1F1B"])
def test_pipeline_sends_activations_forward_and_gradients_back(ranks, name):
    microbatches = 4
    r0, r1 = runs(ranks, name)
    assert r0["counts"] == {"forward:send": microbatches, "backward:recv": microbatches}
    assert r1["counts"] == {"forward:recv": microbatches, "backward:send": microbatches}
    size = BATCHES[0] // microbatches * SEQ_LEN * D_MODEL * FLOAT
    assert {p for _, _, p in r0["calls"] + r1["calls"]} == {size}
    assert r0["params"] + r1["params"] == PARAMS


def test_pipeline_actions_follow_the_schedules(ranks):
    forward, backward = [f"F{i}" for i in range(4)], [f"B{i}" for i in range(4)]
    assert [r["actions"] for r in runs(ranks, "PP GPipe")] == [forward + backward] * 2
    r0, r1 = runs(ranks, "PP 1F1B")
    assert r0["actions"] == ["F0", "F1", "B0", "F2", "B1", "F3", "B2", "B3"]
    assert r1["actions"] == [a for pair in zip(forward, backward) for a in pair]
    assert r0["planned"] == r0["actions"]
    for r in runs(ranks, "PP GPipe"):
        assert r["planned"] == r["actions"]


def test_comm_debug_mode_and_the_meter_count_the_same_calls(ranks):
    for name in ("DDP", "FSDP2", "TP"):
        r = runs(ranks, name)[0]
        assert sum(r["torch_counts"].values()) == sum(r["counts"].values())


def test_bytes_follow_the_ring_formulas_and_the_batch(ranks):
    table = {row["pattern"]: row for row in rows(ranks)}
    assert table["DDP"]["sent"][BATCHES[0]] == ring_bytes_sent("all_reduce", PARAMS * FLOAT, 2)
    for name in ("DDP", "FSDP2"):
        assert table[name]["sent"][BATCHES[0]] == table[name]["sent"][BATCHES[1]]
    scale = BATCHES[1] // BATCHES[0]
    for name in ("TP", "PP GPipe", "PP 1F1B"):
        assert table[name]["sent"][BATCHES[1]] == scale * table[name]["sent"][BATCHES[0]]
    point = crossover(table["TP"], table["DDP"])
    assert BATCHES[0] < point < BATCHES[1]
    assert abs(4 * point * SEQ_LEN * D_MODEL * FLOAT - PARAMS * FLOAT) < 1  # 4 all-reduces of activations
    lines = verdicts(list(table.values()))
    assert "DDP gradients bitwise identical on every rank: True" in lines
    assert "fewest calls per step: DDP (1)" in lines
    assert "fewest parameters per rank: FSDP2" in lines


def test_ring_bytes():
    assert ring_bytes_sent("all_reduce", 1000, 2) == 1000
    assert ring_bytes_sent("all_reduce", 1000, 4) == 1500
    assert ring_bytes_sent("all_gather", 1000, 4) == 750
    assert ring_bytes_sent("reduce_scatter", 1000, 2) == 500
    assert (ring_bytes_sent("send", 10, 2), ring_bytes_sent("recv", 10, 2)) == (10, 0)


# --- the timeline -----------------------------------------------------------------------------

GPIPE = [["F0", "F1", "F2", "F3", "B0", "B1", "B2", "B3"]] * 2
ONE_F_ONE_B = [["F0", "F1", "B0", "F2", "B1", "F3", "B2", "B3"], ["F0", "B0", "F1", "B1", "F2", "B2", "F3", "B3"]]


@pytest.mark.parametrize("actions", [GPIPE, ONE_F_ONE_B])
def test_bubble_is_p_minus_one_ticks_per_rank(actions):
    stages, microbatches = 2, 4
    idle, total = idle_ticks(place(actions))
    assert total == 2 * (microbatches + stages - 1)
    for ticks in idle:  # the textbook bubble, (p-1)/(m+p-1) of the step, for both schedules
        assert ticks / total == (stages - 1) / (microbatches + stages - 1)


def test_one_f_one_b_holds_fewer_activations():
    assert [peak_in_flight(a) for a in GPIPE] == [4, 4]
    assert [peak_in_flight(a) for a in ONE_F_ONE_B] == [2, 1]


def test_timeline_respects_dependencies_and_marks_bubbles():
    placed = place(GPIPE)
    assert placed[1][1] == "F0" and 0 not in placed[1]  # stage 1 waits for stage 0's first forward
    assert min(t for t, a in placed[0].items() if a == "B0") > max(t for t, a in placed[1].items() if a == "B0")
    assert draw(GPIPE).splitlines()[1].split()[:7] == ["rank", "0", "F0", "F1", "F2", "F3", "··"]


def test_impossible_orders_are_reported():
    with pytest.raises(ValueError):
        place([["B0", "F0"], ["F0", "B0"]])


# --- the API names and CommDebugMode's limits -------------------------------------------------

def test_old_pipe_api_is_gone_and_the_new_names_exist():
    assert api_names.look_up("torch.distributed.pipeline.sync", "Pipe").startswith("ModuleNotFoundError")
    for module, name in api_names.NAMES:
        if module != "torch.distributed.pipeline.sync":
            assert api_names.look_up(module, name) in ("class", "function")


def test_comm_debug_mode_ignores_point_to_point():
    assert commdebug_limits.watches("allreduce_") and not commdebug_limits.watches("send")


# --- robustness: failures are reported, nothing is left running ----------------------------------

def test_a_crashing_rank_is_named_and_every_rank_stopped():
    error, started, left = faults.provoke(faults.crash_rank, timeout=120)
    assert isinstance(error, RankFailed)
    assert error.errors[1] == "ValueError: rank 1 fails on purpose"
    assert (started, left) == (2, 0)
    # the error keeps its traceback, and with it the launcher's frame, but not the store's server thread
    assert error.__traceback__ is not None and "pt_tcpstore_uv" not in launch.named_threads()


def test_no_rank_is_forked_beside_a_store_server_thread():
    listener = socket.create_server(("127.0.0.1", 0))
    store = dist.TCPStore("127.0.0.1", listener.getsockname()[1], 1, is_master=True, wait_for_workers=False,
                          master_listen_fd=listener.detach())
    assert "pt_tcpstore_uv" in launch.named_threads() and not launch.may_fork("gloo")
    del store  # its server thread is joined as it goes
    assert "pt_tcpstore_uv" not in launch.named_threads()


def test_a_hanging_rank_is_killed_at_the_deadline():
    start = time.monotonic()
    error, started, left = faults.provoke(faults.hang_rank, timeout=15)
    assert "ran past 15 s" in str(error)
    assert error.errors[0].startswith("stuck in barrier (torch/distributed/distributed_c10d.py:")
    assert error.errors[1].startswith("stuck in hang_rank (snippets/phase25/distributed/faults.py:")
    assert left == 0
    assert time.monotonic() - start < 60


def test_ranks_die_with_their_launcher(root):
    """Kill the launcher with SIGKILL (no cleanup code runs): the ranks must go too."""
    with tempfile.TemporaryDirectory() as folder:
        code = ("from snippets.phase25.distributed import faults, launch;"
                f"launch.run_ranks(faults.hang_rank, timeout=600, folder={folder!r})")
        launcher = subprocess.Popen([sys.executable, "-c", code], cwd=root,
                                    env={**os.environ, "PYTHONPATH": str(root)})
        try:
            deadline = time.monotonic() + 120
            while len(list(Path(folder).glob("*.pid"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            pids = [int(p.stem) for p in Path(folder).glob("*.pid")]
            assert len(pids) == 2
        finally:
            os.kill(launcher.pid, signal.SIGKILL)
            launcher.wait()
        deadline = time.monotonic() + 10
        while any(faults.alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(faults.alive(pid) for pid in pids)


def rank_main_module(device) -> dict:
    """A rank's __main__ module: the launcher's (`python -c`: none) when forked, the worker's when spawned."""
    return {"main": getattr(sys.modules["__main__"].__spec__, "name", None)}


def test_ranks_are_forks_while_no_other_thread_runs_and_fresh_interpreters_otherwise(root):
    code = ("import json, threading; from snippets.phase25.distributed.launch import run_ranks;"
            "from tests.phase25.test_distributed import rank_main_module as f; forked = run_ranks(f);"
            "threading.Thread(target=threading.Event().wait, daemon=True).start();"
            "print(json.dumps([forked, run_ranks(f)]))")
    run = subprocess.run([sys.executable, "-c", code], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                         capture_output=True, text=True, timeout=120, check=True)
    forked, spawned = json.loads(run.stdout.splitlines()[-1])
    assert [r["main"] for r in forked] == [None, None]
    assert [r["main"] for r in spawned] == ["snippets.phase25.distributed.worker"] * 2


# --- the deliverable -------------------------------------------------------------------------------

def test_deliverable_writes_the_survey(ranks, tmp_path):
    out = deliverable.write_experiment(tmp_path / "25-distributed", rows(ranks))
    assert sorted(p.name for p in out.iterdir()) == ["DISTRIBUTED.md", "distributed.json", "manifest.json"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"torch", "seed", "timestamp", "code_hash"} <= manifest.keys()
    text = (out / "DISTRIBUTED.md").read_text()
    sections = text.split("\n## ")[1:]
    assert len(sections) == len(deliverable.PATTERNS) + 2  # four patterns, the measurements, the pick
    for section, name in zip(sections, deliverable.PATTERNS):
        body = " ".join(section.split("\n", 1)[1].split())
        assert section.startswith(name) and body.count(". ") + body.endswith(".") == 2  # two sentences
    assert [row["pattern"] for row in json.loads((out / "distributed.json").read_text())] == list(PATTERNS)
    assert "fewest calls per step: DDP (1)" in text and sections[-1].startswith("Which would I pick")


# --- the traffic diagram ---------------------------------------------------------------------------

def test_the_diagram_draws_every_measured_call_and_agrees_with_the_table(ranks):
    measured = {(name, rank): ranks[rank][f"{name} @{traffic.BATCH}"]["calls"] for name, rank in traffic.ROWS}
    svg = traffic.svg(measured)
    assert 'role="img"' in svg and 'aria-describedby="traffic-diagram-text"' in svg and "<title>" in svg
    assert "\n\n" not in svg.strip()  # one block: the renderer splits raw output at blank lines
    chips = sum(svg.count(f'height="14" fill="{colour}"') for colour in traffic.COLOURS.values())
    assert chips == sum(len(calls) for calls in measured.values()) + len(traffic.COLOURS)  # and the legend
    tables = {key: traffic.traffic(calls) for key, calls in measured.items()}
    assert tables[("DDP", 0)] == {"forward": {}, "backward": {"all_reduce": [1, PARAMS * FLOAT]}, "optimizer": {}}
    assert tables[("FSDP2", 0)]["forward"]["all_gather"][0] == 3
    assert tables[("TP", 0)]["backward"] == {"all_reduce": [2, 2 * traffic.BATCH * SEQ_LEN * D_MODEL * FLOAT]}
    assert tables[("PP GPipe", 0)]["forward"]["send"][0] == tables[("PP GPipe", 1)]["backward"]["send"][0] == 4
    sent = {key: sum(s for kinds in t.values() for _, s in kinds.values()) for key, t in tables.items()}
    for row in rows(ranks):
        if row["pattern"] in {name for name, _ in traffic.ROWS}:
            assert row["sent"][traffic.BATCH] == max(v for (name, _), v in sent.items() if name == row["pattern"])


# --- the exercises -----------------------------------------------------------------------------------

def test_smaller_buckets_cut_the_same_bytes_into_several_all_reduces():
    r = run_ranks(exercises.ddp_buckets_rank, bucket_cap_mb=exercises.BUCKET_MB)[0]
    sizes = [payload for _, _, payload in r["calls"]]
    cap = exercises.BUCKET_MB * 2**20
    assert r["counts"] == {"backward:all_reduce": len(sizes)} and len(sizes) > 1
    assert sum(sizes) == PARAMS * FLOAT
    assert all(size > cap for size in sizes[:-1]) and sizes[-1] <= cap  # a bucket closes past the cap


def test_keeping_blocks_gathered_drops_the_backward_all_gathers():
    r = run_ranks(exercises.both_reshard_settings_rank)[0]
    assert r["True"]["counts"]["backward:all_gather"] == 2
    assert "backward:all_gather" not in r["False"]["counts"]
    assert r["False"]["counts"]["forward:all_gather"] == r["False"]["counts"]["backward:reduce_scatter"] == 3
    assert r["False"]["sent"] == ring_bytes_sent("all_reduce", PARAMS * FLOAT, 2) < r["True"]["sent"]


def test_more_microbatches_shrink_the_bubble_not_the_bytes():
    microbatches, stages = 8, 2
    ranks = run_ranks(pp_both_rank, microbatches=microbatches)
    for name in ("GPipe", "1F1B"):
        actions = [r[name]["actions"] for r in ranks]
        idle, total = idle_ticks(place(actions))
        assert all(ticks / total == (stages - 1) / (microbatches + stages - 1) for ticks in idle)
        size = BATCHES[0] // microbatches * SEQ_LEN * D_MODEL * FLOAT
        assert [c for c in ranks[0][name]["calls"] if c[1] == "send"] == [["forward", "send", size]] * microbatches
    assert [peak_in_flight(r["GPipe"]["actions"]) for r in ranks] == [microbatches] * 2
    assert max(peak_in_flight(r["1F1B"]["actions"]) for r in ranks) == stages


def test_the_crossover_by_hand_is_the_measured_one(ranks, capsys):
    exercises.crossover_by_hand()
    lines = capsys.readouterr().out.splitlines()
    table = {row["pattern"]: row for row in rows(ranks)}
    measured = f"{crossover(table['TP'], table['DDP']):.1f}"
    assert lines[2].endswith(f"= {measured}")
    assert [line.split("equal at ")[1] for line in lines[3:]] == [f"{measured} sequences"] * 3


# --- the page ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["03-distributed-survey.md", "03-distributed-survey.es.md"])
def test_the_page_has_no_paragraph_over_the_limit(root, name):
    assert long_paragraphs((root / "docs" / "phase-25" / "lab" / name).read_text(encoding="utf-8")) == []
