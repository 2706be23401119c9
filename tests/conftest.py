import os

import matplotlib
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")

# Under `pytest -n N` every worker is a process of its own: one BLAS thread each avoids
# oversubscribing the cores (small eigendecompositions slow down by 10-50x when threads compete).
if os.environ.get("PYTEST_XDIST_WORKER"):
    threadpool_limits(limits=1, user_api="blas")
