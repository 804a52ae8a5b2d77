"""Every task of the course that asks for code, with what its check compares (torch is imported by the
cases, when a check runs: listing the tasks, as the site's workspaces do, imports none)."""

from __future__ import annotations

import contextlib
import functools

from workbench.tasks import Task

P24_LAB00 = "phase-24/lab/00-hello-cuda.md"
PRIMER = "phase-24/theory/02-triton-primer.md"
SOFTMAX = "phase-24/theory/03-triton-softmax.md"
SUBSTRATE = "phase-24/theory/04-pytorch-as-substrate.md"
MOTIVATION = "phase-25/theory/00-motivation.md"
COMPILE = "phase-25/theory/03-compile-and-distributed.md"
AUTOGRAD = "phase-25/theory/02-autograd-engine.md"
WEEK9 = "week-09/index.md"
LAB00 = "phase-25/lab/00-dispatcher-trace.md"
LAB02 = "phase-25/lab/02-custom-op.md"
LAB03 = "phase-25/lab/03-compile-and-inductor.md"
SURVEY = "phase-25/lab/03-distributed-survey.md"
TORCHRUN = "phase-25/lab/03-running-torchrun.md"
LAB01 = "phase-25/lab/01-autograd-by-hand.md"
GRADIENTS = ("dL/dx", "dL/dW", "dL/db")


def _head(dtype=None):
    import torch

    from snippets.phase25.lab01.problem import head_problem

    return head_problem(dtype or torch.float64)


def _part_b():
    import torch
    import torch.nn.functional as F

    x, W, b, target = _head()
    logits = F.linear(x, W, b)
    G = torch.randn(logits.shape, dtype=logits.dtype)
    return [("linear_backward", (G, x, W)),
            ("cross_entropy_grad", (logits, target)), ("sum_of_squares_grad", (logits, target)),
            *((call, (loss, x, W, b, target)) for call in ("hand_gradients", "autograd_gradients")
              for loss in ("cross_entropy", "sum_of_squares"))]


def _lab00_inputs():
    """(F.linear, x, W, b): the function lab 00 traces and its inputs."""
    import torch.nn.functional as F

    from snippets.phase25.lab00.part_a_baseline import make_inputs

    return (F.linear, *make_inputs())


def _module_list():
    import torch

    return torch.nn.ModuleList


def _listed_mlp(namespace, container):
    """what_the_registry_sees"""
    return namespace.what_the_registry_sees(container)


def _relu_head(namespace):
    """ReluHead(TinyHead's fc)(x)"""
    from snippets.phase25.theory03.tiny_head import model_and_input

    model, x = model_and_input()
    return namespace.ReluHead(model.fc)(x)


def _logsumexp_derivatives(namespace):
    """derivatives(LogSumExp.apply, y, v)"""
    import torch
    import torch.nn.functional as F

    x, W, b, _ = _head()
    y = F.linear(x, W, b).detach()
    return namespace.derivatives(namespace.LogSumExp.apply, y, torch.randn_like(y))


def _profile_summary(namespace):
    """summary(profile_linear())"""
    return namespace.summary(namespace.profile_linear())


@contextlib.contextmanager
def _process_group(backend: str, world: int):
    """A process group of this one process: gloo alone, or the fake backend standing in for `world` ranks
    (its collectives send nothing, and each is seen and measured as on real ranks)."""
    import torch
    import torch.distributed as dist

    if backend == "fake":
        from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the fake backend

        store = FakeStore()
    else:
        store = dist.HashStore()
    dist.init_process_group(backend, store=store, rank=0, world_size=world)
    try:
        yield torch.device("cpu")
    finally:
        dist.destroy_process_group()


def _buckets_alone(namespace):
    """smaller_buckets() on one gloo process"""
    with _process_group("gloo", 1) as cpu:  # DDP cuts the same buckets on one rank as on two
        print(namespace.buckets_report([namespace.ddp_buckets_rank(cpu, namespace.BUCKET_MB)]))


