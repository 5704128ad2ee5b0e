"""The L1-regularised GLM of compressed rule ensembles (specs/cre.md §4): both engines' paths,
the KKT certificate and a second opinion by another method."""

import importlib

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from optrules.compressed_rules.clustering import ENGINES
from optrules.compressed_rules.glm import (ConvergenceWarning, choose_lambda,
                                           cross_validated_lasso, lambda_sequence, objective,
                                           path_ends)
from optrules.verify.lasso_kkt import KKT_TOLERANCE, check_lasso_kkt, second_opinion

ENGINE_MODULES = {name: importlib.import_module(path) for name, path in ENGINES.items()}
LOSSES = ("squared", "logistic")


@st.composite
def problems(draw, max_n=25, max_p=6):
    """(X, y, loss): continuous or 0/1 columns (rule outputs), both losses."""
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    n, p = draw(st.integers(4, max_n)), draw(st.integers(1, max_p))
    X = rng.normal(size=(n, p)) if draw(st.booleans()) else \
        (rng.random((n, p)) < 0.5).astype(float) * rng.uniform(0.3, 1.0, size=p)
    X[0, (X == X[0]).all(axis=0)] += 1.0          # no constant column
    loss = draw(st.sampled_from(LOSSES))
    signal = X @ rng.normal(size=p)
    y = signal + rng.normal(size=n) if loss == "squared" else \
        (rng.random(n) < 1 / (1 + np.exp(-signal))).astype(float)
    if loss == "logistic" and y.min() == y.max():
        y[0] = 1 - y[0]
    return X, y, loss


