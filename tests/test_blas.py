"""The fast engines search with one BLAS thread and give the setting back."""

import importlib

import numpy as np

from optrules.blas import openblas_thread_controls, single_blas_thread
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.fit import ENGINES, fit_rule_list


def test_numpy_openblas_is_found():
    """The test environment's numpy wheel bundles OpenBLAS: the controls must find it (else
    the switch would silently do nothing)."""
    assert openblas_thread_controls()


def test_single_blas_thread_sets_one_and_restores():
    (get, put), *_ = openblas_thread_controls()
    before = get()
    put(2)
    try:
        with single_blas_thread():
            assert get() == 1
        assert get() == 2
    finally:
        put(before)


def test_the_fast_rule_list_engine_searches_on_one_thread(monkeypatch):
    (get, put), *_ = openblas_thread_controls()
    before = get()
    put(2)
    seen = []
    fast = importlib.import_module(ENGINES["fast"])
    original = fast._Children.__init__
    monkeypatch.setattr(fast._Children, "__init__",
                        lambda self, *a: seen.append(get()) or original(self, *a))
    try:
        rng = np.random.default_rng(2)
        data = BinaryDataset.from_bits([f"a{m}" for m in range(8)], rng.random((8, 50)) < 0.5,
                                       rng.random(50) < 0.5)
        fit_rule_list(data, "1/20", engine="fast")
        assert seen and set(seen) == {1} and get() == 2
    finally:
        put(before)
