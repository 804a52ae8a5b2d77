"""One validator per lab deliverable: a function of (Folder, Code) that raises Wrong with what is off."""

from __future__ import annotations

import re
import zipfile

from workbench.folder import Folder, number, same, table
from workbench.grade import Wrong, agree


def _close(what: str, cell: str, value: float, digits: int = 3) -> None:
    """A table's cell against the value recomputed, to the digits the cell is written with."""
    try:
        found = float(cell)
    except ValueError:
        raise Wrong(f"{what} is {cell!r}, expected a number near {value:.{digits - 1}e}") from None
    agree(what, found, float(value), atol=1e-300, rtol=10 ** (1 - digits))


def _heading_numbers(folder: Folder, name: str, manifest: dict) -> None:
    """The report's first lines name the torch version and seed of manifest.json."""
    head = folder.text(name)[:300]
    if (torch := re.search(r"torch (\d\S*?),? ", head)) is not None:
        same(f"the torch version {name} names", torch.group(1), manifest["torch"], "manifest.json's torch")
    if "seed" in head:
        same(f"the seed {name} names", int(number(head, "seed", name)), manifest["seed"], "manifest.json's seed")


def hello_cuda(folder: Folder, code) -> None:
    checks = folder.json("checks.json")
    if not isinstance(checks, list) or not all(isinstance(c, dict) and {"name", "ok", "detail", "fix"} <= c.keys()
                                                for c in checks):
        raise Wrong("checks.json should be a list with one entry per check, each with name, ok, detail and fix")
    by_name = {check["name"]: check for check in checks}
    runs_kernel = by_name.get("triton", {}).get("ok") and by_name.get("device", {}).get("ok")
    for name in ("torch", "triton", "C++ compiler", "device", "tensor op", "torch.compile") + (
            ("Triton kernel",) if runs_kernel else ()):
        if name not in by_name:
            raise Wrong(f"checks.json has no entry for the check {name!r}")
    for check in checks:
        if not check["ok"] and not check["fix"]:
            raise Wrong(f"checks.json's failed check {check['name']!r} has an empty fix: say what to do about it")
    manifest = folder.manifest("all_checks_passed")
    same("manifest.json's all_checks_passed", manifest["all_checks_passed"], all(c["ok"] for c in checks),
         "whether every entry of checks.json is ok")
    same("the torch version in checks.json", by_name["torch"]["detail"].split(" ")[0], manifest["torch"],
         "manifest.json's torch")
    recomputed, whose = code("phase24/lab00/hello_cuda.py", "check_tensor_op")
    same("the product checks.json's tensor op shows", by_name["tensor op"]["detail"].rpartition("= ")[2],
         recomputed.detail.rpartition("= ")[2], whose)


def dispatcher_trace(folder: Folder, code) -> None:
    manifest = folder.manifest()
    _heading_numbers(folder, "REPORT.md", manifest)
    log = folder.text("trace.log")
    blocks = {block.split("\n")[0].removeprefix("# "): block.split("\n")[1:] for block in log.strip().split("\n\n")}
    calls, whose = code("phase25/lab00/part_d_addmm.py", "comparisons")
    for call, ops in calls.items():
        same(f"trace.log's block \"# {call}\"", blocks.get(call, "missing"), ops, whose)
    traces, whose = code("phase25/lab00/part_c_trace.py", "traces")
    section = folder.section("REPORT.md", "Traces")
    for layer, ops in traces.items():
        line = next((l for l in section.splitlines() if l.startswith(f"- {layer}:")), f"no line for {layer}")
        same(f"REPORT.md's trace at {layer}", re.findall(r"`([^`]+)`", line), ops, whose)
    for line in folder.section("REPORT.md", "Direct calls").strip().splitlines():
        parsed = re.match(r"- `(.+)`: (\d+) op\(s\): (.*)", line)
        if parsed is None:
            raise Wrong(f"REPORT.md's Direct calls line {line!r} should read \"- `call`: N op(s): op, op\"")
        call, count, ops = parsed.groups()
        same(f"the ops REPORT.md lists for {call}", ops.split(", "), blocks.get(call), "trace.log's block")
        same(f"the op count REPORT.md gives for {call}", int(count), len(ops.split(", ")), "the ops it lists")
    keys, whose = code("phase25/lab00/part_b_key_sets.py", "key_sets")
    section = folder.section("REPORT.md", "Dispatch key sets")
    for tensor, key_set in keys.items():
        found = re.search(rf"^- {re.escape(tensor)}: `(.*)`$", section, re.MULTILINE)
        same(f"REPORT.md's key set of {tensor}", found and found.group(1), key_set, whose)
    profiler = table(folder.section("REPORT.md", "Profiler"), "REPORT.md's Profiler")
    rows = {(row["op"], row["input shapes"]) for row in profiler}
    for op, shapes in (("`aten::linear`", "`[[2, 64], [600, 64], [600]]`"), ("`aten::addmm`", None),
                       ("`AddmmBackward0`", None)):
        if not any(o == op and shapes in (None, s) for o, s in rows):
            raise Wrong(f"REPORT.md's Profiler table has no row {op}"
                        + (f" with the input shapes {shapes}" if shapes else ""))
    reading = folder.section("REPORT.md", "Interpretation")
    if not ("autograd" in reading.lower() and "CPU" in reading):
        raise Wrong("REPORT.md's Interpretation does not say where the autograd key sits against the CPU key")