def _no_reshard_faked(namespace):
    """no_reshard() on a fake process group of 2 ranks"""
    with _process_group("fake", 2) as cpu:  # FSDP2 on one rank gathers nothing: two ranks, faked
        print(namespace.reshard_report([namespace.both_reshard_settings_rank(cpu)]))


@functools.cache
def _pipeline_ranks() -> tuple[dict, ...]:
    """Every rank's results of the course's pipeline with 8 micro-batches, from one `torchrun` command (a
    child process, as a learner types it, from a notebook too): its stages send each other their shapes
    before the first step, which neither one gloo process nor a fake process group carries."""
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from snippets.phase25.distributed.torchrun import standalone
    from workbench.tasks import SNIPPETS

    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "ranks.json"
        command = standalone("snippets.phase25.distributed.exercises", "microbatches", "--json", results)
        subprocess.run([sys.executable, "-m", "torch.distributed.run", *command], cwd=SNIPPETS.parent,
                       check=True, capture_output=True)
        return tuple(json.loads(results.read_text(encoding="utf-8")))


def _microbatches_measured(namespace):
    """microbatches_report() of the course's two pipeline ranks under torchrun"""
    try:  # a starter raises its task before it reads a rank: no torchrun launch for it
        namespace.microbatches_report([])
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - a written report may need ranks: it gets them next
        pass
    print(namespace.microbatches_report(list(_pipeline_ranks())))


def _trace_checked(namespace):
    """TRACE.md's checklist, your trace_md's on CPU"""
    import tempfile
    from pathlib import Path

    from snippets.experiment import print_checklist, write_manifest
    from workbench.tasks import SNIPPETS

    with tempfile.TemporaryDirectory() as tmp:  # the manifest hashes the course's module: a notebook has no file
        (Path(tmp) / "TRACE.md").write_text(namespace.trace_md("cpu"), encoding="utf-8")
        write_manifest(Path(tmp), namespace.SEED, SNIPPETS / "week09/deliverable.py", device="cpu")
        print_checklist(namespace.check_acceptance(Path(tmp)))


def _fake_strides(namespace):
    """softmax_wrong_strides(<meta (2, 600)>).stride()"""
    import torch

    return namespace.softmax_wrong_strides(torch.empty(2, 600, device="meta")).stride()


def _gradient_of(softmax: str):
    """A case: x.grad after the learner's `softmax`(x).backward(dy)."""
    def gradient(namespace, x, dy):
        x.requires_grad_()
        getattr(namespace, softmax)(x).backward(dy)
        return x.grad

    gradient.__doc__ = f"x.grad after {softmax}(x).backward(dy)"
    return gradient


def _bias_relu_inputs():
    import torch

    return [("forward_and_gradients", (torch.randn(3, 600), torch.randn(600)))]


def _softmax_inputs(softmax: str = "softmax", backward: str | None = "softmax_backward"):
    """Cases of a softmax op of the learner's: its output, its backward op's (where it has one), and the
    gradient autograd gets through it."""
    import torch

    x = torch.randn(3, 600)
    cases = [(softmax, (x,))]
    if backward:
        cases.append((backward, (torch.softmax(x, -1), torch.randn(3, 600))))
    return cases + [(_gradient_of(softmax), (x, torch.randn(3, 600)))]


def _op_name(op) -> str:
    """nmb::softmax, whether the op is given as ops.softmax, torch.ops.nmb.softmax or its .default."""
    schema = getattr(op, "_schema", None)
    return getattr(op, "_qualname", None) or getattr(op, "_qualified_op_name", None) or (
        schema.name if schema else repr(op))


def _opcheck_samples(namespace):
    """each sample's (op, [(shape, requires_grad) of each argument]) in samples("cpu")"""
    return [(_op_name(op), [(tuple(arg.shape), arg.requires_grad) for arg in args])
            for _, op, args in namespace.samples("cpu")]


def _opcheck_verdicts(namespace):
    """each sample's verdicts in results("cpu")"""
    return list(namespace.results("cpu").values())


