"""COMPAS as CORELS ships it: mining, equivalent points and the reference optima.

The optima are those of ../shared/data/compas/README.md (found by the C++ CORELS and re-scored
exactly there); every returned list is also re-scored here independently.
"""

from fractions import Fraction

import numpy as np
import pytest

from optrules.data import bitset
from optrules.cli.demo_command import COMPAS_TARGET, bundled_compas_csv
from optrules.data.corels_files import load_corels
from optrules.rule_lists.equivalent_points import equivalence_classes, minority_bits
from optrules.data.mining import binarize, mine_antecedents
from optrules.rule_lists.fit import fit_rule_list
from optrules.data.table import read_csv
from optrules.verify.instances import RuleListInstance
from optrules.verify.rescore import rescore_rule_list

OPTIMA = {  # λ -> (objective, mistakes, rules)
    "0.015": (Fraction(245267, 648900), 2258, 2),
    "0.01": (Fraction(119389, 324450), 2258, 2),
}


@pytest.fixture(scope="module")
def compas(compas_dir):
    return load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label",
                       compas_dir / "compas_train.minor")


@pytest.fixture(scope="module")
def mined():
    return mine_antecedents(read_csv(bundled_compas_csv(), COMPAS_TARGET), max_cardinality=2,
                            min_support=Fraction(5, 1000))


def test_bundled_csv_is_the_shared_split(compas_dir):
    assert bundled_compas_csv().read_bytes() == (compas_dir / "compas_train.csv").read_bytes()


def test_mining_reproduces_compas_out_bit_for_bit(compas, mined):
    assert mined.antecedent_names == compas.antecedent_names
    assert mined.n_antecedents == 155
    assert np.array_equal(mined.antecedents, compas.antecedents)
    assert np.array_equal(mined.labels, compas.labels)
    assert (mined.target, mined.class_names) == (compas.target, compas.class_names)


def test_binarize_applies_mined_antecedents_to_the_table(mined):
    table = read_csv(bundled_compas_csv(), COMPAS_TARGET)
    assert np.array_equal(binarize(table, mined.antecedent_names), mined.antecedent_bits())


def test_equivalent_points_reproduce_compas_minor(compas):
    assert equivalence_classes(compas).max() + 1 == 194
    computed = minority_bits(compas)
    assert computed.sum() == 2063
    assert np.array_equal(bitset.pack(computed), compas.minority)


def test_empty_rule_list_objective(compas):
    result = fit_rule_list(compas, "0.49")
    assert len(result.rule_list) == 0 and result.rule_list.default == "No"
    assert result.mistakes == 2906 and result.objective == Fraction(2906, 6489)


@pytest.mark.parametrize("lam", ["0.015", pytest.param("0.01", marks=pytest.mark.slow)])
def test_reference_engine_certifies_the_published_optimum(compas, lam):
    objective, mistakes, n_rules = OPTIMA[lam]
    result = fit_rule_list(compas, lam, engine="reference")
    assert result.status == "optimal"
    assert (result.objective, result.mistakes, len(result.rule_list)) == (objective, mistakes,
                                                                          n_rules)
    assert result.lower_bound == objective
    check = rescore_rule_list(RuleListInstance.from_dataset(compas, lam), result.rule_list,
                              compas.class_names)
    assert check.mistakes == mistakes and check.non_majority_labels == ()


def test_mined_data_without_minor_file_gives_the_same_optimum(mined):
    result = fit_rule_list(mined, "0.015")  # equivalent points computed automatically
    assert result.status == "optimal" and result.objective == OPTIMA["0.015"][0]