def _rows(text: str, where: str, keys: tuple[str, ...]) -> dict[tuple, dict]:
    return {tuple(row.get(k) for k in keys): row for row in table(text, where)}


def autograd_by_hand(folder: Folder, code) -> None:
    manifest = folder.manifest()
    _heading_numbers(folder, "comparison.md", manifest)
    derivation = folder.text("derivation.md")
    for v in ("W", "b", "x"):
        if f"dL/d{v} =" not in derivation:
            raise Wrong(f"derivation.md does not give dL/d{v} = ...: derive each of dL/dW, dL/db and dL/dx")
    text = folder.text("comparison.md")
    names = ("dL/dx", "dL/dW", "dL/db")
    expected, whose = code("phase25/lab01/compare.py", "comparison")
    found = _rows(text, "comparison.md", ("loss", "dtype"))
    for row in expected:
        cells = found.get((row["loss"], row["dtype"]))
        if cells is None:
            raise Wrong(f"comparison.md's table has no row for {row['loss']} in {row['dtype']}")
        for name in names:
            _close(f"comparison.md's {name} for {row['loss']} in {row['dtype']} (from {whose})", cells[name], row[name])
        within = "yes" if max(float(cells[n]) for n in names) <= 1e-7 else "no"
        same(f"comparison.md's within 1e-7 for {row['loss']} in {row['dtype']}", cells["within 1e-7"], within,
             "what its three errors say")
    sweep, whose = code("phase25/lab01/float32_error.py", "sweep")
    found = _rows(folder.section("comparison.md", "float32"), "comparison.md's float32 section", ("seed",))
    for row in sweep:
        cells = found.get((str(row["seed"]),)) or {}
        same(f"comparison.md's float32 row for seed {row['seed']}: where", cells.get("where"), row["where"], whose)
        _close(f"comparison.md's abs error for seed {row['seed']} (from {whose})", cells["abs error"], row["error"], 4)
    chain = folder.text("chain.md")
    steps, whose = code("phase25/lab01/chain.py", "walk_by_hand")
    found = _rows(chain, "chain.md", ("node",))
    for step in steps:
        cells = found.get((step["node"],))
        if cells is None:
            raise Wrong(f"chain.md's table has no row for the node {step['node']}")
        diff = cells["max abs diff to formula"]
        if float(diff) > 1e-7 or (step["max_error"] > 0) != (float(diff) > 0):
            raise Wrong(f"chain.md's max abs diff for {step['node']} is {diff}, "
                        f"expected {step['max_error']:.1e} ({whose})")
    errors, whose = code("phase25/lab01/minigpt_head.py", "head_errors")
    found = _rows(folder.text("minigpt_head.md"), "minigpt_head.md", ("dtype",))
    for dtype, row in errors.items():
        for name in names:
            _close(f"minigpt_head.md's {name} in {dtype} (from {whose})",
                   found.get((dtype,), {}).get(name, "missing"), row[name])
    if "AddmmBackward0" not in folder.text("graph.svg") or "<svg" not in folder.text("graph.svg"):
        raise Wrong("graph.svg is not an SVG of the live graph: it should draw AddmmBackward0 and the nodes around it")