def _head_and_input():
    """Part D's model, the LM head followed by nmb::softmax, and an input that requires gradients."""
    import torch

    from snippets.phase25.lab02.compile_demo import Head

    return Head(), torch.randn(2, 64, requires_grad=True)


def _head_step(namespace):
    """step(Head(), x)"""
    return namespace.step(*_head_and_input())


def _op_calls(namespace):
    """(difference, op calls in each generated module) of compile_step(Head(), x)"""
    from snippets.phase25.lab02.generated import call_function

    difference, codes = namespace.compile_step(*_head_and_input())
    return difference, [[line.strip() for line in call_function(code).splitlines() if "= torch.ops." in line]
                        for code in codes]


def _recorded_triton_kernel() -> str:
    """TinyHead's Triton kernel as Inductor wrote it on a GPU: the recording, its labels taken off."""
    import json
    import re

    from workbench.tasks import SNIPPETS

    recording = json.loads((SNIPPETS / "recordings/phase25.lab03.part_cd_triton.main.json").read_text())
    kernel = recording["output"].split("pointers in_out_ptr0:\n\n", 1)[1].split("\n\nsoftmax steps found", 1)[0]
    return "\n".join(re.sub(r"    # <- .*$", "", line) for line in kernel.splitlines() if not line.startswith("# ^ "))


def _minigpt_compiled(namespace):
    """What compile_minigpt measures, and the kernels its generated module launches (the module's text
    names files of the compile cache: not compared)."""
    from snippets.phase25.lab03.minigpt_compile import kernel_launches

    result = namespace.compile_minigpt()
    return {key: value for key, value in result.items() if key != "code"}, kernel_launches(result["code"])


DUMPED = ("debug.log", "fx_graph_readable.py", "fx_graph_runnable.py", "ir_pre_fusion.txt", "ir_post_fusion.txt",
          "output_code.py")  # what lab 03 part B's solution says TORCH_COMPILE_DEBUG=1 writes


def _dump_and_logs(namespace):
    """debug_run(a new folder) and logs_after_import()"""  # the dump's file names, its fusion, the two logs
    import tempfile
    from pathlib import Path

    from snippets.phase25.lab03.part_b_dump import fused_nodes

    with tempfile.TemporaryDirectory() as folder:
        run = namespace.debug_run(Path(folder))
    names = {Path(name).name for name in run["files"]}  # the page's files; the trace log's name is random
    return {"files dumped": [name for name in DUMPED if name in names],
            "nodes after fusion": fused_nodes(run["post_fusion"]), "logs": namespace.logs_after_import()}


def _variants_profiled(namespace):
    """variants(model, x, "cpu") profiled"""  # per callable: through Dynamo? ATen's softmax? the model's output?
    import torch
    from torch.profiler import ProfilerActivity, profile

    from snippets.phase25.theory03.tiny_head import model_and_input

    model, x = model_and_input(2, "cpu")
    found = {}
    with torch.no_grad():
        for name, function in namespace.variants(model, x, "cpu").items():
            function()  # the first call of a compiled function compiles
            with profile(activities=[ProfilerActivity.CPU]) as run:
                result = function()
            events = {event.name for event in run.events()}
            output = result[0] if isinstance(result, (tuple, list)) else result
            found[name] = {"through Dynamo": "TorchDynamo Cache Lookup" in events,
                           "ATen's softmax": "aten::_softmax" in events,
                           "the model's output": torch.allclose(output, model(x))}
    return found


def _fused_kernel(namespace):
    """The fused kernel's name and C++ source, and what each of its pointers receives."""
    name, source, code = namespace.fused_softmax_kernel()
    return name, source, namespace.kernel_arguments(name, source, code)


def _triton_reading():
    kernel = _recorded_triton_kernel()
    return [("annotate", (kernel,)), ("pointers", (kernel,)),
            ("summary", (dict.fromkeys(("load", "max", "sub", "exp", "sum", "div", "store"), 1) | {"max": 0},))]


