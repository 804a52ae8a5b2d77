"""The distributed survey: every pattern trains one step on 2 gloo ranks started by torchrun; counts,
bytes, gradients; failures as torchrun reports them; no process outlives a demo or a test."""

import ast
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from multiprocessing import resource_tracker
from pathlib import Path

import pytest

from snippets.phase25.distributed import (api_names, cluster, commdebug_limits, compare, ddp, deliverable, exercises,
                                          faults, nodes, torchrun, traffic)
from snippets.phase25.distributed.comm import ring_bytes_sent
from snippets.phase25.distributed.compare import BATCHES, PATTERNS, crossover, rows, verdicts
from snippets.phase25.distributed.model import D_MODEL, SEQ_LEN, build_model
from snippets.phase25.distributed.timeline import draw, idle_ticks, peak_in_flight, place
from tests.deliverables import validated
from tests.test_readable import long_paragraphs

FLOAT = 4
TOLERANCE = 1e-6
PARAMS = sum(p.numel() for p in build_model().parameters())
TAG = "NMB_DEMO_TAG"  # set in the environment torchrun starts from by a test; the agent and every rank inherit it


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def tagged(tag: str) -> list[int]:
    """Processes still running (zombies aside) whose environment carries `tag`: torchrun's agent and ranks."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"{TAG}={tag}".encode() in (proc / "environ").read_bytes().split(b"\0") \
                    and alive(int(proc.name)) and int(proc.name) != os.getpid():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def gone(tag: str, seconds: float = 10) -> bool:
    """Whether every process carrying `tag` is gone within `seconds` (a killed process takes a moment)."""
    return survivors(tag, seconds) == []


def survivors(tag: str, seconds: float = 10) -> list[str]:
    """The command lines of the processes carrying `tag` still running after `seconds`."""
    deadline = time.monotonic() + seconds
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = []
    for pid in tagged(tag):
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip())
        except OSError:
            continue
    return lines


def run_tagged(function, *args, **kwargs):
    """`function(*args, **kwargs)` (one of torchrun's) with a tag in the environment; (its result, the
    command lines of the processes that carried the tag and still run afterwards). Where a thread runs in
    this process, the agent is spawned, and multiprocessing starts its resource tracker, which serves this
    process for as long as it lives: it is started before the tag is set, so it does not carry it."""
    resource_tracker.ensure_running()
    tag = uuid.uuid4().hex
    os.environ[TAG] = tag
    try:
        result = function(*args, **kwargs)
    finally:
        del os.environ[TAG]
    return result, survivors(tag)


@pytest.fixture(scope="module")
def compared():
    """The command the page shows, run once: every pattern at every batch size on 2 ranks:
    (the output, every rank's results, the processes it started that still run)."""
    (output, results), left = run_tagged(torchrun.measure, compare.__name__)
    return output, results, left


@pytest.fixture(scope="module")
def ranks(compared):
    return compared[1]


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


# --- robustness: failures as torchrun reports them, nothing left running -------------------------

def test_the_page_runs_the_learners_command(compared):
    assert compared[0].startswith("$ torchrun --standalone --nproc-per-node=2 -m snippets.phase25.distributed.compare")
    assert "(started by torchrun: 1 node x 2 processes per node)" in compared[0]
    assert "fewest calls per step: DDP (1)" in compared[0]
    assert "Warning" not in compared[0]  # the ranks' stderr reaches the page: no pattern warns there


def test_no_snippet_starts_ranks_but_through_torchrun(root):
    """No snippet of the survey starts a process of its own (no Popen, no fork, no spawn), but torchrun.py,
    which starts torchrun's agent, `torch.distributed.run.main`, in a child process."""
    for path in sorted((root / "snippets/phase25/distributed").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        names = {getattr(node.func, "attr", getattr(node.func, "id", None))
                 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)}
        starts = names & {"Popen", "spawn", "start_processes", "fork", "Process", "system", "run_ranks"}
        assert "Popen" not in source and (not starts or path.name == "torchrun.py"), f"{path.name} starts {starts}"
    assert not (root / "snippets/phase25/distributed/launch.py").exists()
    assert not (root / "snippets/phase25/distributed/worker.py").exists()
    assert "torch_distributed_run.main(arguments)" in (root / "snippets/phase25/distributed/torchrun.py").read_text()


def test_the_agent_is_a_fork_while_no_other_thread_runs(root):
    code = ("import threading; from snippets.phase25.distributed.torchrun import may_fork; alone = may_fork();"
            "threading.Thread(target=threading.Event().wait, daemon=True).start(); print(alone, may_fork())")
    run = subprocess.run([sys.executable, "-c", code], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                         capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.split() == ["True", "False"]


def test_a_rank_that_raises_is_the_root_cause_and_the_other_is_stopped():
    output, left = run_tagged(torchrun.run, torchrun.standalone(faults.__name__, "crash"))
    report = output.split("Root Cause (first observed failure):")[1]
    assert "rank      : 1 (local_rank: 1)" in report and "ValueError: rank 1 fails on purpose" in report
    assert "Sending process <pid of rank 0> closing signal SIGTERM" in output
    assert 'File "snippets/phase25/distributed/faults.py", line' in output.split("closing signal SIGTERM")[1]
    error_file = json.loads(output.split("The error file torchrun left in TORCHELASTIC_ERROR_FILE:")[1])
    assert error_file["message"]["message"] == "ValueError: rank 1 fails on purpose"
    assert left == []


def test_a_hang_ends_with_the_group_timeout_and_shows_where_each_rank_was():
    start = time.monotonic()
    output, left = run_tagged(torchrun.run, torchrun.standalone(faults.__name__, "hang"))
    root_cause = output.split("Root Cause (first observed failure):")[1]
    assert "rank      : 0 (local_rank: 0)" in root_cause and "dist.barrier()" in root_cause
    assert f"Timed out waiting {faults.GROUP_TIMEOUT * 1000}ms" in root_cause
    stack = output.split("Sending process <pid of rank 1> closing signal SIGTERM")[1].split("\nE ")[0]
    assert "in hang" in stack
    assert left == []
    assert time.monotonic() - start < 120


def stalling(folder: Path, timeout: float = 120) -> None:
    """Wait until both ranks of `faults stall` are stalling (each says so in the agent's log under `folder`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        logs = list(folder.rglob("torchrun.log"))
        if logs and logs[0].read_text(errors="replace").count(" stalls") == 2:
            return
        time.sleep(0.2)
    raise TimeoutError(f"the ranks did not stall within {timeout} s")


def test_the_deadline_stops_torchrun_which_stops_every_rank_and_shows_where_it_was(tmp_path):
    def stall_past_the_deadline():
        # --tee=3: each rank writes to a file of its own, which the agent prints line by line under the rank's
        # prefix, so the two ranks' dumps, written at the same moment a few characters at a time, stay apart
        process = torchrun.start(["--tee=3", *torchrun.standalone(faults.__name__, "stall")], tmp_path)
        stalling(tmp_path)
        return torchrun.tidy(torchrun.finish(process, tmp_path, deadline=0))

    output, left = run_tagged(stall_past_the_deadline)
    assert "(torchrun stopped by the 0 s deadline, exit code 1)" in output
    assert output.count("Sending process <pid of a rank> closing signal SIGTERM") == 2
    for rank in (0, 1):  # faulthandler: where each rank was when the agent passed SIGTERM on
        assert re.search(rf'^\[default{rank}\]:  File "snippets/phase25/distributed/faults.py", line \d+ in stall$',
                         output, re.M), output
    assert "SignalException: Process <pid of the agent> got signal: 15" in output
    assert left == []


def test_no_process_outlives_a_demo_killed_with_sigkill(root, tmp_path):
    """The demo's process dies without cleaning up (the build's snippet timeout kills it so): the agent and
    the ranks go with it. A thread runs in the demo's process, so the agent is a fresh interpreter."""
    tag = uuid.uuid4().hex
    code = ("import threading; from snippets.phase25.distributed import faults, torchrun;"
            "threading.Thread(target=threading.Event().wait, daemon=True).start();"
            "torchrun.run(torchrun.standalone(faults.__name__, 'stall'))")
    demo = subprocess.Popen([sys.executable, "-c", code], cwd=root,
                            env={**os.environ, "PYTHONPATH": str(root), "TMPDIR": str(tmp_path), TAG: tag})
    try:
        stalling(tmp_path)
        assert len(tagged(tag)) >= 4  # the demo, the agent, two ranks (and multiprocessing's resource tracker)
    finally:
        os.kill(demo.pid, signal.SIGKILL)
        demo.wait()
    assert gone(tag)


def test_no_process_survives_the_patterns(compared):
    assert compared[2] == []


def test_two_nodes_give_the_single_node_gradients():
    (command, outputs), left = run_tagged(nodes.two_nodes, nodes.free_port())
    report = next(output for output in outputs if "gradient digest" in output)
    assert "rank 1 (node 1, local rank 0)" in report and "DDP on 2 ranks (2 nodes)" in report
    assert len(nodes.digests(report)) == 1
    assert all("It will be ignored for rdzv_backend=c10d." in output for output in outputs)  # --node-rank
    assert left == []
    slurm = torchrun.multinode(ddp.__name__, nnodes=2, **nodes.CLUSTER)
    assert nodes.changes(command, slurm) == (["--nproc-per-node", "--rdzv-endpoint", "--rdzv-id"], ["--node-rank"])


def test_more_hosts_change_only_the_node_count():
    two, more = cluster.on_hosts(2), cluster.on_hosts(cluster.HOSTS)
    assert nodes.changes(two, more) == (["--nnodes"], [])
    assert more == torchrun.multinode(ddp.__name__, nnodes=cluster.HOSTS, **nodes.CLUSTER)


def test_tidy_masks_what_changes_between_runs():
    raw = ("W1124 12:58:24.785000 11478 /x/lib/python3.11/site-packages/torch/distributed/api.py:1028] "
           "Sending process 11574 closing signal SIGTERM\n"
           "  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 11574)  (SIGTERM)\n"
           "  time      : 2026-11-24_12:58:24\n  error_file: /tmp/torchelastic_ab/c-d_e/attempt_0/1/error.json\n"
           '      "timestamp": "1795849178"\n')
    assert torchrun.tidy(raw).splitlines() == [
        "W torch/distributed/api.py:1028] Sending process <pid of rank 1> closing signal SIGTERM",
        "  rank      : 1 (local_rank: 1)", "  exitcode  : -15 (pid: <pid of rank 1>)  (SIGTERM)",
        "  time      : <time>", "  error_file: <tmp>/attempt_0/1/error.json", '      "timestamp": "<time>"']


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
    validated("phase25/distributed", out, tmp_path,
              ("distributed.json", "", None, "/distributed.json is missing"),
              ("DISTRIBUTED.md", r"^## Which would I pick", lambda m: "## My pick", 'has no section "## Which would I pick..."'),
              ("DISTRIBUTED.md", r"^DDP +[\d,]+", lambda m: m.group(0) + "9",
               "DISTRIBUTED.md's Measured row for DDP does not show its parameters per rank"))


# --- the traffic diagram ---------------------------------------------------------------------------

def test_the_diagram_draws_every_measured_call_and_agrees_with_the_table(ranks):
    measured = {(name, rank): ranks[rank][f"{name} @{traffic.BATCH}"]["calls"] for name, rank in traffic.ROWS}
    svg = traffic.svg(measured, "en")
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

def exercise(case: str) -> list[dict]:
    """Every rank's results of `torchrun ... -m snippets.phase25.distributed.exercises CASE`."""
    return torchrun.measure(exercises.__name__, case)[1]


def test_smaller_buckets_cut_the_same_bytes_into_several_all_reduces():
    r = exercise("buckets")[0]
    sizes = [payload for _, _, payload in r["calls"]]
    cap = exercises.BUCKET_MB * 2**20
    assert r["counts"] == {"backward:all_reduce": len(sizes)} and len(sizes) > 1
    assert sum(sizes) == PARAMS * FLOAT
    assert all(size > cap for size in sizes[:-1]) and sizes[-1] <= cap  # a bucket closes past the cap


def test_keeping_blocks_gathered_drops_the_backward_all_gathers():
    r = exercise("no-reshard")[0]
    assert r["True"]["counts"]["backward:all_gather"] == 2
    assert "backward:all_gather" not in r["False"]["counts"]
    assert r["False"]["counts"]["forward:all_gather"] == r["False"]["counts"]["backward:reduce_scatter"] == 3
    assert r["False"]["sent"] == ring_bytes_sent("all_reduce", PARAMS * FLOAT, 2) < r["True"]["sent"]


def test_more_microbatches_shrink_the_bubble_not_the_bytes():
    microbatches, stages = exercises.MICROBATCHES, 2
    ranks = exercise("microbatches")
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

@pytest.mark.parametrize("name", ["03-distributed-survey.md", "03-distributed-survey.es.md",
                                  "03-running-torchrun.md", "03-running-torchrun.es.md"])
def test_the_page_has_no_paragraph_over_the_limit(root, name):
    assert long_paragraphs((root / "docs" / "phase-25" / "lab" / name).read_text(encoding="utf-8")) == []
