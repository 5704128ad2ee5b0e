"""Boosting's start and steps: f_0 (0, or log of the mean count for Poisson) and safe Newton
steps, which never increase the training loss, for every loss."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, strategies as st

from optrules import OptimalRuleBoostingRegressor, load_model
from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.rule_boosting.losses import LOSSES, SquaredLoss, get_loss


def targets(loss, n):
    """Hypothesis targets each loss is defined for: reals, two classes, counts (large ones
    included, where Newton steps from a poor start overshoot)."""
    if loss == "squared":
        return st.lists(st.floats(-1000, 1000, allow_nan=False), min_size=n, max_size=n)
    if loss == "logistic":
        return st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n).filter(
            lambda y: len(set(y)) == 2)
    counts = st.one_of(st.integers(0, 5), st.integers(0, 1000))
    return st.lists(counts, min_size=n, max_size=n).filter(any)


@st.composite
def boosting_problems(draw, loss):
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 6), min_size=d, max_size=d),
                               min_size=n, max_size=n)), dtype=float)
    options = {"lam": draw(st.sampled_from(["0", "1/10", "1", "2"])),
               "n_rules": draw(st.integers(1, 4)),
               "search": draw(st.sampled_from(["optimal", "greedy"])),
               "thresholds": draw(st.sampled_from(["all", "quantile:3"])),
               "intercept": draw(st.booleans())}
    return X, draw(targets(loss, n)), options


def training_losses(ensemble, X, y):
    """The mean training loss of f_0 alone, then after each rule, recomputed from the model."""
    loss = ensemble.loss
    target = get_loss(loss.name).prepare_target(y)
    return [loss.mean_loss(target, replace(ensemble, rules=ensemble.rules[:k])
                           .decision_function(X)) for k in range(len(ensemble.rules) + 1)]


@pytest.mark.parametrize("loss", sorted(LOSSES))
@given(data=st.data())
def test_the_training_loss_never_increases_from_one_rule_to_the_next(loss, data):
    X, y, options = data.draw(boosting_problems(loss))
    ensemble = fit_rule_ensemble(X, y, loss=loss, **options)
    losses = training_losses(ensemble, X, y)
    assert all(after <= before for before, after in zip(losses, losses[1:])), (loss, losses)
    assert all(math.isfinite(value) for value in losses), (loss, losses)
    for rule in ensemble.rules:
        assert math.isfinite(rule.weight) and rule.statistics["step_halvings"] >= 0


def test_a_step_that_would_increase_the_loss_is_halved():
    """Poisson counts far above the rate of a region: the Newton weight ȳ/μ - 1 overshoots
    the best step log(ȳ/μ) (here 9 versus log 10), so it is halved until the loss does not
    increase; the query and its exact objective (eq. 2.3) stay as the search found them."""
    X = np.array([[0.0]] * 18 + [[1.0]] * 2)
    y = [0] * 18 + [100] * 2          # mean 10: f_0 = log 10; x0>0.5 has ȳ = 100 = 10 μ
    ensemble = fit_rule_ensemble(X, y, loss="poisson", n_rules=1, lam=0, thresholds="all")
    rule = ensemble.rules[0]
    newton = (100 - 10) / 10          # w = -Σg / Σh over the two counts of 100, at rate 10
    assert [p.name for p in rule.conditions] == ["x0>0.5"]
    assert rule.statistics["step_halvings"] >= 1
    halvings = rule.statistics["step_halvings"]
    assert rule.weight == pytest.approx(newton / 2 ** halvings, rel=1e-12)
    assert "step halved" in str(rule)
    losses = training_losses(ensemble, X, y)
    assert losses[1] <= losses[0]
    again = rule.weight * 2                       # the last halving was needed
    target = np.array(y, dtype=float)
    assert ensemble.loss.mean_loss(target, ensemble.base_score + again * X[:, 0]) > losses[0]


def test_poisson_starts_from_the_log_of_the_mean_count():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = [2, 4, 6, 12]
    ensemble = fit_rule_ensemble(X, y, loss="poisson", n_rules=1, lam=1, thresholds="all")
    assert ensemble.base_score == float(np.log(6.0))
    assert str(ensemble).splitlines()[0] == \
        f"{np.log(6.0):+.4f} base score (f_0, the best constant for the poisson loss)"
    for loss in ("squared", "logistic"):          # Boley et al. §2.3: f_0 = 0
        plain = fit_rule_ensemble(X, [0, 1, 1, 0], loss=loss, n_rules=1, lam=1)
        assert plain.base_score == 0.0 and "base score" not in str(plain)


def test_poisson_refuses_all_zero_counts():
    with pytest.raises(ValueError, match="needs at least one positive count"):
        fit_rule_ensemble(np.array([[0.0], [1.0]]), [0, 0], loss="poisson")


def test_large_counts_give_finite_sensible_weights():
    """Regression: on sklearn's diabetes (y 25-346), Poisson boosting from f_0 = 0 returned
    '+150.45 if true', '-1.0 if true' with training loss 8e64. From log(mean y), with safe steps,
    the weights are small log-rate changes and the training loss goes down."""
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_diabetes(return_X_y=True, as_frame=True)
    model = OptimalRuleBoostingRegressor(3, loss="poisson", lam=2, max_depth=2,
                                         thresholds="quantile:3").fit(X, y)
    ensemble = model.ensemble_
    assert ensemble.base_score == pytest.approx(math.log(y.mean()), rel=1e-12)
    assert all(math.isfinite(r.weight) and abs(r.weight) < 1 for r in ensemble.rules)
    losses = training_losses(ensemble, X, y)
    assert losses[-1] < losses[0] and all(b >= a for b, a in zip(losses, losses[1:]))
    predictions = model.predict(X)
    assert 25 / 2 < predictions.min() and predictions.max() < 2 * 346
    assert model.score(X, y) > 0.2                                 # R² of 3 short rules


def test_counts_of_a_thousand_no_longer_diverge():
    """Formerly 'the scores diverged after 1 rule(s)': Newton steps from a rate of 1."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = rng.poisson(1000, 30)
    ensemble = fit_rule_ensemble(X, y, loss="poisson", n_rules=3, lam=1, thresholds="quantile:2")
    assert len(ensemble.rules) == 3
    assert np.allclose(ensemble.predict(X), y, rtol=0.2)