def _softmax_logits():
    import torch

    from snippets.phase24.triton_softmax.correctness import cases

    named = cases("cpu", torch.float32)
    return [("variant", (named[name], shift, pad)) for name in ("(2, 600) LM head", "(2, 3) magnitude 1e4")
            for shift, pad in ((True, -float("inf")), (False, -float("inf")), (True, 0.0))]


TASKS = (
    Task(P24_LAB00, "exercises", "phase24/lab00/exercises.py", ("exact_or_close",), number=2,
         calls=("exact_or_close",)),
    Task(P24_LAB00, "exercises", "phase24/lab00/exercises.py", ("check_minigpt",), number=3,
         cases=lambda: [("check_minigpt", ())], calls=("my_check",)),
    Task(PRIMER, "exercises", "phase24/triton_primer/exercises.py", ("add_kernel_without_mask",), number=2,
         cases=lambda: [("without_mask", ())], calls=("missing_mask",)),
    Task(SOFTMAX, "exercises", "phase24/triton_softmax/exercises.py", ("softmax_kernel_variant",), number=2,
         cases=_softmax_logits, atol=1e-6, rtol=1e-5, calls=("without_the_shift", "zeros_in_the_padding")),
    Task(SOFTMAX, "exercises", "phase24/triton_softmax/exercises.py", ("elements_loaded",), number=5,
         cases=lambda: [("elements_loaded", (n, chunk, keep)) for n in (600, 4096, 32000)
                        for chunk in (512, 1024) for keep in (True, False)]),
    Task(SUBSTRATE, "exercises", "phase24/theory04/exercises.py",
         ("ListedMLP.__init__", "ListedMLP.forward", "what_the_registry_sees"), number=3,
         cases=lambda: [(_listed_mlp, (list,)), (_listed_mlp, (_module_list(),))],
         calls=("layers_in_a_list",)),
    Task(AUTOGRAD, "exercises", "phase25/theory02/exercises.py", ("packed_tensors",), number=3,
         cases=lambda: [("packed_tensors", ())], calls=("main_packed",)),
    Task(MOTIVATION, "exercises", "phase25/theory00/exercises.py", ("only_weight_backward",), number=3,
         calls=("main_only_weight",)),
    Task(LAB00, "part-a", "phase25/lab00/part_a_baseline.py", ("baseline",),
         cases=lambda: [("baseline", ())], calls=("main",)),
    Task(LAB00, "part-b", "phase25/lab00/part_b_key_sets.py", ("key_set", "key_sets"),
         cases=lambda: [("key_sets", ())], calls=("main",)),
    Task(LAB00, "part-c", "phase25/lab00/dispatch_log.py",
         ("LogDispatch.__torch_dispatch__", "LogFunctions.__torch_function__", "dispatched_ops",
          "function_calls", "pre_dispatch_ops"),
         cases=lambda: [(name, _lab00_inputs())
                        for name in ("dispatched_ops", "function_calls", "pre_dispatch_ops")]),
    Task(LAB00, "part-d", "phase25/lab00/part_d_addmm.py", ("comparisons",),
         cases=lambda: [("comparisons", ())], calls=("main",)),
    Task(LAB00, "part-e", "phase25/lab00/part_e_profiler.py", ("profile_linear", "summary"),
         cases=lambda: [(_profile_summary, ())],
         calls=("main",)),
    Task(LAB00, "stretch", "phase25/lab00/stretch.py", ("half_input", "excluded_autograd_keys", "grad_modes"),
         cases=lambda: [("half_input", ()), ("grad_modes", ())], calls=("main",)),
    *(Task(LAB00, f"exercise-{n}", "phase25/lab00/exercises.py", (writes,),
           cases=(lambda compared=compared: [(compared, ())]), calls=(f"exercise{n}",))
      for n, writes, compared in ((1, "CountFlops.__torch_dispatch__", "flops_of_linear"),
                                  (2, "batched_input", "batched_input"), (3, "grad_modes", "grad_modes"),
                                  (4, "forward_and_backward", "forward_and_backward"))),
    Task(LAB01, "code", "phase25/lab01/hand_gradients.py",
         ("linear_backward", "cross_entropy_grad", "sum_of_squares_grad", "hand_gradients",
          "autograd_gradients"),
         cases=_part_b, atol=1e-7, parts=GRADIENTS),
    Task(LAB01, "float64", "phase25/lab01/compare.py", ("max_errors", "comparison"),
         cases=lambda: [("comparison", ())], calls=("main",), rtol=1e-6),
    Task(LAB01, "float32", "phase25/lab01/float32_error.py", ("spacing", "worst_element"),
         cases=lambda: [("spacing", (1.5,)), ("spacing", (0.01,)), ("worst_element", (0,)),
                        ("worst_element", (3,))], calls=("main",), rtol=1e-6),
    Task(LAB01, "walk-chain", "phase25/lab01/chain.py", ("walk_by_hand",),
         cases=lambda: [("walk_by_hand", ())], calls=("main",), atol=1e-7),
    Task(LAB01, "minigpt", "phase25/lab01/minigpt_head.py", ("head_errors", "sgd_step"),
         cases=lambda: [("head_errors", ()), ("sgd_step", ())], calls=("main",), rtol=1e-6),
    Task(LAB01, "exercise-2", "phase25/lab01/exercises.py", ("reduction_ratio",),
         cases=lambda: [("reduction_ratio", ())], calls=("exercise2",)),
    Task(LAB01, "exercise-3", "phase25/lab01/exercises.py", ("LogSumExp.backward",),
         cases=lambda: [(_logsumexp_derivatives, ())], calls=("exercise3",), atol=1e-12),
    Task(LAB01, "exercise-4", "phase25/lab01/exercises.py", ("mse_against_backward",),
         cases=lambda: [("mse_against_backward", ())], calls=("exercise4",), atol=1e-15),
    Task(LAB02, "op", "phase25/lab02/ops.py", ("softmax", "softmax_backward", "save_output", "backward"),
         cases=_softmax_inputs, atol=1e-6, rtol=1e-5, renames=(("nmb::", "mywork::"),)),
    Task(LAB02, "gradcheck", "phase25/lab02/gradcheck_demo.py", ("check",), calls=("main",)),
    Task(LAB02, "opcheck", "phase25/lab02/opcheck_demo.py", ("samples", "results"),
         cases=lambda: [(_opcheck_samples, ()), (_opcheck_verdicts, ())]),
    Task(LAB02, "compile", "phase25/lab02/generated.py", ("step", "compile_step"),
         cases=lambda: [(_head_step, ()), (_op_calls, ())], atol=1e-6),
    Task(LAB02, "triton-op", "phase25/lab02/inlined.py", ("softmax_inlined", "softmax_inlined_backward", "backward"),
         cases=lambda: _softmax_inputs("softmax_inlined", backward=None), atol=1e-6, rtol=1e-5, calls=("main",),
         renames=(("nmb::", "mywork::"),)),
    Task(LAB02, "exercise-2", "phase25/lab02/wrong_fake.py", ("fake_wrong_strides",),
         cases=lambda: [(_fake_strides, ())], calls=("main",), renames=(("nmb_exercises::", "mywork_exercises::"),)),
    Task(LAB02, "exercise-3", "phase25/lab02/exercises.py", ("gradcheck_calls",),
         calls=("exercise3",)),  # its printed counts, held to the page's claims (each gradcheck is slow)
    Task(LAB02, "exercise-4", "phase25/lab02/direct_launch.py", ("direct_launch",), calls=("main",)),
    Task(LAB02, "exercise-5", "phase25/lab02/bias_relu.py", ("bias_relu_kernel", "bias_relu", "save_output", "backward"),
         cases=_bias_relu_inputs, atol=1e-6, calls=("main",), renames=(("nmb::", "mywork::"),)),
    Task(COMPILE, "exercises", "phase25/theory03/exercises.py", ("ReluHead.forward",), number=3,
         cases=lambda: [(_relu_head, ())], calls=("main_relu",)),
    Task(LAB03, "part-a", "phase25/lab03/part_a_compile_match.py", ("compile_match",), calls=("main",)),
    Task(LAB03, "part-a-minigpt", "phase25/lab03/minigpt_compile.py", ("compile_minigpt",),
         cases=lambda: [(_minigpt_compiled, ())]),
    Task(LAB03, "part-b", "phase25/lab03/part_b_dump.py", ("debug_run", "logs_after_import"),
         cases=lambda: [(_dump_and_logs, ())]),
    Task(LAB03, "part-c", "phase25/lab03/part_c_kernel.py", ("fused_softmax_kernel", "kernel_arguments"),
         cases=lambda: [(_fused_kernel, ())], calls=("main",)),
    Task(LAB03, "part-d-gpu", "phase25/lab03/triton_reading.py", ("classify", "annotate", "pointers", "summary"),
         cases=_triton_reading),
    Task(LAB03, "part-e", "phase25/lab03/part_e_bench.py", ("variants",), cases=lambda: [(_variants_profiled, ())]),
    Task(LAB03, "exercises", "phase25/lab03/exercises.py", ("census_backend",), number=5,
         cases=lambda: [("census_of_a_break", ())], calls=("exercise5",)),
    Task(LAB03, "exercises", "phase25/lab03/exercises.py", ("training_modules",), number=4,
         calls=("training",)),
    Task(SURVEY, "exercises", "phase25/distributed/exercises.py", ("ddp_buckets_rank",), number=1,
         calls=((_buckets_alone, "smaller_buckets"),)),
    Task(SURVEY, "exercises", "phase25/distributed/exercises.py", ("fsdp_reshard_rank",), number=2,
         calls=((_no_reshard_faked, "no_reshard"),)),
    Task(SURVEY, "exercises", "phase25/distributed/exercises.py", ("microbatches_report",), number=3,
         calls=((_microbatches_measured, "more_microbatches"),)),  # its report, held to the page's claims
    Task(SURVEY, "exercises", "phase25/distributed/exercises.py", ("crossover_by_hand",), number=4,
         calls=("crossover_by_hand",)),
    Task(TORCHRUN, "exercises", "phase25/distributed/cluster.py", ("on_hosts",), number=1,
         cases=lambda: [("on_hosts", (hosts,)) for hosts in (2, 4)], calls=("main",), page_in_name=True),
    Task(WEEK9, "lab-step-1", "week09/show_dispatch_trace.py", ("traced_run", "dispatch_functions"),
         cases=lambda: [("traced_run", ("cpu",)), ("dispatch_functions", ())], parts=("stdout", "stderr bytes"),
         calls=("main",)),
    Task(WEEK9, "lab-step-2", "week09/dispatcher_header.py", ("guarded_blocks", "build_flags"),
         cases=lambda: [("guarded_blocks", ()), ("build_flags", ())], calls=("main",)),
    Task(WEEK9, "lab-step-4", "week09/add_kernel.py", ("functor_template",),
         cases=lambda: [("functor_template", ())], calls=("main",)),
    Task(WEEK9, "lab-step-6", "week09/deliverable.py", ("matmul_chain",), calls=((_trace_checked, "main"),)),
    Task(WEEK9, "exercises", "week09/exercises.py", ("which_copy",), number=2,
         cases=lambda: [("which_copy", ())], calls=("main_copies",)),
    Task(WEEK9, "exercises", "week09/exercises.py", ("overload_calls",), number=4,
         cases=lambda: [("overload_calls", ())], calls=("main_overloads",)),
)


def labs() -> dict[str, list[Task]]:
    """The tasks grouped by lab (snippet folder), in the pages' order."""
    grouped: dict[str, list[Task]] = {}
    for task in TASKS:
        grouped.setdefault(task.lab, []).append(task)
    return grouped
