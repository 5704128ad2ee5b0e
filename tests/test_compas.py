"""COMPAS as CORELS ships it: mining, equivalent points and the reference optima.

The optima are those of ../shared/data/compas/README.md (found by the C++ CORELS and re-scored
exactly there); every returned list is also re-scored here independently.
"""

import functools
from fractions import Fraction

import numpy as np
import pytest

from optrules import RuleListClassifier
from optrules.data import DATASETS, bitset, bundled_csv
from optrules.data.corels_files import load_corels
from optrules.data.mining import mine_antecedents
from optrules.data.table import read_csv
from optrules.rule_lists.equivalent_points import equivalence_classes, minority_bits
from optrules.rule_lists.fit import fit_rule_list
from optrules.verify.instances import RuleListInstance
from optrules.verify.rescore import rescore_rule_list

COMPAS_TARGET = DATASETS["compas"]["target"]

OPTIMA = {  # λ -> (objective, mistakes, rules)
    "0.015": (Fraction(245267, 648900), 2258, 2),
    "0.01": (Fraction(119389, 324450), 2258, 2),
}


@pytest.fixture(scope="module")
def compas(compas_dir):
    return load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label",
                       compas_dir / "compas_train.minor")


@pytest.fixture(scope="module")
def compas_table():
    return read_csv(bundled_csv("compas"), COMPAS_TARGET)


@pytest.fixture(scope="module")
def mined(compas_table):
    features, y = compas_table
    return mine_antecedents(features, y == 1, classes=(0, 1), target=COMPAS_TARGET,
                            max_cardinality=2, min_support=Fraction(5, 1000))


def test_bundled_csv_is_the_shared_split(compas_dir):
    assert bundled_csv("compas").read_bytes() == (compas_dir / "compas_train.csv").read_bytes()


def test_mining_reproduces_compas_out_bit_for_bit(compas, mined):
    assert mined.antecedent_names == compas.antecedent_names
    assert mined.n_antecedents == 155
    assert np.array_equal(mined.antecedents, compas.antecedents)
    assert np.array_equal(mined.labels, compas.labels)
    assert mined.target == compas.target
    # the CSV's own class values, where the CORELS label file names them No/Yes
    assert (mined.classes, compas.classes) == ((0, 1), ("No", "Yes"))


def test_mined_conditions_apply_to_the_raw_rows(compas_table, mined):
    features, _ = compas_table
    for name, conditions, bits in zip(mined.antecedent_names, mined.antecedent_conditions,
                                      mined.antecedent_bits()):
        held = np.logical_and.reduce([c.evaluate(features.column(c.feature))
                                      for c in conditions])
        assert np.array_equal(held, bits), name


def test_equivalent_points_reproduce_compas_minor(compas):
    assert equivalence_classes(compas).max() + 1 == 194
    computed = minority_bits(compas)
    assert computed.sum() == 2063
    assert np.array_equal(bitset.pack(computed), compas.minority)


def test_empty_rule_list_objective(compas):
    result = fit_rule_list(compas, "0.49")
    assert len(result.rule_list) == 0 and result.rule_list.default == "No"
    assert result.mistakes == 2906 and result.objective == Fraction(2906, 6489)


@functools.lru_cache(maxsize=None)
def search(compas, lam, engine):
    """One search per (λ, engine) for the whole module (λ = 0.01 takes a minute)."""
    return fit_rule_list(compas, lam, engine=engine)


LAMBDAS = ["0.015", pytest.param("0.01", marks=pytest.mark.slow)]


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("lam", LAMBDAS)
def test_engine_certifies_the_published_optimum(compas, lam, engine):
    objective, mistakes, n_rules = OPTIMA[lam]
    result = search(compas, lam, engine)
    assert result.status == "optimal"
    assert (result.objective, result.mistakes, len(result.rule_list)) == (objective, mistakes,
                                                                          n_rules)
    assert result.lower_bound == objective
    check = rescore_rule_list(RuleListInstance.from_dataset(compas, lam), result.rule_list,
                              compas.classes)
    assert check.mistakes == mistakes and check.non_majority_labels == ()


@pytest.mark.parametrize("lam", LAMBDAS)
def test_fast_engine_makes_the_reference_engines_search_on_compas(compas, lam):
    fast, reference = search(compas, lam, "fast"), search(compas, lam, "reference")
    assert fast.rule_list == reference.rule_list
    assert (fast.nodes_expanded, fast.statistics) == (reference.nodes_expanded,
                                                      reference.statistics)


def test_mined_data_without_minor_file_gives_the_same_optimum(mined):
    result = fit_rule_list(mined, "0.015")  # equivalent points computed automatically
    assert result.status == "optimal" and result.objective == OPTIMA["0.015"][0]


def test_estimator_mines_at_lambda_and_finds_the_published_optimum(compas_table):
    """min_support=None mines at λ (137 antecedents instead of 155) and loses nothing."""
    features, y = compas_table
    model = RuleListClassifier(lam="0.015").fit(features, y)
    assert model.n_antecedents_ == 137
    assert model.status_ == "optimal" and model.objective_ == OPTIMA["0.015"][0]
    assert str(model.rule_list_) == ("if {priors:>3} then 1\n"
                                     "elif {sex:Male,juvenile-crimes:>0} then 1\nelse 0")