def custom_op(folder: Folder, code) -> None:
    folder.manifest("triton", "device")
    checks = folder.json("checks.json")
    for key in ("gradcheck", "opcheck", "compile"):
        if key not in checks:
            raise Wrong(f"checks.json has no {key!r} entry")
    if len(checks["gradcheck"]) < 2 or not all(checks["gradcheck"].values()):
        raise Wrong(f"checks.json's gradcheck is {checks['gradcheck']}, expected two passing runs (a small input in "
                    "full, (2, 600) in fast mode)")
    for sample, tests in checks["opcheck"].items():
        for test, verdict in tests.items():
            same(f"checks.json's opcheck {test} on {sample}", verdict, "SUCCESS")
    compiled = checks["compile"]
    same("checks.json's compile graphs and graph_breaks", (compiled.get("graphs"), compiled.get("graph_breaks")),
         (1, 0))
    if not compiled.get("max_abs_difference_vs_eager", 1) < 1e-6:
        raise Wrong("checks.json's compile max_abs_difference_vs_eager is "
                    f"{compiled.get('max_abs_difference_vs_eager')}, "
                    "expected under 1e-6")
    for name, op in (("forward", "softmax"), ("backward", "softmax_backward")):
        calls = re.search(rf"torch\.ops\.\w+\.{op}\.default\(", folder.text(f"generated_{name}.py")) is not None
        same(f"generated_{name}.py calls your {op} op", calls, True)
        same(f"checks.json's compile calls_custom_op {name}", compiled.get("calls_custom_op", {}).get(name), calls,
             f"whether generated_{name}.py calls it")


def compile_and_inductor(folder: Folder, code) -> None:
    from snippets.phase25.lab03.deliverable import FUSED_OPS
    from snippets.phase25.lab03.part_d_annotation import kernel_sha256

    manifest = folder.manifest("kernel", "kernel_sha256", "compile_match_max_abs_diff")
    _heading_numbers(folder, "REPORT.md", manifest)
    kernel = folder.text("kernel.cpp").rstrip("\n")
    same("the sha256 of kernel.cpp", kernel_sha256(kernel), manifest["kernel_sha256"], "manifest.json's kernel_sha256")
    if f"{manifest['kernel']}(" not in folder.text("output_code.py"):
        raise Wrong(f"output_code.py never calls {manifest['kernel']}, the kernel manifest.json names")
    annotation = folder.text("KERNEL_ANNOTATION.md")
    blocks = re.findall(r"```cpp\n(.*?)```", annotation, re.S)
    covered = {line.strip() for block in blocks for line in block.splitlines()}
    missing = [line for line in kernel.splitlines() if line.strip() and line.strip() not in covered]
    if missing or kernel_sha256(kernel) not in annotation:
        raise Wrong(f"KERNEL_ANNOTATION.md does not cover kernel.cpp by hash and line by line (first line missing: "
                    f"{missing[0].strip() if missing else 'none; the sha256 is not given'!r})")
    for op in FUSED_OPS:
        if op not in annotation:
            raise Wrong(f"KERNEL_ANNOTATION.md does not name {op}, one of the ops fused into the softmax")
    match = folder.section("REPORT.md", "Compile match")
    found = number(match, "max |eager - compiled| =", "REPORT.md's Compile match")
    agree("REPORT.md's max |eager - compiled|", found, manifest["compile_match_max_abs_diff"], rtol=1e-3)
    if not found < 1e-6:
        raise Wrong(f"REPORT.md's max |eager - compiled| is {found:.3e}, expected under 1e-6")
    folder.section("REPORT.md", "The kernel")
    timings = folder.section("REPORT.md", "Eager against compiled")
    rows = table(timings, "REPORT.md's Eager against compiled")
    eager = {row["batch"]: float(row["µs per call"]) for row in rows if row["variant"] == "eager"}
    for row in rows:
        if row["batch"] not in eager:
            raise Wrong(f"REPORT.md's Eager against compiled table has no eager row at batch {row['batch']}")
        _close(f"REPORT.md's vs eager for {row['variant']} at batch {row['batch']} (its µs per call over eager's)",
               row["vs eager"].rstrip("x"),
               float(row["µs per call"]) / eager[row["batch"]], 2)
    compiled = {row["batch"]: row["vs eager"].rstrip("x") for row in rows if row["variant"] == "torch.compile"}
    for batch, ratio in re.findall(r"At batch (\d+) the compiled model takes ([\d.]+)x", timings):
        same(f"the ratio REPORT.md's reading gives at batch {batch}", ratio, compiled.get(batch),
             "its table's torch.compile row")
    folder.section("REPORT.md", "The graph")
    if not zipfile.is_zipfile(folder.file("tiny_head.pt2")):
        raise Wrong("tiny_head.pt2 is not an archive torch.export.save wrote")
    if "DISTRIBUTED.md" not in folder.section("REPORT.md", "Distributed survey"):
        raise Wrong("REPORT.md's Distributed survey section does not point to DISTRIBUTED.md")
    survey(folder)


