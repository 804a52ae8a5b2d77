"""Part B: where Inductor's output really goes, and why TORCH_LOGS must be set before torch is imported."""

import getpass
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch._inductor.runtime.cache_dir_utils import cache_dir, default_cache_dir

from snippets.phase25.theory03.readable import ROOT, captured_logs, tidy
from snippets.phase25.theory03.tiny_head import model_and_input

ISOLATE = True
TIMEOUT = 180
RUN_DIR = re.compile(r"run_\d{4}(?:_\d+)+-pid_\d+")
TRACE_LOG = re.compile(r"torch_trace_\w+\.log")
FUSED_NODE = re.compile(r"^(op\w+): (\w+)\(", re.MULTILINE)
WRITE = re.compile(r"MemoryDep\('(buf\d+)', c0, \{c0: (\d+)\}\)|StarDep\(name='(buf\d+)'")
LOG_PREFIX = re.compile(r"^[VIWE]\d{4} [\d:.]+ \d+ \S+:\d+\] ")


def compile_once():
    """Compile and run TinyHead once: what the child process below does, with the environment it is given."""
    model, x = model_and_input()
    with torch.no_grad():
        torch.compile(model)(x)


def debug_run(workdir: Path) -> dict:
    """Run compile_once in a fresh Python with TORCH_COMPILE_DEBUG=1 and TORCH_LOGS=output_code set
    before torch is imported, and Inductor's graph cache off (a cache hit compiles nothing, so it dumps
    nothing). Returns the files under ./torch_compile_debug, the stderr lines and ir_post_fusion.txt."""
    env = dict(os.environ, TORCH_COMPILE_DEBUG="1", TORCH_LOGS="output_code", TORCHINDUCTOR_FX_GRAPH_CACHE="0",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-c", "from snippets.phase25.lab03.part_b_dump import compile_once; compile_once()"]
    run = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=150, check=True)
    paths = [p for p in (workdir / "torch_compile_debug").rglob("*") if p.is_file()]
    names = (TRACE_LOG.sub("torch_trace_<random>.log", RUN_DIR.sub("run_<timestamp>-pid_<pid>", str(p.relative_to(workdir))))
             for p in paths)
    fusion = next(p for p in paths if p.name == "ir_post_fusion.txt").read_text(encoding="utf-8")
    return {"files": sorted(names), "stderr": run.stderr.splitlines(), "post_fusion": fusion}


def fused_nodes(post_fusion: str) -> list[tuple[str, str, list[str]]]:
    """(node, kind, buffers it writes) for each top-level node of ir_post_fusion.txt."""
    nodes = []
    for match in FUSED_NODE.finditer(post_fusion):
        name, kind = match.groups()
        if any(name in outer.split("_") for outer, _, _ in nodes):
            continue  # a node already listed inside a fused one
        block = post_fusion[match.end():].split(f"{name}.unmet_dependencies")[0]
        writes = [f"{buf} ({n} elements)" if buf else f"{star} (whole buffer)" for buf, n, star in WRITE.findall(block)]
        nodes.append((name, kind, writes))
    return nodes


def logs_after_import() -> dict[str, str]:
    """In this process torch is already imported: TORCH_LOGS set now does nothing, set_logs does."""
    model, x = model_and_input()
    os.environ["TORCH_LOGS"] = "output_code"
    enabled = torch._logging._internal.log_state.is_artifact_enabled("output_code")
    del os.environ["TORCH_LOGS"]  # set_logs refuses to run while the variable is set
    torch._dynamo.reset()
    with captured_logs("output_code") as records, torch.no_grad():
        torch.compile(model)(x)
    return {"os.environ['TORCH_LOGS'] = 'output_code'": f"output_code enabled: {enabled}",
            "torch._logging.set_logs(output_code=True)": f"{len(records)} output_code record(s) from a compile"}


