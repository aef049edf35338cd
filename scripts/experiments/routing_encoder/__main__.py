"""``python -m experiments.routing_encoder``: run the experiment, rewrite its result file.

BLAS is pinned to one thread before numpy is imported: one request per core, as a CPU
serving worker would run it. On this shared 2-core machine, two BLAS threads competing
with other work made single-request timings swing by more than ten times.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from .run import main  # noqa: E402  (numpy must see the thread setting at import)

main()