@given(problems())
def test_both_engines_reach_the_same_objective_along_the_path(problem):
    """On the path's upper part (λ down to λ_max/20), where plain coordinate descent (the
    reference) converges in reasonable time."""
    X, y, loss = problem
    lambdas = lambda_sequence(X, y, loss, n_lambdas=8, ratio=0.05)
    assume(len(lambdas))            # λ_max = 0: no column moves the fit
    paths = {name: module.lasso_path(X, y, loss, lambdas)
             for name, module in ENGINE_MODULES.items()}
    assert len(paths["fast"][0]) == len(paths["reference"][0])
    for i, lam in enumerate(lambdas[:len(paths["fast"][0])]):
        values = [objective(X, y, b[i], beta[i], lam, loss) for b, beta in paths.values()]
        assert values[0] == pytest.approx(values[1], rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@given(problems())
def test_every_fit_on_the_path_meets_the_kkt_conditions(engine, problem):
    """The whole path for the fast engine; its upper part for the reference."""
    X, y, loss = problem
    lambdas = lambda_sequence(X, y, loss, n_lambdas=12,
                              ratio=0.05 if engine == "reference" else None)
    assume(len(lambdas))            # λ_max = 0: no column moves the fit
    intercepts, coefficients = ENGINE_MODULES[engine].lasso_path(X, y, loss, lambdas)
    for b, beta, lam in zip(intercepts, coefficients, lambdas):
        check = check_lasso_kkt(X, y, b, beta, lam, loss)
        assert check.ok, str(check)


@given(problems(max_n=15, max_p=4), st.integers(0, 3), st.sampled_from([1e-3, -1e-3]))
def test_the_kkt_check_rejects_perturbed_coefficients(problem, which, step):
    X, y, loss = problem
    lambdas = lambda_sequence(X, y, loss, n_lambdas=8)
    intercepts, coefficients = ENGINE_MODULES["fast"].lasso_path(X, y, loss, lambdas)
    assume(len(lambdas))            # λ_max = 0: no column moves the fit
    b, beta, lam = intercepts[-1], coefficients[-1].copy(), lambdas[len(intercepts) - 1]
    if loss == "logistic":        # where the fit saturates, a step hardly moves the gradient
        prob = np.exp(-np.logaddexp(0.0, -(b + X @ beta)))        # σ(η), no overflow
        assume((prob * (1 - prob)).min() > 0.01)
    beta[which % X.shape[1]] += step
    assert not check_lasso_kkt(X, y, b, beta, lam, loss).ok
    assert not check_lasso_kkt(X, y, b + 10 * step, coefficients[-1], lam, loss).ok


@given(problems(max_n=15, max_p=4), st.floats(0.0, 1.0))
def test_a_second_method_finds_no_better_objective(problem, fraction):
    """scipy's L-BFGS-B on the split problem (β = β⁺ − β⁻) reaches the same objective and no
    lower one."""
    X, y, loss = problem
    lambdas = lambda_sequence(X, y, loss, n_lambdas=10)
    intercepts, coefficients = ENGINE_MODULES["fast"].lasso_path(X, y, loss, lambdas)
    assume(len(lambdas))            # λ_max = 0: no column moves the fit
    i = min(int(fraction * len(intercepts)), len(intercepts) - 1)
    ours = objective(X, y, intercepts[i], coefficients[i], lambdas[i], loss)
    _, _, theirs = second_opinion(X, y, lambdas[i], loss)
    assert theirs >= ours - 1e-12 * max(1.0, abs(ours))
    assert theirs == pytest.approx(ours, rel=1e-6, abs=1e-9)


def test_lambda_max_is_the_least_lambda_without_coefficients():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    lambdas = lambda_sequence(X, y, "squared", n_lambdas=5)
    _, at_max = ENGINE_MODULES["fast"].lasso_path(X, y, "squared", lambdas[:1])
    _, below = ENGINE_MODULES["fast"].lasso_path(X, y, "squared", lambdas[:1] * 0.99)
    assert not at_max.any() and below[0, 0] != 0
    assert lambdas[-1] == pytest.approx(lambdas[0] * 1e-4)
    assert len(lambda_sequence(np.zeros((5, 2)), np.arange(5.0), "squared")) == 0


def test_lambda_min_and_lambda_1se():
    lambdas = np.array([1.0, 0.5, 0.25, 0.125])
    mean, se = np.array([0.9, 0.52, 0.5, 0.5]), np.array([0.1, 0.1, 0.03, 0.01])
    assert choose_lambda(lambdas, mean, se, "min") == 2          # the larger λ of the tie
    assert choose_lambda(lambdas, mean, se, "1se") == 1          # 0.52 <= 0.5 + 0.03


def test_the_path_ends_as_glmnets():
    assert path_ends([0.0005], 1.0)                          # 0.9995 of the deviance explained
    assert not path_ends([0.5], 1.0)
    assert path_ends([0.5, 0.499999], 1.0)                   # explains 2e-6 more of 0.5
    assert not path_ends([0.5, 0.4], 1.0)
    assert path_ends([1.0], 0.0)


def test_cross_validation_reports_the_chosen_lambdas_model():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    y = (rng.random(120) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(float)
    fit = cross_validated_lasso(X, y, "logistic", ENGINE_MODULES["fast"], n_folds=5,
                                random_state=0)
    best = int(np.argmin(fit.cv_mean))
    assert fit.lambdas[fit.chosen] >= fit.lambdas[best]
    assert fit.cv_mean[fit.chosen] <= fit.cv_mean[best] + fit.cv_se[best]
    assert fit.coefficients[fit.chosen, 0] > 0
    assert check_lasso_kkt(X, y, fit.intercepts[fit.chosen], fit.coefficients[fit.chosen],
                           fit.lambdas[fit.chosen], "logistic").tolerance == KKT_TOLERANCE


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_fit_stopped_at_its_step_limit_says_so(engine):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=30) > 0).astype(float)
    lambdas = lambda_sequence(X, y, "logistic", n_lambdas=5)
    with pytest.warns(ConvergenceWarning, match=r"stopped after 1 reweighted steps with a KKT"):
        ENGINE_MODULES[engine].lasso_path(X, y, "logistic", lambdas, max_steps=1)


def test_a_column_uncorrelated_with_the_residual_gives_no_path():
    """Its gradient at the intercept-only fit is 0 exactly, rounding noise in floats (a
    Hypothesis example whose noise path ended after 2 fits in one engine and 8 in the
    other): no path."""
    x = np.array([0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1]) * 0.44693007
    y = np.array([1., 0., 0., 1., 0., 1., 1., 1., 1., 0., 1., 1., 0., 1., 1., 0.])
    assert len(lambda_sequence(x[:, None], y, "logistic")) == 0
