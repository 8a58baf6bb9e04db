"""The machine a run measures on: platform, CPU model and core count, Python and jax versions, jax devices.

Its own module (not `lsvi.pipeline.report`'s) so that a notebook recording its hardware, as notebook 24 does
beside its run-time tables, depends on this file alone: a change to the report or to the fingerprint rules
(`lsvi.pipeline.fingerprint`) does not make that notebook's results stale.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def hardware_info() -> dict[str, str]:
    """Platform, CPU, core count, Python/jax versions and jax devices (best effort)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {
        "platform": platform.platform(),
        "cpu": f"{cpu} ({os.cpu_count()} logical cores)",
        "python": platform.python_version(),
    }
    try:
        import jax

        info["jax"] = jax.__version__
        info["jax devices"] = ", ".join(f"{d.platform}:{d.device_kind}" for d in jax.devices())
    except Exception as e:  # noqa: BLE001 - the report must still be written
        info["jax devices"] = f"unavailable ({type(e).__name__}: {e})"
    return info
