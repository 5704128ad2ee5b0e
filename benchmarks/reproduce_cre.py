"""Reproduce compressed rule ensembles on scikit-learn's breast cancer data (the paper's WBCD),
as Nalenz and Augustin's Tables 1-2 report them: test AUC and the number of selected terms
for k_max = 2, 4, 6.

Run by hand (in the optrules environment with its test extra, for scikit-learn):
    python benchmarks/reproduce_cre.py [--kmax 2 4 6] [--splits 5] [--test-size 0.3]
        [--no-linear] [--criterion aic|bic] [--variant glm|average] [--engine fast|reference]

Each split is a seeded, stratified train/test split (seeds 0, 1, ...); the model is fitted with
the paper's settings (500 boosted trees of depth 3, learning rate 0.01, subsample 0.6;
η = 0.5; linear terms, as eq. 8; λ_1se by 10-fold cross-validation) and ``random_state`` the
split's seed. Per k_max it prints, per split and as mean ± standard deviation: the test AUC,
the number of terms (rules and linear terms with a nonzero coefficient, the paper's Table 2
count), the candidate rules the GLM chose from, verify's KKT verdict and the fit's seconds.
The paper's WBCD rows for k_max 2 / 4 / 6: AUC 0.992 / 0.993 / 0.991 (Table 1) and 31 / 32 /
36 terms (Table 2), on its own splits of the UCI data.
"""

import argparse
import statistics
import time

import numpy as np

from optrules import CompressedRuleEnsembleClassifier

#: k_max -> (AUC, terms) of the paper's WBCD rows (Tables 1 and 2).
PAPER = {2: (0.992, 31), 4: (0.993, 32), 6: (0.991, 36)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kmax", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--test-size", type=float, default=0.3)
    parser.add_argument("--no-linear", action="store_true", help="no linear terms")
    parser.add_argument("--criterion", choices=("aic", "bic"), default="aic")
    parser.add_argument("--variant", choices=("glm", "average"), default="glm")
    parser.add_argument("--engine", choices=("fast", "reference"), default="fast")
    args = parser.parse_args()
    start = time.perf_counter()

    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    print(f"breast cancer {X.shape[0]} x {X.shape[1]}, {args.splits} stratified splits "
          f"(test share {args.test_size}), criterion {args.criterion}, variant "
          f"{args.variant}, linear terms {'off' if args.no_linear else 'on'}, engine "
          f"{args.engine}")
    print(f"{'k_max':>5} {'split':>5} {'AUC':>7} {'terms':>6} {'candidates':>10} "
          f"{'KKT':>5} {'seconds':>8}")
    summary = []
    for kmax in args.kmax:
        aucs, terms, seconds = [], [], []
        for split in range(args.splits):
            X_train, X_test, y_train, y_test = train_test_split(
                X, y, test_size=args.test_size, stratify=y, random_state=split)
            started = time.perf_counter()
            model = CompressedRuleEnsembleClassifier(
                kmax, criterion=args.criterion, linear=not args.no_linear,
                variant=args.variant, engine=args.engine, random_state=split).fit(
                    X_train, y_train)
            seconds.append(time.perf_counter() - started)
            aucs.append(roc_auc_score(y_test, model.decision_function(X_test)))
            terms.append(len(model.terms_) - (args.variant == "glm"))     # not the intercept
            fit = model.model_.fit
            kkt = "ok" if fit.get("kkt", {}).get("ok", True) else "FAIL"
            print(f"{kmax:>5} {split:>5} {aucs[-1]:>7.4f} {terms[-1]:>6} "
                  f"{fit['candidate_rules']:>10} {kkt:>5} {seconds[-1]:>8.2f}", flush=True)
        summary.append((kmax, aucs, terms, seconds))
    print()
    print(f"{'k_max':>5} {'AUC mean ± sd':>16} {'paper':>6} {'terms mean ± sd':>16} "
          f"{'paper':>6} {'seconds':>8}")
    for kmax, aucs, terms, seconds in summary:
        paper_auc, paper_terms = PAPER.get(kmax, (float("nan"), float("nan")))
        print(f"{kmax:>5} {statistics.mean(aucs):>9.4f} ± {_sd(aucs):.4f} {paper_auc:>6.3f} "
              f"{statistics.mean(terms):>9.1f} ± {_sd(terms):4.1f} {paper_terms:>6} "
              f"{statistics.mean(seconds):>8.2f}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


def _sd(values):
    return statistics.stdev(values) if len(values) > 1 else float(np.nan)


if __name__ == "__main__":
    main()
