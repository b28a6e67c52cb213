"""One BLAS thread for the small matrix work of a study's jobs.

OpenBLAS splits even a 384 x 40 QR or a 2,000 x 40 x 40 product over every core. On two
cores that costs more than it saves: measured on this project's 2-core machine with other
work running, a QR took 0.4 CPU-ms on one thread and 15 on two, and the demo WEAT study's
jobs 15 CPU-s against 30. One thread also keeps a float result's last bits independent of
the machine's core count (dense search relies on that, :mod:`biaswh.compute.retrieval.dense`).
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController


@functools.cache
def _controller() -> ThreadpoolController:
    """The loaded thread pools (found once per process: finding them costs about 0.5 ms)."""
    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager:
    """A context in which BLAS (numpy's, scipy's) runs on one thread; the count is restored after."""
    return _controller().limit(limits=1, user_api="blas")
