"""The DDP demo beyond one machine: two nodes of one process each, simulated here; then the cluster's commands.

Each node runs one torchrun agent with the same command; the agents meet at the c10d rendezvous (a
store on 127.0.0.1 here, on the first host in a cluster), which numbers the nodes and their ranks.
"""

from __future__ import annotations

import re
import socket

from snippets.phase25.distributed import ddp, torchrun

ISOLATE = True
TIMEOUT = 240
RUN_ID = "ddp-two-nodes"
CLUSTER = {"nproc": 8, "endpoint": "$HEAD:29400", "run_id": "$SLURM_JOB_ID"}  # two hosts of 8 GPUs each


def free_port() -> int:
    """A port no one listens on now, for the rendezvous (the kernel picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def two_nodes(port: int) -> tuple[list[str], list[str]]:
    """(the command each node runs, what each agent printed, tidied): both agents started at once."""
    command = torchrun.multinode(ddp.__name__, nnodes=2, nproc=1, endpoint=f"127.0.0.1:{port}", run_id=RUN_ID)
    agents = [torchrun.start(command) for _ in range(2)]
    return command, [torchrun.tidy(torchrun.finish(agent)) for agent in agents]


def digests(output: str) -> set[str]:
    return set(re.findall(r"gradient digest (\w+)", output))


def changed(simulated: list[str], cluster: list[str]) -> list[str]:
    """The options of the cluster's command that differ from the simulation's."""
    return [option.split("=")[0] for option, other in zip(simulated, cluster) if option != other]


def main():
    port = free_port()
    command, outputs = two_nodes(port)
    print(torchrun.shown(command).replace(str(port), "$PORT") + "   (twice: one agent per node; PORT is a free port)")
    for output in sorted(filter(None, outputs), key=lambda text: "gradient digest" not in text):
        print(output.replace(str(port), "$PORT"))
    one = torchrun.finish(torchrun.start(torchrun.standalone(ddp.__name__)))
    print(f"the same demo on one node of 2 processes: gradient digest {' '.join(digests(one))}; "
          f"bitwise identical to the two nodes': {digests(one) == digests(''.join(outputs))}")
    cluster = torchrun.multinode(ddp.__name__, nnodes=2, **CLUSTER)
    print("\nOn two hosts of 8 GPUs under SLURM (HEAD: the first host's name), srun starts one agent per host:")
    print("$ HEAD=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)")
    print("$ srun --nodes=2 --ntasks-per-node=1 " + torchrun.shown(cluster)[2:])
    print(f"changed from the simulation: {', '.join(changed(command, cluster))}; the demo module: unchanged")


def claim_ranks_on_their_nodes(main):
    """#two-nodes: Rank 0 runs on node 0 and rank 1 on node 1, each as local rank 0 of its node."""
    return (main.count("rank 0 (node 0, local rank 0)") == 1 and main.count("rank 1 (node 1, local rank 0)") == 1
            and "DDP on 2 ranks (2 nodes)" in main)


def claim_bitwise_identical_to_one_node(main):
    """#two-nodes: the gradients are bitwise identical to those of the same demo on one node of two processes."""
    return main.line("the same demo on one node").endswith("bitwise identical to the two nodes': True")


def claim_the_changed_lines(main):
    """#two-nodes: the lines that change are the ones the output lists: processes per node, the endpoint and the run id; srun starts one torchrun per host; there is no --node-rank."""
    return (main.line("changed from the simulation").startswith(
                "changed from the simulation: --nproc-per-node, --rdzv-endpoint, --rdzv-id;")
            and "--ntasks-per-node=1 torchrun" in main.line("$ srun") and "--node-rank" not in main)
