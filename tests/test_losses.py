"""Tests of optrules.rule_boosting.losses: derivatives, convexity, target encoding, transforms, get_loss."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.rule_boosting.losses import (LOSSES, LogisticLoss, Loss, PoissonLoss, SquaredLoss, get_loss)

F_GRID = np.linspace(-8.0, 8.0, 161)


def targets(name):
    """Target values each loss is defined for."""
    return {"squared": np.array([-3.5, -1.0, 0.0, 0.25, 2.0, 7.0]),
            "logistic": np.array([-1.0, 1.0]),
            "poisson": np.array([0.0, 1.0, 2.0, 5.0, 13.0])}[name]


def grid(name):
    y, f = np.meshgrid(targets(name), F_GRID)
    return y.ravel(), f.ravel()


def central_difference(function, f, step):
    return (function(f + step) - function(f - step)) / (2 * step)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradient_matches_central_difference_of_loss(name):
    loss = get_loss(name)
    y, f = grid(name)
    g, _ = loss.gradients(y, f)
    step = 1e-5
    numeric = central_difference(lambda t: loss.loss(y, t), f, step)
    scale = np.maximum(1.0, np.abs(loss.loss(y, f)))
    assert np.all(np.abs(g - numeric) <= 1e-6 * scale + 1e-5 * np.abs(g))


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_hessian_matches_central_differences(name):
    loss = get_loss(name)
    y, f = grid(name)
    _, h = loss.gradients(y, f)
    step = 1e-5
    of_gradient = central_difference(lambda t: loss.gradients(y, t)[0], f, step)
    assert np.allclose(h, of_gradient, rtol=1e-5, atol=1e-7)
    # second difference of the loss itself (independent of ``gradients``)
    wide = 1e-3
    second = (loss.loss(y, f + wide) - 2 * loss.loss(y, f) + loss.loss(y, f - wide)) / wide ** 2
    scale = np.maximum(1.0, np.abs(loss.loss(y, f)))
    assert np.all(np.abs(h - second) <= 1e-4 * scale + 1e-4 * np.abs(h))


def finite_pairs(name):
    y = st.sampled_from(list(targets(name))) if name != "squared" else st.floats(-50, 50)
    return st.tuples(y, st.floats(-15, 15))


@pytest.mark.parametrize("name", sorted(LOSSES))
@given(data=st.data())
def test_derivatives_at_random_points(name, data):
    y, f = data.draw(finite_pairs(name))
    loss = get_loss(name)
    y_, f_ = np.array([y]), np.array([f])
    g, h = loss.gradients(y_, f_)
    step = 1e-6 * max(1.0, abs(f))
    numeric_g = central_difference(lambda t: loss.loss(y_, t), f_, step)
    scale = max(1.0, float(abs(loss.loss(y_, f_)[0])))
    assert abs(g[0] - numeric_g[0]) <= 1e-5 * scale + 1e-5 * abs(g[0])
    numeric_h = central_difference(lambda t: loss.gradients(y_, t)[0], f_, step)
    assert abs(h[0] - numeric_h[0]) <= 1e-5 * max(1.0, abs(g[0])) + 1e-5 * h[0]
    assert g.shape == h.shape == (1,)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_hessian_is_strictly_positive(name):
    loss = get_loss(name)
    for f in (F_GRID, np.linspace(-30.0, 30.0, 13)):
        y, ff = np.meshgrid(targets(name), f)
        g, h = loss.gradients(y.ravel(), ff.ravel())
        assert h.shape == g.shape == (y.size,)
        assert np.all(np.isfinite(g)) and np.all(np.isfinite(h))
        assert np.all(h > 0)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_is_convex_in_f(name):
    loss = get_loss(name)
    rng = np.random.default_rng(3)
    for y in targets(name):
        a, b = rng.uniform(-8, 8, size=(2, 400))
        mu = rng.uniform(0, 1, size=400)
        mixed = loss.loss(y, mu * a + (1 - mu) * b)
        chord = mu * loss.loss(y, a) + (1 - mu) * loss.loss(y, b)
        assert np.all(mixed <= chord + 1e-9 * np.maximum(1.0, np.abs(chord)))
        _, h = loss.gradients(np.full(400, y), a)
        assert np.all(h >= 0)


def test_loss_values():
    assert SquaredLoss().loss(np.array([3.0]), np.array([1.0])).tolist() == [4.0]
    assert LogisticLoss().loss(np.array([1.0, -1.0]), np.array([0.0, 0.0])) == pytest.approx(
        [np.log(2), np.log(2)])
    assert LogisticLoss().loss(np.array([1.0]), np.array([-800.0]))[0] == pytest.approx(800.0)
    assert PoissonLoss().loss(np.array([2.0]), np.array([np.log(3.0)]))[0] == pytest.approx(
        3.0 - 2 * np.log(3.0))
    assert SquaredLoss().gradients(np.array([3.0, 0.0]), np.array([1.0, 0.0]))[0].tolist() == [
        -4.0, 0.0]
    assert SquaredLoss().gradients(np.array([3.0, 0.0]), np.array([1.0, 0.0]))[1].tolist() == [
        2.0, 2.0]
    g, h = LogisticLoss().gradients(np.array([1.0, -1.0]), np.array([0.0, 0.0]))
    assert g.tolist() == [-0.5, 0.5] and h.tolist() == [0.25, 0.25]
    g, h = PoissonLoss().gradients(np.array([4.0]), np.array([0.0]))
    assert g.tolist() == [-3.0] and h.tolist() == [1.0]


# --- target preparation --------------------------------------------------------------------

@pytest.mark.parametrize("labels, encoded, classes", [
    ([0, 1, 1, 0], [-1, 1, 1, -1], (0, 1)),
    ([1, 0, 0], [1, -1, -1], (0, 1)),
    (np.array([0.0, 1.0]), [-1, 1], (0.0, 1.0)),
    ([True, False, True], [1, -1, 1], (False, True)),
    (np.array([False, True]), [-1, 1], (False, True)),
    (["yes", "no", "yes"], [1, -1, 1], ("no", "yes")),
    (np.array(["b", "a", "a"]), [1, -1, -1], ("a", "b")),
    (["Z", "a"], [-1, 1], ("Z", "a")),          # sorted order: uppercase first
    ([-1, 1, 1], [-1, 1, 1], (-1, 1)),
    ([2, 7, 2], [-1, 1, -1], (2, 7)),
])
def test_logistic_prepare_target_positive_class_rule(labels, encoded, classes):
    loss = LogisticLoss()
    prepared = loss.prepare_target(labels)
    assert prepared.dtype == float
    assert prepared.tolist() == encoded
    assert loss.classes == classes


@pytest.mark.parametrize("labels, positive, encoded, classes", [
    ([0, 1, 1], 0, [1, -1, -1], (1, 0)),
    (["yes", "no"], "no", [-1, 1], ("yes", "no")),
    ([True, False], False, [-1, 1], (True, False)),
    ([0, 1], 1, [-1, 1], (0, 1)),
])
def test_logistic_positive_argument_overrides(labels, positive, encoded, classes):
    loss = LogisticLoss(positive=positive)
    assert loss.prepare_target(labels).tolist() == encoded
    assert loss.classes == classes
    via_get_loss = get_loss("logistic", positive=positive)
    assert via_get_loss.prepare_target(labels).tolist() == encoded


@pytest.mark.parametrize("labels, count", [
    ([1, 1, 1], 1), (["a"], 1), ([0, 1, 2], 3), (["a", "b", "c", "a"], 3)])
def test_logistic_needs_exactly_two_classes(labels, count):
    with pytest.raises(ValueError, match=f"exactly two classes; the target has {count}"):
        LogisticLoss().prepare_target(labels)


def test_logistic_unknown_positive_class_raises():
    with pytest.raises(ValueError, match=r"positive class 'maybe' is not a target value "
                                         r"\(\['no', 'yes'\]\)"):
        LogisticLoss(positive="maybe").prepare_target(["yes", "no"])
    with pytest.raises(ValueError, match="positive class 2 is not a target value"):
        LogisticLoss(positive=2).prepare_target([0, 1])


def test_poisson_rejects_negative_targets_and_accepts_counts():
    with pytest.raises(ValueError, match="non-negative targets"):
        PoissonLoss().prepare_target([0, 3, -1])
    with pytest.raises(ValueError, match="non-negative targets"):
        PoissonLoss().prepare_target([-0.5])
    with pytest.raises(ValueError, match="must be finite numbers"):
        PoissonLoss().prepare_target([1.0, np.nan])
    assert PoissonLoss().prepare_target([0, 2, 5]).tolist() == [0.0, 2.0, 5.0]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_squared_rejects_non_finite_targets(bad):
    with pytest.raises(ValueError, match="the target of the squared loss must be finite"):
        SquaredLoss().prepare_target([1.0, bad, 2.0])


def test_squared_target_is_float_and_unchanged():
    prepared = SquaredLoss().prepare_target([1, -2, 3])
    assert prepared.dtype == float and prepared.tolist() == [1.0, -2.0, 3.0]


# --- transforms and get_loss ---------------------------------------------------------------

def test_transforms():
    f = np.array([-40.0, -2.0, 0.0, 0.5, 3.0])
    assert np.array_equal(SquaredLoss().transform(f), f)
    assert np.allclose(LogisticLoss().transform(f), 1 / (1 + np.exp(-f)), rtol=1e-12)
    assert LogisticLoss().transform(np.array([0.0]))[0] == 0.5
    assert np.allclose(PoissonLoss().transform(f), np.exp(f), rtol=1e-12)
    assert np.array_equal(Loss().transform(f), f)


def test_get_loss_returns_fresh_objects_of_the_right_class():
    for name, cls in (("squared", SquaredLoss), ("logistic", LogisticLoss),
                      ("poisson", PoissonLoss)):
        first, second = get_loss(name), get_loss(name)
        assert type(first) is cls and first.name == name
        assert first is not second
    first = get_loss("logistic")
    first.prepare_target(["a", "b"])
    assert get_loss("logistic").classes is None
    assert get_loss("logistic", positive="a").positive == "a"


def test_get_loss_passes_loss_instances_through():
    instance = LogisticLoss(positive=0)
    assert get_loss(instance) is instance
    assert get_loss(instance, positive=1) is instance


@pytest.mark.parametrize("bad", ["Squared", "hinge", "", None, 3, SquaredLoss])
def test_get_loss_rejects_unknown_names(bad):
    with pytest.raises(ValueError, match=r"The 'loss' parameter must be one of "
                                         r"\['squared', 'logistic', 'poisson'\] or a Loss "
                                         rf"instance\. Got {__import__('re').escape(repr(bad))}"):
        get_loss(bad)


def test_base_loss_needs_loss_and_gradients():
    with pytest.raises(NotImplementedError):
        Loss().loss(np.zeros(1), np.zeros(1))
    with pytest.raises(NotImplementedError):
        Loss().gradients(np.zeros(1), np.zeros(1))
    assert Loss().prepare_target([1, 2]).tolist() == [1.0, 2.0]


# --- a custom loss through boosting --------------------------------------------------------

class ScaledSquaredLoss(Loss):
    """s (y - f)^2: the squared loss scaled by s."""

    name = "scaled-squared"

    def __init__(self, scale):
        self.scale = scale
        self.calls = 0

    def loss(self, y, f):
        return self.scale * (y - f) ** 2

    def gradients(self, y, f):
        self.calls += 1
        return -2.0 * self.scale * (y - f), np.full(np.shape(y), 2.0 * self.scale)


def regression_data():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(30, 3)).astype(float)
    y = 2.0 * (X[:, 0] > 1.5) - 1.5 * (X[:, 1] <= 0.5) + 0.3 * rng.normal(size=30)
    return X, y


def test_custom_loss_subclass_works_in_boosting():
    X, y = regression_data()
    custom = ScaledSquaredLoss(3)
    ensemble = fit_rule_ensemble(X, y, loss=custom, n_rules=3, lam=3, thresholds="all",
                                 max_depth=2)
    assert len(ensemble.rules) == 3
    assert ensemble.loss is custom and custom.calls == 3
    # scaling the loss by s and λ by s gives the squared-loss ensemble (w = -Σg / (Σh + λ))
    plain = fit_rule_ensemble(X, y, loss="squared", n_rules=3, lam=1, thresholds="all",
                              max_depth=2)
    assert [r.conditions for r in ensemble.rules] == [r.conditions for r in plain.rules]
    assert [r.weight for r in ensemble.rules] == pytest.approx([r.weight for r in plain.rules])
    assert np.allclose(ensemble.predict(X), plain.predict(X))
    assert all(r.weight != 0 for r in ensemble.rules)