def main():
    print("Inductor's cache, where compiled code is kept between runs:")
    print(f"  default:    {default_cache_dir().replace(getpass.getuser(), '<user>')}")
    moved = "set" if "TORCHINDUCTOR_CACHE_DIR" in os.environ else "not set"
    print(f"  this build: {tidy(cache_dir())}  (TORCHINDUCTOR_CACHE_DIR {moved})")
    with tempfile.TemporaryDirectory() as tmp:
        run = debug_run(Path(tmp))
    print("\nTORCH_COMPILE_DEBUG=1 wrote, under the current directory:")
    for name in run["files"]:
        print("  ", name)
    print("\nthe scheduler nodes in ir_post_fusion.txt and the buffers each writes:")
    for name, kind, writes in fused_nodes(run["post_fusion"]):
        print(f"   {name}: {kind} writes {', '.join(writes)}")
    code_lines = [LOG_PREFIX.sub("", line) for line in run["stderr"] if "[__output_code]" in line]
    print(f"\nTORCH_LOGS=output_code wrote {len(code_lines)} lines to stderr, each prefixed with a level, "
          "timestamp, PID and source line (stripped here); the first and the last:")
    for line in code_lines[:1] + code_lines[-1:]:
        print("  ", tidy(line))
    print("\nIn a process that has already imported torch:")
    for how, effect in logs_after_import().items():
        print(f"  {how}: {effect}")


def claim_cache_is_not_the_dump(main):
    """#part-b: /tmp/torchinductor_<user>/ is the compile cache; TORCHINDUCTOR_CACHE_DIR moves it into
    .cache/inductor/, and the last output_code log line names the file written inside it."""
    return ("default:    /tmp/torchinductor_<user>" in main and "this build: .cache/inductor" in main
            and "Output code written to: .cache/inductor/" in main.lines[main.lines.index(next(
                line for line in main.lines if "the first and the last" in line)) + 2])


def claim_dump_contents(main):
    """#part-b: TORCH_COMPILE_DEBUG=1 writes ./torch_compile_debug/, one run_<timestamp>-pid_<pid>/ folder, with
    Dynamo's debug log, fx_graph_readable.py, fx_graph_runnable.py, the IR before and after fusion and
    output_code.py under model__0_inference_0.0/."""
    files = [line.strip() for line in main.lines if line.strip().startswith("torch_compile_debug/run_<timestamp>-pid_<pid>/")]
    names = ("torchdynamo/debug.log", "model__0_inference_0.0/fx_graph_readable.py",
             "model__0_inference_0.0/fx_graph_runnable.py", "model__0_inference_0.0/ir_pre_fusion.txt",
             "model__0_inference_0.0/ir_post_fusion.txt", "model__0_inference_0.0/output_code.py")
    return all(any(f.endswith(name) for f in files) for name in names)


def claim_fusion_decision(main):
    """#part-b: op0 is the addmm, an extern kernel; op1_op2_op3_op4 writes buf1 (2), buf2 (1200), buf3 (2) and
    buf4 (1200)."""
    return ("op0: ExternKernelSchedulerNode writes buf0" in main and main.line("op1_op2_op3_op4").endswith(
        ": OuterLoopFusedSchedulerNode writes buf1 (2 elements), buf2 (1200 elements), buf3 (2 elements), "
        "buf4 (1200 elements)"))


def claim_logs_after_import(main):
    """#part-b: TORCH_LOGS set with os.environ after import enables nothing; set_logs works; TORCH_LOGS in a new
    process logs the module to stderr."""
    return (main.line("os.environ['TORCH_LOGS']").endswith("output_code enabled: False")
            and main.number("set_logs(output_code=True):") > 0 and main.number("TORCH_LOGS=output_code wrote") > 0)


def claim_torch_version(main):
    """#lab-03: three common expectations do not hold in torch 2.13 (the CPU outputs on this page come from torch 2.13)."""
    return main.versions["torch"].startswith("2.13")
