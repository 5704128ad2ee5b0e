"""``optrules demo``: the main jobs on bundled data, as a first run after installing."""

from importlib import resources

from optrules.cli.json_output import json_text
from optrules.boosted_rules.estimator import BoostedRulesClassifier
from optrules.compressed_rules.estimator import CompressedRuleEnsembleClassifier
from optrules.data import DATASETS, bundled_csv
from optrules.data.synthetic import noisy_parity
from optrules.data.table import read_csv
from optrules.rule_boosting.estimator import OptimalRuleBoostingClassifier
from optrules.rule_lists.estimator import RuleListClassifier

from .cre_command import model_json


__all__ = ["add_parser"]

LAMBDA = "0.015"
TARGET = DATASETS["compas"]["target"]


def add_parser(commands):
    parser = commands.add_parser(
        "demo", help="run the main jobs on bundled data",
        description="Print the certified optimal rule list of the bundled COMPAS data at "
                    f"lambda = {LAMBDA}, optimal and greedy boosted rules on noisy parity, "
                    "greedy boosted rules (BOOMER) on COMPAS and a compressed rule ensemble "
                    "on the bundled noisy parity table.",
        epilog="example: optrules demo")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with a member per method (the models as "
                             "the methods' own --json print them) instead of text")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    sections = {"rule_list": _rule_list, "rule_boosting": _rule_boosting,
                "boosted_rules": _boosted_rules, "compressed_rules": _compressed_rules}
    results = {name: section() for name, section in sections.items()}
    if args.json:
        print(json_text({name: data for name, (_, data) in results.items()}))
    else:
        print("\n\n".join(text for text, _ in results.values()))
    return 0


def _table(name):
    with resources.as_file(bundled_csv(name)) as path:
        return read_csv(path, DATASETS[name]["target"])


def _rule_list():
    model = RuleListClassifier(LAMBDA).fit(*_table("compas"))
    text = (f"Certifiably optimal rule list on the bundled ProPublica COMPAS training split "
            f"(6489 rows; {TARGET}: 1 = reoffended within two years), antecedents of up to 2 "
            f"items, lambda = {LAMBDA}:\n\n{model.n_antecedents_} antecedents mined.\n{model}")
    return text, dict(model.result_.to_dict(), n_antecedents=model.n_antecedents_)


def _rule_boosting():
    X, y = noisy_parity(800, d=3, seed=1)
    lines, data = ["Optimal versus greedy rule boosting on noisy parity (d = 3, n = 800, "
                   "logistic loss, lambda = 2, 5 rules each):"], {}
    for search in ("optimal", "greedy"):
        booster = OptimalRuleBoostingClassifier(5, lam=2, search=search,
                                                thresholds="quantile:5").fit(X, y)
        accuracy = booster.score(X, y)
        lines.append(f"\n{search} rules (training accuracy {accuracy:.4f}, "
                     f"{booster.ensemble_.seconds:.2f} s):\n{booster}")
        data[search] = dict(booster.ensemble_.to_dict(), training_accuracy=accuracy)
    return "\n".join(lines), data


def _boosted_rules():
    model = BoostedRulesClassifier(5, feature_sampling=False).fit(*_table("compas"))
    return ("Greedy boosted rules (BOOMER) on COMPAS, 5 rules, all features searched:\n\n"
            f"{model}"), model.model_.to_dict()


def _compressed_rules():
    model = CompressedRuleEnsembleClassifier(2, n_trees=100, folds=5,
                                             random_state=0).fit(*_table("parity"))
    strongest = "\n".join(str(model).splitlines()[:8])
    text = ("Compressed rule ensemble on the bundled noisy parity table (600 rows, k_max = 2, "
            "100 boosted trees, 5-fold CV, seed 0), its 5 strongest terms:\n\n"
            f"{strongest}\n... {model.model_.fit['kkt']['verdict']}")
    return text, model_json(model)
