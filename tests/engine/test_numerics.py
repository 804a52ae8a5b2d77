"""The pinned numerical environment: what a build's calls and children run under, and where it is refused."""

import json
import subprocess
import sys

import pytest

from engine.source import numerics
from engine.run.execute import Executor, build_environment
from engine.run.runner import child_env, run_in_subprocess
from tests.engine.sandbox import Sandbox

PROBE = ("import json, os, torch; print(json.dumps({'aten': torch.backends.cpu.get_cpu_capability(), "
         "'threads': torch.get_num_threads(), 'mkl_cbwr': os.environ.get('MKL_CBWR'), "
         "'gpus': os.environ.get('CUDA_VISIBLE_DEVICES'), 'cuda': torch.cuda.is_available()}))")


@pytest.mark.parametrize("exported", numerics.capabilities())
def test_a_child_runs_the_pinned_kernels_whatever_level_was_exported(root, exported):
    environ = {**child_env(root), "ATEN_CPU_CAPABILITY": exported}
    numerics.pin(environ)
    seen = json.loads(subprocess.run([sys.executable, "-c", PROBE], env=environ, capture_output=True, text=True,
                                     check=True).stdout)
    assert seen == {"aten": "AVX2", "threads": 2, "mkl_cbwr": "COMPATIBLE", "gpus": "", "cuda": False}


def test_a_call_that_reads_a_clock_keeps_the_pins_but_mkls_slow_branch():
    timed = numerics.timed_environment({**numerics.PINNED, "HOME": "/x"})
    assert "MKL_CBWR" not in timed and timed["ATEN_CPU_CAPABILITY"] == "avx2" and timed["HOME"] == "/x"


def test_the_cache_key_and_the_label_carry_the_pins(tmp_path):
    box = Sandbox(tmp_path)
    path = box.snippet("s.py", "def main():\n    print(1)\n")
    executor = Executor(tmp_path, tmp_path / ".cache")
    assert build_environment()["kernels"] == "x86-64 AVX2"
    assert "ATEN_CPU_CAPABILITY=avx2" in build_environment()["numerics"]
    key = executor.key(path, "main")
    executor.environment = {**executor.environment, "numerics": "ATEN_CPU_CAPABILITY=avx512"}
    assert executor.key(path, "main") != key  # a cache made under other pins is never read


@pytest.mark.parametrize("machine, flags, expected", [
    ("x86_64", {"avx2", "fma", "sse2"}, None),
    ("x86_64", {"sse2", "avx"}, "lacks avx2, fma"),
    ("aarch64", {"asimd"}, "this machine is aarch64"),
])
def test_a_machine_the_outputs_cannot_hold_on_is_named(machine, flags, expected):
    reason = numerics.unsupported(machine, flags)
    assert reason is None if expected is None else expected in reason


def test_capability_levels_follow_the_cpu_flags():
    assert numerics.capabilities({"sse2"}) == ["default"]
    assert numerics.capabilities({"avx2", "fma"}) == ["default", "avx2"]
    assert numerics.capabilities({"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"})[-1] == "avx512"


def test_the_most_sensitive_output_is_byte_identical_whatever_level_was_exported(root):
    """Lab 01's float32 sweep changes with ATen's kernel level (its page shows how): under the pins a build
    prints the same table whatever level the person building exported."""
    outputs = set()
    for exported in numerics.capabilities():
        environ = {**child_env(root), "ATEN_CPU_CAPABILITY": exported}
        numerics.pin(environ)
        result = run_in_subprocess(root, "snippets.phase25.lab01.float32_error", "main", 120, environ)
        assert result.ok, result.error
        outputs.add(result.output)
    assert len(outputs) == 1
