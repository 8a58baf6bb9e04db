import os

os.environ.setdefault("MPLBACKEND", "Agg")

import lsvi  # noqa: E402,F401  (switches JAX to float64 before any test builds arrays)


def _snapshot(*dirs):
    """{path: (mtime_ns, sha256)} of every file under ``dirs``."""
    import hashlib

    out = {}
    for d in dirs:
        for dirpath, _, files in os.walk(d):
            for f in files:
                p = os.path.join(dirpath, f)
                out[p] = (os.stat(p).st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


import pytest  # noqa: E402


@pytest.fixture
def snapshot():
    """``snapshot(*dirs)`` -> {path: (mtime_ns, sha256)}: tests that must leave committed outputs untouched compare
    two snapshots."""
    return _snapshot