def survey(folder: Folder) -> None:
    """DISTRIBUTED.md against distributed.json: each pattern in two sentences, the measured numbers, the pick."""
    rows = folder.json("distributed.json")
    for heading in ("DDP", "FSDP", "Tensor parallel", "Pipeline parallel"):
        body = " ".join(folder.section("DISTRIBUTED.md", heading).split())
        sentences = len(re.findall(r"[.!?](?=\s|$)", body))
        same(f"the number of sentences in DISTRIBUTED.md's {heading} section", sentences, 2, "the lab asks for two")
    measured = folder.section("DISTRIBUTED.md", "Measured")
    for row in rows:
        line = next((l for l in measured.splitlines() if l.startswith(row["pattern"] + " ")), None)
        if line is None:
            raise Wrong(f"DISTRIBUTED.md's Measured table has no row for {row['pattern']}, "
                        "which distributed.json holds")
        numbers = [int(n) for n in re.findall(r"(?<![\w.])\d[\d,]*(?![\w.])", line.replace(",", ""))]
        for what, value in (("parameters per rank", row["params"]),
                            *((f"bytes sent at batch {b}", n) for b, n in row["sent"].items())):
            if value not in numbers:
                raise Wrong(f"DISTRIBUTED.md's Measured row for {row['pattern']} does not show its {what}, "
                            f"{value:,} in distributed.json (it shows {numbers})")
    pick = folder.section("DISTRIBUTED.md", "Which would I pick")
    if not any(row["pattern"] in pick for row in rows):
        raise Wrong("DISTRIBUTED.md's pick names none of the patterns it measured")


def distributed_survey(folder: Folder, code) -> None:
    folder.manifest()
    survey(folder)


def trace_an_op(folder: Folder, code) -> None:
    manifest = folder.manifest("device")
    _heading_numbers(folder, "TRACE.md", manifest)
    device = manifest["device"]
    backend = "CUDA" if device == "cuda" else "CPU"
    for title, op, call in (("a + b", "aten.add.Tensor", "layers"),
                            ("torch.matmul", "aten.mm.default", "matmul_chain")):
        section = folder.section("TRACE.md", title)
        for layer in ("1. Python frontend", "2. dispatcher", "3. rows", "4. ATen", "5. backend"):
            if f"### {layer}" not in section:
                raise Wrong(f"TRACE.md's section {title} has no layer \"### {layer}...\"")
        dispatcher = section.split("### 2. dispatcher")[1].split("###")[0]
        if op not in dispatcher:
            raise Wrong(f"TRACE.md's dispatcher layer of {title} does not reach {op}")
        rows = section.split("### 3. rows")[1].split("###")[0]
        keys = [line.split()[0] for line in rows.splitlines() if line and not line.startswith(("`", " "))]
        autograd = f"Autograd{backend}"
        if autograd not in keys or backend not in keys or keys.index(autograd) > keys.index(backend):
            raise Wrong(f"TRACE.md's rows of {title} should visit {autograd} before the {backend} kernel "
                        f"(it shows {keys})")
        if device == "cpu":
            module = "week09/layers.py" if call == "layers" else "week09/deliverable.py"
            chain, whose = code(module, call, "cpu")
            layer = next(lines for name, lines in chain.items() if name.startswith("2."))
            for line in layer:
                if line not in dispatcher:
                    raise Wrong(f"TRACE.md's dispatcher layer of {title} does not show {line!r}, "
                                f"which {whose} gives here")
