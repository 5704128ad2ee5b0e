"""``optrules demo``: the main jobs on bundled data, as a first run after installing."""

from importlib import resources

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
                    "lambda = 0.015, then optimal and greedy boosted rules on noisy parity.",
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
    return 0
