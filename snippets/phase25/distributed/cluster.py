"""The exercise of lab 03, part 3: the two-node run's Slurm commands, for four hosts of eight GPUs.

The command comes from the same code as the two-host one (`nodes.CLUSTER`, `torchrun.multinode`).
"""

from __future__ import annotations

from snippets.phase25.distributed import ddp, torchrun
from snippets.phase25.distributed.nodes import CLUSTER, changes

HOSTS = 4


def on_hosts(hosts: int) -> list[str]:
    """torchrun's arguments on each of `hosts` hosts under Slurm."""
    return torchrun.multinode(ddp.__name__, nnodes=hosts, **CLUSTER)


def main():
    two, more = on_hosts(2), on_hosts(HOSTS)
    print('$ HEAD=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)')
    print(f"$ srun --nodes={HOSTS} --ntasks-per-node=1 " + torchrun.shown(more)[2:])
    changed, left_out = changes(two, more)
    print(f"changed from two hosts: {', '.join(changed)}; left out: {', '.join(left_out) or 'nothing'}")
    print(f"ranks: {HOSTS} hosts x {CLUSTER['nproc']} processes per host = {HOSTS * CLUSTER['nproc']}")


def claim_only_the_node_count_changes(main):
    """#exercises: Only the number of nodes changes: --nnodes=4 for torchrun, and --nodes=4 for srun; the endpoint, the run id and the processes per host stay. The job starts 4 x 8 = 32 ranks."""
    return (main.line("changed from two hosts") == "changed from two hosts: --nnodes; left out: nothing"
            and "--nodes=4 --ntasks-per-node=1 torchrun --nnodes=4 --nproc-per-node=8 " in main.line("$ srun")
            and main.line("ranks:").endswith("= 32"))
