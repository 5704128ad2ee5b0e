"""``optrules demo``: the main jobs on bundled data, as a first run after installing."""

from importlib import resources

import numpy as np

from optrules.data.mining import mine_antecedents
from optrules.data.synthetic import noisy_parity
from optrules.data.table import read_csv
from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.rule_lists.fit import fit_rule_list

__all__ = ["add_parser", "bundled_compas_csv", "COMPAS_TARGET"]

COMPAS_TARGET = "recidivate-within-two-years"


def bundled_compas_csv():
    """Path-like of the bundled ProPublica COMPAS training split (6489 rows)."""
    return resources.files("optrules.data") / "compas_train.csv"


def add_parser(commands):
    parser = commands.add_parser("demo", help="run the main job on bundled data")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    lam = "0.015"
    print(f"Certifiably optimal rule list on the bundled ProPublica COMPAS training split "
          f"(6489 rows), antecedents of up to 2 items with support >= 0.005, lambda = {lam}:\n")
    with resources.as_file(bundled_compas_csv()) as path:
        table = read_csv(path, COMPAS_TARGET)
    dataset = mine_antecedents(table, max_cardinality=2)
    print(f"{dataset.n_antecedents} antecedents mined.")
    result = fit_rule_list(dataset, lam)
    print(result.rule_list)
    print(result.summary())
    print("\nOptimal versus greedy rule boosting on noisy parity (d = 3, n = 800, logistic loss, "
          "lambda = 2, 5 rules each):")
    X, y = noisy_parity(800, d=3, seed=1)
    for search in ("optimal", "greedy"):
        ensemble = fit_rule_ensemble(X, y, n_rules=5, lam=2, search=search,
                                     thresholds="quantile:5")
        accuracy = float(np.mean(ensemble.predict(X) == y))
        print(f"\n{search} rules (training accuracy {accuracy:.4f}, {ensemble.seconds:.2f} s):")
        print(ensemble)
    return 0
