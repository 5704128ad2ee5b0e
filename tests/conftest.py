"""Shared fixtures: paths to the COMPAS files in ../shared and Hypothesis profiles."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=10_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SHARED_COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"


@pytest.fixture(scope="session")
def compas_dir():
    """The CORELS COMPAS files; CI clones the repository with ../shared beside it."""
    if not (SHARED_COMPAS / "compas_train.out").is_file():
        pytest.fail(f"COMPAS reference files not found in {SHARED_COMPAS}; "
                    "clone the repository next to the shared/ folder.")
    return SHARED_COMPAS