class DivergingLoss(SquaredLoss):
    """A custom loss whose gradients stop being finite once the scores move."""

    name = "diverging"

    def gradients(self, y, f):
        g, h = super().gradients(y, f)
        return (g if not np.any(f) else np.full_like(g, np.nan)), h


def test_a_custom_loss_whose_gradients_are_not_finite_gives_a_clear_error():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match=r"the scores diverged after 1 rule\(s\): the diverging "
                                         "loss's gradients are no longer finite"):
        fit_rule_ensemble(X, [0.0, 0.0, 5.0, 5.0], loss=DivergingLoss(), n_rules=2, lam=1)


def test_the_base_score_is_saved_and_used_by_predict(tmp_path):
    X = {"a": np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])}
    y = [3, 5, 4, 20, 25, 22]
    model = OptimalRuleBoostingRegressor(2, loss="poisson", lam=1, thresholds="all").fit(X, y)
    body = model.ensemble_.to_dict()
    assert body["base_score"] == model.ensemble_.base_score != 0
    path = tmp_path / "m.json"
    model.to_json(path)
    loaded = load_model(path)
    assert loaded.ensemble_.base_score == model.ensemble_.base_score
    assert np.array_equal(loaded.predict(X), model.predict(X))
    scores = model.ensemble_.base_score + sum(
        r.weight * np.logical_and.reduce([p.evaluate(X["a"]) for p in r.conditions])
        for r in model.ensemble_.rules)
    assert np.allclose(model.predict(X), np.exp(scores), rtol=1e-12)
