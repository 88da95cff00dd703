"""Batches on a Dask cluster (``distributed``, the ``dask`` extra): a client of a running
scheduler or of a :class:`~distributed.LocalCluster` started for one run, the executor a batch
submits its chunks to, and the number of chunks the cluster works on at once. Dask is imported
here only, when a batch asks for it; workers read inputs by path, from storage they share
with the process that names them."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

from gameserde._extras import require
from gameserde.errors import UsageError

__all__ = ["LOCAL", "client", "executor", "is_client", "workers"]

LOCAL = "local"
"""The address that starts a :class:`~distributed.LocalCluster` for the run."""

QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""The configuration of a cluster started for a run: no one looks at its dashboard, so its
workers do not sample their threads' stacks every 10 ms (the statistical profiler), and
its processes check their event loop, system use and memory every second or few rather
than many times a second. Left as they are, these take about 6% of each core, idle or
not."""


def is_client(obj: object) -> bool:
    """Whether ``obj`` is a :class:`distributed.Client` (without importing ``distributed``
    when it is not one)."""
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "get_executor")


def executor(dask_client: Any) -> Executor:
    """The :class:`concurrent.futures.Executor` of ``dask_client``: each chunk a task of its
    own (not merged with an equal one: ``pure=False``)."""
    executor: Executor = dask_client.get_executor(pure=False)
    return executor


def workers(dask_client: Any) -> int:
    """The number of tasks the cluster runs at once: its workers' threads, added up (at least
    one, so that a batch waits for a worker that is still starting)."""
    threads: dict[str, int] = dask_client.nthreads()
    return max(1, sum(threads.values()))


@contextmanager
def client(address: str, jobs: int | None = None) -> Iterator[Any]:
    """A :class:`distributed.Client` of the scheduler at ``address`` (``tcp://host:8786``),
    closed after; or for :data:`LOCAL`, of a :class:`~distributed.LocalCluster` of ``jobs``
    worker processes (default: one per core) of one thread each, shut down after. ``jobs``
    with an address is a usage error: the cluster has its own workers."""
    if address != LOCAL and jobs is not None:
        raise UsageError(f"-j sets the number of local workers: a Dask scheduler ({address}) "
                         "has its own")
    distributed = require("distributed", "a batch on a Dask cluster")
    if address != LOCAL:
        try:
            connected = distributed.Client(address, timeout="10s")
        except OSError as e:
            raise UsageError(f"no Dask scheduler answers at {address}: {e}") from None
        with connected:
            yield connected
        return
    dask = require("dask", "a batch on a Dask cluster")
    with dask.config.set(QUIET):
        cluster = distributed.LocalCluster(n_workers=jobs or os.cpu_count() or 1,
                                           threads_per_worker=1, processes=True,
                                           dashboard_address="127.0.0.1:0",  # any free port
                                           silence_logs=logging.ERROR)
        with cluster, distributed.Client(cluster) as local:
            yield local
