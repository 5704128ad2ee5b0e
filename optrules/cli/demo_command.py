"""``optrules demo``: the main jobs on bundled data, as a first run after installing."""

from importlib import resources

from optrules.boosted_rules.estimator import BoostedRulesClassifier
from optrules.compressed_rules.estimator import CompressedRuleEnsembleClassifier
from optrules.data import DATASETS, bundled_csv
from optrules.data.synthetic import noisy_parity
from optrules.data.table import read_csv
from optrules.rule_boosting.estimator import OptimalRuleBoostingClassifier
from optrules.rule_lists.estimator import RuleListClassifier


__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "demo", help="run the main jobs on bundled data",
        description="Print the certified optimal rule list of the bundled COMPAS data at "
                    "lambda = 0.015, optimal and greedy boosted rules on noisy parity, greedy "
                    "boosted rules (BOOMER) on COMPAS and a compressed rule ensemble on the "
                    "bundled noisy parity table.",
        epilog="example: optrules demo")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    lam = "0.015"
    target = DATASETS["compas"]["target"]
    print(f"Certifiably optimal rule list on the bundled ProPublica COMPAS training split "
          f"(6489 rows; {target}: 1 = reoffended within two years), antecedents of up to 2 "
          f"items, lambda = {lam}:\n")
    with resources.as_file(bundled_csv("compas")) as path:
        X, y = read_csv(path, target)
    model = RuleListClassifier(lam).fit(X, y)
    print(f"{model.n_antecedents_} antecedents mined.")
    print(model)
    print("\nOptimal versus greedy rule boosting on noisy parity (d = 3, n = 800, logistic loss, "
          "lambda = 2, 5 rules each):")
    X, y = noisy_parity(800, d=3, seed=1)
    for search in ("optimal", "greedy"):
        booster = OptimalRuleBoostingClassifier(5, lam=2, search=search,
                                                thresholds="quantile:5").fit(X, y)
        accuracy = booster.score(X, y)
        print(f"\n{search} rules (training accuracy {accuracy:.4f}, "
              f"{booster.ensemble_.seconds:.2f} s):")
        print(booster)
    _boomer_and_compressed_rules(target)
    return 0


def _boomer_and_compressed_rules(target):
    print("\nGreedy boosted rules (BOOMER) on COMPAS, 5 rules, all features searched:\n")
    with resources.as_file(bundled_csv("compas")) as path:
        X, y = read_csv(path, target)
    print(BoostedRulesClassifier(5, feature_sampling=False).fit(X, y))
    print("\nCompressed rule ensemble on the bundled noisy parity table (600 rows, k_max = 2, "
          "100 boosted trees, 5-fold CV, seed 0), its 5 strongest terms:\n")
    with resources.as_file(bundled_csv("parity")) as path:
        X, y = read_csv(path, DATASETS["parity"]["target"])
    model = CompressedRuleEnsembleClassifier(2, n_trees=100, folds=5, random_state=0).fit(X, y)
    print("\n".join(str(model).splitlines()[:8]))
    print(f"... {model.model_.fit['kkt']['verdict']}")
