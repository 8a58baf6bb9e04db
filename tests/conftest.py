import os

os.environ.setdefault("MPLBACKEND", "Agg")

import lsvi  # noqa: E402,F401  (switches JAX to float64 before any test builds arrays)
