"""@triton.autotune on the vector add: the tuner times every configuration on the GPU, keeps the
fastest for each value of its key, and does not tune again for a key it has seen."""

import torch
import triton

from snippets.phase24.triton_primer.vector_add import add_kernel
from snippets.timing import compare

DEVICES = ("cuda",)
SIZES = (1 << 12, 1 << 24)  # 16 KiB and 64 MiB per float32 operand


def tuned(kernel):
    """`kernel` under the autotuner: four (BLOCK, num_warps) configurations, timed again for each new `n`."""
    configs = [triton.Config({"BLOCK": block}, num_warps=warps)
               for block, warps in ((256, 2), (1024, 4), (4096, 8), (16384, 16))]
    return triton.autotune(configs=configs, key=["n"])(kernel)


tuned_add_kernel = tuned(add_kernel)


def tuned_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x + y by add_kernel with the BLOCK and num_warps the tuner picked for this size."""
    out = torch.empty_like(x)
    n = x.numel()
    tuned_add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    return out


def describe(config: triton.Config) -> str:
    return f"BLOCK={config.kwargs['BLOCK']}, num_warps={config.num_warps}"


def report(n: int) -> list[str]:
    """Tune for n elements: every configuration's time (median, p20-p80), the pick, and its margin."""
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    correct = torch.equal(tuned_add(x, y), x + y)
    timings = {describe(c): [t[1], t[0], t[2]] for c, t in tuned_add_kernel.configs_timings.items()}
    lines = [f"n = {n}: tuned {len(timings)} configurations, result equal to x + y: {correct}"]
    lines += [f"  {name:<25}  median {t[1] * 1e3:8.1f} us  (p20-p80 {t[0] * 1e3:.1f}-{t[2] * 1e3:.1f})"
              for name, t in timings.items()]
    best, runner_up = sorted(timings, key=lambda name: timings[name][1])[:2]
    lines.append(f"  kept {describe(tuned_add_kernel.best_config)}; {compare(timings, best, runner_up)}")
    return lines


def main():
    for n in SIZES:
        print("\n".join(report(n)))
    tuned_add(torch.randn(1 << 12, device="cuda"), torch.randn(1 << 12, device="cuda"))
    print(f"after a third call with n = {1 << 12}: {len(tuned_add_kernel.cache)} tuned keys")


def claim_four_configurations_each(main):
    """#autotune: for each size, the tuner timed all four configurations and kept the one with the lowest median."""
    def name(text):
        return " ".join(text.split())
    medians, kept_fastest = {}, []
    for line in main.lines:
        if "median" in line:
            medians[name(line.split("median")[0])] = float(line.split("median")[1].split()[0])
        elif "kept " in line:
            kept = name(line.split("kept ")[1].split(";")[0])
            kept_fastest.append(len(medians) == 4 and medians[kept] == min(medians.values()))
            medians = {}
    return main.count("tuned 4 configurations, result equal to x + y: True") == 2 and kept_fastest == [True, True]


def claim_no_third_tuning(main):
    """#autotune: a third call with a size already seen tunes nothing: the tuner holds two keys."""
    return main.line("after a third call").endswith(": 2 tuned keys")


def claim_tie_within_the_larger_spread(main):
    """#autotune: the line after each table compares the pick with the runner-up and calls the gap a tie when it is within the larger of their p20–p80 spreads and 1%."""
    spreads, verdicts = {}, []  # per row, the spread's least and greatest value the table's rounded figures allow
    for line in main.lines:
        if "median" in line:
            name, rest = line.split("median")
            median, low, high = (float(v) for v in re.findall(r"[\d.]+", rest.replace("p20-p80", "")))
            spreads[" ".join(name.split())] = ((high - low - 0.1) / (median + 0.05),
                                               (high - low + 0.1) / (median - 0.05))
        elif "kept " in line:
            tie = re.search(r"; (.+) and (.+) tie \(([\d.]+)% apart, within the ([\d.]+)% margin\)", line)
            won = re.search(r"; (.+) is ([\d.]+)% faster than (.+) \(margin ([\d.]+)%\)", line)
            a, b, gap, margin = tie.groups() if tie else (won[1], won[3], won[2], won[4])
            least, most = (max(spreads[a][i], spreads[b][i], 0.01) * 100 for i in (0, 1))
            verdicts.append(least - 0.05 <= float(margin) <= most + 0.05 and (float(gap) < float(margin)) == bool(tie))
            spreads = {}
    return verdicts == [True, True]
