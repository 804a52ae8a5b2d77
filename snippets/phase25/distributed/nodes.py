"""The DDP demo beyond one machine: two nodes of one process each, simulated here; then the cluster's commands.

Each node runs one torchrun agent with the same command; the agents meet at the c10d rendezvous (a
store on 127.0.0.1 here, on the first host in a cluster), which numbers the nodes and their ranks.
"""

from __future__ import annotations

import re
import socket
import tempfile
from pathlib import Path

from snippets.phase25.distributed import ddp, torchrun

ISOLATE = True
TIMEOUT = 300
RUN_ID = "ddp-two-nodes"
NODE_RANK = 1  # given to both agents: a static rendezvous would refuse two nodes of rank 1
CLUSTER = {"nproc": 8, "endpoint": "$HEAD:29400", "run_id": "$SLURM_JOB_ID"}  # two hosts of 8 GPUs each


def free_port() -> int:
    """A port no one listens on now, for the rendezvous (the kernel picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def two_nodes(port: int) -> tuple[list[str], list[str]]:
    """(the command each node runs, what each agent printed, tidied): both agents started at once."""
    command = torchrun.multinode(ddp.__name__, nnodes=2, nproc=1, node_rank=NODE_RANK,
                                 endpoint=f"127.0.0.1:{port}", run_id=RUN_ID)
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        folders = [Path(first), Path(second)]
        agents = [torchrun.start(command, folder) for folder in folders]
        return command, [torchrun.tidy(torchrun.finish(agent, folder)) for agent, folder in zip(agents, folders)]


def digests(output: str) -> set[str]:
    return set(re.findall(r"gradient digest (\w+)", output))


def changes(simulated: list[str], cluster: list[str]) -> tuple[list[str], list[str]]:
    """(the options whose values differ between the two commands, the options the cluster's leaves out)."""
    options = [dict(option.split("=", 1) for option in command if option.startswith("--") and "=" in option)
               for command in (simulated, cluster)]
    return ([name for name in options[0] if name in options[1] and options[0][name] != options[1][name]],
            [name for name in options[0] if name not in options[1]])


def main():
    port = free_port()
    command, outputs = two_nodes(port)
    print(torchrun.shown(command).replace(str(port), "$PORT") + "   (on both nodes; PORT is a free port)")
    for node, output in enumerate(sorted(outputs, key=lambda text: "gradient digest" not in text)):
        print(f"\n[the agent of node {node}]" + (" (its rank 0 prints the report)" if node == 0 else ""))
        print(output.replace(str(port), "$PORT"))
    one = torchrun.run(torchrun.standalone(ddp.__name__))
    print(f"\nthe same demo on one node of 2 processes: gradient digest {' '.join(digests(one))}; "
          f"bitwise identical to the two nodes': {digests(one) == digests(''.join(outputs))}")
    cluster = torchrun.multinode(ddp.__name__, nnodes=2, **CLUSTER)
    print("\nOn two hosts of 8 GPUs under Slurm (HEAD: the first host's name), srun starts one agent per host:")
    print("$ HEAD=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)")
    print("$ srun --nodes=2 --ntasks-per-node=1 " + torchrun.shown(cluster)[2:])
    changed, left_out = changes(command, cluster)
    print(f"changed from the simulation: {', '.join(changed)}; left out: {', '.join(left_out)}; "
          "the demo module: unchanged")


def claim_ranks_on_their_nodes(main):
    """#two-nodes: Rank 0 runs on node 0 and rank 1 on node 1, each as local rank 0 of its node."""
    return (main.count("rank 0 (node 0, local rank 0)") == 1 and main.count("rank 1 (node 1, local rank 0)") == 1
            and "DDP on 2 ranks (2 nodes)" in main)


def claim_node_rank_ignored(main):
    """#two-nodes: both agents were given --node-rank=1; with c10d, torch 2.13's torchrun warns on each agent that it ignores it, and the rendezvous numbers the nodes 0 and 1 all the same."""
    warning = "node_rank is only used for static rdzv_backend. It will be ignored for rdzv_backend=c10d."
    return (" --node-rank=1 " in main.lines[0] and main.count(warning) == 2 and main.versions["torch"].startswith("2.13")
            and warning in main.between("[the agent of node 0]", "[the agent of node 1]")
            and warning in main.between("[the agent of node 1]", "the same demo on one node")
            and main.count("(node 0, local rank 0)") == 1 and main.count("(node 1, local rank 0)") == 1)


def claim_bitwise_identical_to_one_node(main):
    """#two-nodes: the gradients are bitwise identical to those of the same demo on one node of two processes."""
    return main.line("the same demo on one node").endswith("bitwise identical to the two nodes': True")


def claim_the_changed_lines(main):
    """#two-nodes: the lines that change are the ones the output lists: processes per node, the endpoint and the run id, and --node-rank goes; srun starts one torchrun per host."""
    return (main.line("changed from the simulation").startswith(
                "changed from the simulation: --nproc-per-node, --rdzv-endpoint, --rdzv-id; left out: --node-rank;")
            and "--ntasks-per-node=1 torchrun" in main.line("$ srun") and "--node-rank" not in main.line("$ srun"))


def claim_no_omp_notice(main):
    """#robustness: The build sets OMP_NUM_THREADS, so torchrun's notice about it is not in the CPU runs of this page."""
    return "Setting OMP_NUM_THREADS" not in main
