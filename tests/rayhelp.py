"""A multi-node Ray cluster on this machine (``ray.cluster_utils.Cluster``) for the scale-out tests and benchmark."""

from __future__ import annotations

from typing import Any

#: one CPU and a small object store per node: the machine has few cores and the nodes share its memory
NODE = {"num_cpus": 1, "object_store_memory": 80 * 2**20}


def start_cluster(nodes: int, attempts: int = 3, **head: Any) -> tuple[Any, list[Any]]:
    """A head node plus ``nodes - 1`` worker nodes, each :data:`NODE`; returns (cluster, worker nodes).

    Ray gives a node 30 s to register with the GCS; on a loaded machine that can run out, so a cluster
    that fails to start is shut down and started again (up to ``attempts`` times).
    """
    from ray.cluster_utils import Cluster

    for attempt in range(attempts):
        cluster = Cluster()
        try:
            cluster.add_node(**NODE, **head)
            workers = [cluster.add_node(**NODE) for _ in range(nodes - 1)]
            cluster.wait_for_nodes()
            return cluster, workers
        except Exception:
            cluster.shutdown()
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
