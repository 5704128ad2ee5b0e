"""Boosted rules (BOOMER): each step against brute force, reference = fast, mlrl-boomer's rules.

One test class per engine over a shared mixin; the brute force below shares no code with the
engines (its sums are ``math.fsum``, its heads its own formulas).
"""

import importlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse
from hypothesis import assume, given, strategies as st

from optrules.boosted_rules import ENGINES, fit_boosted_rules
from optrules.boosted_rules.losses import LOSSES
from optrules.boosted_rules.mlrl_layout import (MissingOrder, nominal_layout, std_sort_order,
                                                unordered_map_order)
from optrules.boosted_rules.search import SearchConfig
from optrules.boosted_rules.training_data import sparse_training_data, training_data
from optrules.data.table import as_features

FIXTURES = Path(__file__).resolve().parent / "data"
EPSILON = float(np.finfo(np.float32).eps)


# ----- brute force ------------------------------------------------------------------------------

def output_heads(g, h, covered, outputs, l1, l2):
    """{output: (quality, score)} of the covered examples, from scratch."""
    result = {}
    for k in outputs:
        G = math.fsum(g[covered, k])
        H = math.fsum(h[covered, k])
        r = -l1 if G > l1 else l1 if G < -l1 else 0.0
        s = (-G + r) / (H + l2) if H + l2 != 0 else 0.0
        result[k] = (G * s + 0.5 * H * s * s + l1 * abs(s) + 0.5 * l2 * s * s, s)
    return result


def linear_system_head(g, h, covered, l1, l2):
    """(quality, {output: score}) of the complete head of non-decomposable statistics, from
    scratch: the full Hessian matrix of the sums, numpy's general solver."""
    k = g.shape[1]
    G = np.array([math.fsum(g[covered, j]) for j in range(k)])
    H = np.empty((k, k))
    for c in range(k):
        for r in range(c + 1):
            H[r, c] = H[c, r] = math.fsum(h[covered, c * (c + 1) // 2 + r])
    o = -G + np.where(-G > l1, -l1, np.where(-G < -l1, l1, 0.0))
    s = np.linalg.solve(H + l2 * np.eye(k), o)
    quality = G @ s + 0.5 * s @ H @ s + l1 * np.abs(s).sum() + 0.5 * l2 * s @ s
    return float(quality), dict(enumerate(s.tolist()))


def binned_head(g, h, covered, l1, l2, ratio):
    """(quality, {output: score}) of the complete head with gradient-based label binning of
    non-decomposable statistics, from scratch (specs/boosted-rules.md §3)."""
    k = g.shape[1]
    G = [math.fsum(g[covered, j]) for j in range(k)]
    H = np.empty((k, k))
    for c in range(k):
        for r in range(c + 1):
            H[r, c] = H[c, r] = math.fsum(h[covered, c * (c + 1) // 2 + r])

    def r(x):
        return -l1 if x > l1 else l1 if x < -l1 else 0.0

    def criterion(gradient, hessian):
        value = (-gradient + r(gradient)) / (hessian + l2) if hessian + l2 else 0.0
        return value if math.isfinite(value) else 0.0

    # whether an output's criterion (-G_k + r(G_k)) / (h_kk + λ2) is 0, or of which sign (its
    # bin), is decided by a rounding residue when G_k is within rounding of 0 (r is 0 for
    # |G_k| <= λ1, so λ1 does not make the criterion 0): such examples are skipped
    assume(all(abs(G[j]) > 1e-9 for j in range(k)))
    criteria = [criterion(G[j], H[j, j]) for j in range(k)]
    raw, offset = {}, 0
    for side in ([j for j in range(k) if criteria[j] < 0], [j for j in range(k)
                                                             if criteria[j] > 0]):
        if not side:
            continue
        n_bins = max(1, math.ceil(float(np.float32(ratio)) * len(side)))
        low, high = min(criteria[j] for j in side), max(criteria[j] for j in side)
        # several bins over criteria equal up to rounding: their bins are a residue's
        assume(n_bins == 1 or high - low > 1e-9 * max(1.0, abs(low)))
        for j in side:
            width = (high - low) / n_bins
            b = math.floor((criteria[j] - low) / width) if width else 0
            raw[j] = offset + min(b, n_bins - 1)
        offset += n_bins
    names = sorted(set(raw.values()))
    bin_of = {j: names.index(b) for j, b in raw.items()}        # empty bins dropped
    n = len(names)
    size = np.array([sum(1 for b in bin_of.values() if b == q) for q in range(n)], float)
    Gb = np.array([math.fsum(G[j] for j in bin_of if bin_of[j] == q) for q in range(n)])
    Hb = np.zeros((n, n))
    for i in bin_of:
        for j in bin_of:
            if i == j or bin_of[i] != bin_of[j]:       # pairs within a bin are left out
                Hb[bin_of[i], bin_of[j]] += H[i, j]
    o = np.array([-Gb[q] + size[q] * r(-Gb[q]) for q in range(n)])
    s = np.linalg.solve(Hb + np.diag(l2 * size), o) if n else np.zeros(0)
    quality = Gb @ s + 0.5 * s @ Hb @ s + l1 * size @ np.abs(s) + 0.5 * l2 * size @ (s * s)
    return float(quality), {j: float(s[bin_of[j]]) if j in bin_of else 0.0 for j in range(k)}


def head_quality(g, h, covered, outputs, head, l1, l2):
    """(quality, {output: score}) of the best head of the covered examples: the single output
    of largest |score| (the first on ties), all outputs, ("linear-system") all outputs of
    non-decomposable statistics, or ("binned:R") those with label binning of ratio R."""
    if head == "linear-system":
        return linear_system_head(g, h, covered, l1, l2)
    if head.startswith("binned:"):
        return binned_head(g, h, covered, l1, l2, float(head.split(":")[1]))
    result = output_heads(g, h, covered, outputs, l1, l2)
    if head == "single":
        best = max(outputs, key=lambda k: (abs(result[k][1]), -k))
        return result[best][0], {best: result[best][1]}
    return math.fsum(q for q, _ in result.values()), {k: s for k, (_, s) in result.items()}


def close(small, large):
    """mlrl-boomer's is_equal, written out (a float32 difference that overflows: not close)."""
    with np.errstate(over="ignore"):
        difference = abs(float(np.float32(large) - np.float32(small)))
    return difference <= EPSILON * max(1.0, abs(float(small)), abs(float(large)))


def between(small, large):
    """The float32 threshold between ``small`` < ``large``, written out: small + (large -
    small)/2 with the difference in float32, or small/2 + large/2 when that overflows."""
    with np.errstate(over="ignore"):
        difference = np.float32(np.float32(large) - np.float32(small))
    if not np.isfinite(difference):
        return np.float32(float(small) / 2 + float(large) / 2)
    return np.float32(float(small) + float(difference) * 0.5)


def all_conditions(data, covered):
    """Every condition the paper's search may add (Alg. 3: midpoints of adjacent distinct
    covered values; §3.3: == and != of every covered value), with the examples it covers."""
    for f, values in enumerate(data.values):
        present = covered & ~np.isnan(values)
        distinct = np.unique(values[present])
        if data.nominal[f]:
            for value in distinct:
                yield f, "==", value, present & (values == value)
                yield f, "!=", value, present & (values != value)
            continue
        for small, large in zip(distinct[:-1], distinct[1:]):
            if close(small, large):
                continue                    # one value to mlrl-boomer (its is_equal)
            threshold = between(small, large)
            yield f, "<=", threshold, present & (values <= threshold)
            yield f, ">", threshold, present & (values > threshold)


def statistics(model, data, targets, n_rules):
    """g, h at the scores of the default rule and the first ``n_rules`` rules."""
    return LOSSES[model.loss].statistics(targets, model.scores(data.values, n_rules))


def brute_head(options):
    """The head kind :func:`head_quality` computes for a dataset's options."""
    if options["loss"] != "example-wise-logistic":
        return options["head"]
    ratio = options.get("label_binning")
    return "linear-system" if ratio is None else f"binned:{ratio}"


def check_best_refinements(model, data, y, options, n_conditions, engine):
    """Alg. 2-3 against brute force for ``model``'s first rule (at most ``n_conditions``
    conditions), learned on ``data``."""
    l1, l2 = options["l1"], options["l2"]
    g, h = statistics(model, data, y, 0)
    if len(model.rules) == 1:
        assert model.status == "no-improvement"
        rule, conditions = None, []
    else:
        rule = model.rules[1]
        conditions = list(rule.conditions)
    covered = np.ones(data.n_examples, dtype=bool)
    quality, outputs = 0.0, range(y.shape[1])
    for j in range(len(conditions) + 1):
        candidates = [(head_quality(g, h, mask, outputs, brute_head(options), l1, l2)[0],
                       mask) for *_, mask in all_conditions(data, covered)
                      if mask.sum() >= options["min_coverage"]]
        best = min((q for q, _ in candidates), default=math.inf)
        tolerance = 1e-9 * max(1.0, abs(best))
        if j == len(conditions):            # the rule stopped here: nothing improves it
            stopped = len(conditions) == n_conditions or \
                covered.sum() <= options["min_coverage"] or best >= quality - tolerance
            assert stopped, (engine, best, quality)
            break
        condition = conditions[j]
        mask = covered & condition.covers(data.values[condition.feature])
        if options["head"] == "single" and j == 0:
            # the rule's output has the largest |score| (up to rounding: near ties)
            heads = output_heads(g, h, mask, outputs, l1, l2)
            largest = max(abs(s) for _, s in heads.values())
            output, = rule.outputs
            assert abs(heads[output][1]) >= largest - 1e-9 * max(1.0, largest), engine
            outputs = [output]
        chosen, head = head_quality(g, h, mask, outputs, brute_head(options), l1, l2)
        assert chosen <= best + tolerance and chosen < quality + tolerance, engine
        covered, quality = mask, chosen
    if rule is not None:                    # the head: shrunk Newton step of the coverage
        _, head = head_quality(g, h, covered, outputs, brute_head(options), l1, l2)
        assert list(rule.outputs) == list(head), engine
        expected = [np.float32(0.3).item() * s for s in head.values()]
        assert np.allclose(rule.scores, expected, rtol=1e-9, atol=1e-12), engine


@st.composite
def datasets(draw, max_examples=14):
    """Small tables of integer-valued numerical columns (negative values included, so all three
    phases of the search run), some missing values, and categorical columns."""
    n = draw(st.integers(2, max_examples))
    n_features = draw(st.integers(1, 3))
    columns = {}
    for j in range(n_features):
        if draw(st.integers(0, 3)) == 0:
            columns[f"c{j}"] = np.array(draw(st.lists(st.sampled_from(["a", "b", "c", None]),
                                                      min_size=n, max_size=n)), dtype=object)
        else:
            # neighbouring float32 values that mlrl-boomer's is_equal merges, tiny ones around
            # 0 and huge ones whose float32 difference overflows, now and then
            numbers = st.integers(-3, 3) if draw(st.integers(0, 4)) else \
                st.sampled_from([-1.0, -0.99999994, 0.0, 1e-8, 1.0, 1.0000001, 1.0000002, 2.0]) \
                if draw(st.booleans()) else \
                st.sampled_from([-3e38, -1e-45, 0.0, 1e-45, 1e-38, 1.0, 2e38, 3e38])
            cells = draw(st.lists(st.one_of(numbers, st.just(None)), min_size=n, max_size=n))
            columns[f"x{j}"] = np.array([np.nan if c is None else c for c in cells], dtype=float)
    loss = draw(st.sampled_from(["logistic", "squared", "example-wise-logistic"]))
    n_outputs = draw(st.integers(1, 3))
    if loss != "squared":
        y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=n_outputs,
                                            max_size=n_outputs), min_size=n, max_size=n)))
    else:
        y = np.array(draw(st.lists(st.lists(st.integers(-4, 4), min_size=n_outputs,
                                            max_size=n_outputs), min_size=n, max_size=n)))
    # the example-wise loss: complete heads, and λ2 > 0 so that every system is regular
    example_wise = loss == "example-wise-logistic"
    options = dict(loss=loss, head="complete" if example_wise else
                   draw(st.sampled_from(["single", "complete"])),
                   # (float32, as the engines store it; not 0.5: the head jumps where
                   # |G| = λ1, and sums of halves hit 0.5 exactly, where the engines'
                   # sequential sums and math.fsum may round to either side, as the deep
                   # profile found)
                   l1=draw(st.sampled_from([0.0, float(np.float32(0.3))])),
                   l2=1.0 if example_wise else draw(st.sampled_from([0.0, 1.0])),
                   min_coverage=draw(st.integers(1, 2)))
    if example_wise:
        options["label_binning"] = draw(st.sampled_from([None, 0.04, 0.5]))
    return columns, y.astype(float), options


def sparse_twin(columns):
    """A dataset of :func:`datasets` as numbers, categories coded -1, 0, 2 (zero among them)
    and declared nominal: (dense array, NaN missing; the same as a CSC matrix with its zeros
    implicit and its NaN stored; the nominal column indices)."""
    codes = {"a": -1.0, "b": 0.0, "c": 2.0, None: np.nan}
    nominal = [j for j, column in enumerate(columns.values()) if column.dtype == object]
    dense = np.array([[codes[c] for c in column] if column.dtype == object else column
                      for column in columns.values()], dtype=float).T
    rows, cols = np.nonzero(dense != 0)             # NaN != 0: stored
    sparse = scipy.sparse.csc_matrix((dense[rows, cols], (rows, cols)), shape=dense.shape)
    return dense, sparse, nominal


class BoostedRulesTests:
    engine = None

    def fit(self, X, y, **options):
        options.setdefault("feature_sampling", False)
        return fit_boosted_rules(X, y, engine=self.engine, **options)

    @given(datasets(), st.integers(1, 3))
    def test_each_condition_is_the_best_refinement(self, dataset, n_conditions):
        """Alg. 2-3: the j-th condition of a rule is the best of all conditions on the examples
        the first j-1 cover, strictly better than the rule without it; a rule stops only when
        no condition improves it or it covers min_coverage examples or fewer."""
        columns, y, options = dataset
        data = training_data(as_features(columns))
        model = self.fit(columns, y, max_rules=1, max_conditions=n_conditions, **options)
        check_best_refinements(model, data, y, options, n_conditions, self.engine)

    @given(datasets(), st.integers(1, 3))
    def test_each_condition_is_the_best_refinement_in_sparse_data(self, dataset, n_conditions):
        """The same on a scipy.sparse matrix (§3.2's three phases; nominal features coded as
        numbers, zero among them)."""
        columns, y, options = dataset
        dense, sparse, nominal = sparse_twin(columns)
        data = training_data(as_features(dense), nominal)
        model = self.fit(sparse, y, max_rules=1, max_conditions=n_conditions,
                         nominal_features=nominal, **options)
        check_best_refinements(model, data, y, options, n_conditions, self.engine)

    @given(datasets(), st.integers(1, 4))
    def test_training_loss_is_the_models_loss(self, dataset, max_rules):
        """The conditions cover, when tested on the data, exactly the examples the search
        counted: the loss after each rule equals the model's own loss, bit for bit."""
        columns, y, options = dataset
        data = training_data(as_features(columns))
        model = self.fit(columns, y, max_rules=max_rules, **options)
        loss = LOSSES[options["loss"]]
        for t, recorded in enumerate(model.training_loss):
            assert recorded == float(loss.values(y, model.scores(data.values, t)).mean()), \
                (self.engine, t)

    def test_the_default_rule_is_the_unshrunk_regularised_step(self):
        model = self.fit([[0.0]] * 6, [0, 1, 1, 1, 1, 1], max_rules=0)
        assert str(model) == "{} => (y0 = 0.8)"        # G = -2, H = 1.5, -G / (H + 1)
        regression = self.fit([[0.0]] * 3, [1.0, 2.0, 6.0], max_rules=0, loss="squared")
        assert regression.rules[0].scores == (9 / 4,)    # Σy / (n + 1), as in mlrl-boomer

    def test_the_first_condition_chooses_the_single_output(self):
        X = [[0.0], [1.0], [2.0], [3.0]]
        y = [[0, 0], [0, 0], [1, 0], [1, 0]]
        model = self.fit(X, y, max_rules=1, max_conditions=1)
        assert model.rules[1].outputs == (0,)
        complete = self.fit(X, y, max_rules=1, max_conditions=1, head="complete")
        assert complete.rules[1].outputs == (0, 1)

    def test_missing_values_satisfy_no_condition(self):
        X = [[np.nan], [1.0], [2.0], [3.0], [np.nan]]
        model = self.fit(X, [1, 0, 0, 1, 1], max_rules=3)
        data = training_data(as_features(np.array(X)))
        for rule in model.rules[1:]:
            assert not rule.covers(data.values)[[0, 4]].any(), self.engine

    def test_feature_sampling_is_seeded(self):
        rng = np.random.default_rng(3)
        X, y = rng.normal(size=(40, 6)), rng.integers(0, 2, 40)
        first = self.fit(X, y, max_rules=5, feature_sampling=True, random_state=7)
        again = self.fit(X, y, max_rules=5, feature_sampling=True, random_state=7)
        other = fit_boosted_rules(X, y, max_rules=5, feature_sampling=True, random_state=7,
                                  engine="reference" if self.engine == "fast" else "fast")
        assert first.rules == again.rules == other.rules


class TestReferenceEngine(BoostedRulesTests):
    engine = "reference"


class TestFastEngine(BoostedRulesTests):
    engine = "fast"


def test_each_test_class_runs_the_engine_it_names(monkeypatch):
    """The fast class must really run fast/boomer.py (and the reference class the reference)."""
    for test_class in (TestReferenceEngine, TestFastEngine):
        module = importlib.import_module(ENGINES[test_class.engine])
        calls = []
        original = module.RuleInduction.find_rule

        def spy(self, *args, original=original, calls=calls):
            calls.append(type(self).__module__)
            return original(self, *args)
        monkeypatch.setattr(module.RuleInduction, "find_rule", spy)
        test_class().fit([[0.0], [1.0]], [0, 1], max_rules=1)
        assert calls == [ENGINES[test_class.engine]]


# ----- reference = fast --------------------------------------------------------------------------

@given(datasets(max_examples=20), st.integers(1, 5), st.booleans(), st.booleans(),
       st.sampled_from([None, "with:0.7", "without:0.5", "stratified:0.6"]),
       st.sampled_from([None, 0.3]), st.integers(0, 3), st.sampled_from([1, 2, 3]),
       st.sampled_from([None, "width:0.5", "frequency:0.34", "width:1"]))
def test_fast_engine_learns_the_reference_engines_rules(dataset, max_rules, mlrl_compatible,
                                                        sampling, instances, holdout, seed,
                                                        n_jobs, binning):
    """Same rules, same thresholds, same heads bit for bit, same curves, with and without
    sampling, a holdout set and binning, in one thread and in several."""
    columns, y, options = dataset
    models = [fit_boosted_rules(columns, y, max_rules=max_rules, engine=engine,
                                mlrl_compatible=mlrl_compatible and binning is None and
                                options["loss"] != "example-wise-logistic",
                                feature_sampling=sampling, instance_sampling=instances,
                                holdout=holdout, patience=2, binning=binning,
                                random_state=seed, n_jobs=jobs, **options)
              for engine, jobs in (("reference", 1), ("fast", n_jobs))]
    assert models[0].rules == models[1].rules
    assert models[0].training_loss == models[1].training_loss
    assert models[0].holdout_loss == models[1].holdout_loss
    assert models[0].status == models[1].status


# ----- the example-wise logistic loss ----------------------------------------------------------

@given(st.integers(1, 4), st.integers(1, 12), st.sampled_from([0.0, 0.3, 2.0]),
       st.sampled_from([0.5, 1.0]), st.integers(0, 2**32 - 1))
def test_linear_system_heads_are_the_brute_force_heads(k, n, l1, l2, seed):
    """Scores and qualities of a batch of candidates equal the head computed from scratch."""
    from optrules.boosted_rules.heads import linear_system_heads
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, 2, (n, k)), rng.normal(size=(n, k)) * 2
    g, h = LOSSES["example-wise-logistic"].statistics(y, p)
    masks = rng.random((5, n)) < 0.6
    scores, qualities = linear_system_heads(np.stack([g[m].sum(axis=0) for m in masks], 1),
                                            np.stack([h[m].sum(axis=0) for m in masks], 1),
                                            l1, l2)
    for j, mask in enumerate(masks):
        quality, head = linear_system_head(g, h, mask, l1, l2)
        assert math.isclose(qualities[j], quality, rel_tol=1e-9, abs_tol=1e-12)
        assert np.allclose(scores[:, j], list(head.values()), rtol=1e-9, atol=1e-12)


@given(st.integers(1, 7), st.integers(1, 12), st.sampled_from([0.0, 0.3]),
       st.sampled_from([0.5, 1.0]), st.sampled_from([0.04, 0.3, 0.5, 0.99]),
       st.integers(0, 2**32 - 1))
def test_binned_heads_are_the_brute_force_binned_heads(k, n, l1, l2, ratio, seed):
    """Label binning: the bins, the aggregated system, scores and qualities of a batch of
    candidates against the head computed from scratch, candidate by candidate."""
    from optrules.boosted_rules.heads import binned_linear_system_heads
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, 2, (n, k)), rng.normal(size=(n, k)) * 2
    g, h = LOSSES["example-wise-logistic"].statistics(y, p)
    masks = rng.random((5, n)) < 0.6
    scores, qualities = binned_linear_system_heads(
        np.stack([g[m].sum(axis=0) for m in masks], 1),
        np.stack([h[m].sum(axis=0) for m in masks], 1), l1, l2, ratio)
    for j, mask in enumerate(masks):
        quality, head = binned_head(g, h, mask, l1, l2, ratio)
        assert math.isclose(qualities[j], quality, rel_tol=1e-9, abs_tol=1e-12)
        assert np.allclose(scores[:, j], list(head.values()), rtol=1e-9, atol=1e-12)


@given(st.integers(1, 5), st.sampled_from([None, 0.5]), st.integers(0, 2**32 - 1))
def test_a_linear_system_head_does_not_depend_on_its_batch(k, ratio, seed):
    """The fast engine solves many candidates at once, the reference one: the bits must not
    depend on the batch (found: scipy's batched solver divides 1 x 1 systems differently)."""
    from optrules.boosted_rules.heads import binned_linear_system_heads, linear_system_heads
    rng = np.random.default_rng(seed)
    g, h = LOSSES["example-wise-logistic"].statistics(rng.integers(0, 2, (9, k)),
                                                      rng.normal(size=(9, k)))
    masks = rng.random((6, 9)) < 0.6
    G = np.stack([g[m].sum(axis=0) for m in masks], 1)
    H = np.stack([h[m].sum(axis=0) for m in masks], 1)
    heads = (lambda a, b: linear_system_heads(a, b, 0.0, 1.0)) if ratio is None else \
        (lambda a, b: binned_linear_system_heads(a, b, 0.0, 1.0, ratio))
    scores, qualities = heads(G, H)
    for j in range(len(masks)):
        alone = heads(G[:, j:j + 1], H[:, j:j + 1])
        assert alone[0][:, 0].tolist() == scores[:, j].tolist()
        assert alone[1][0] == qualities[j]


@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_example_wise_statistics_are_the_derivatives_of_the_loss(k, seed):
    """g and the packed Hessian against central differences of ℓ and of g."""
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, 2, (6, k)), rng.normal(size=(6, k)) * 3
    loss = LOSSES["example-wise-logistic"]
    g, h = loss.statistics(y, p)
    step = 1e-6
    for c in range(k):
        shift = np.zeros(k)
        shift[c] = step
        slope = (loss.values(y, p + shift) - loss.values(y, p - shift)) / (2 * step)
        assert np.allclose(slope, g[:, c], atol=1e-6)
        curvature = (loss.statistics(y, p + shift)[0] - loss.statistics(y, p - shift)[0]) / \
            (2 * step)
        for r in range(k):
            low, high = min(r, c), max(r, c)
            assert np.allclose(curvature[:, r], h[:, high * (high + 1) // 2 + low], atol=1e-6)


def test_the_example_wise_loss_without_l2_and_its_restrictions():
    """λ2 = 0 (singular systems give no prediction): both engines agree; single heads and
    mlrl_compatible are refused with the reason."""
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(40, 3)), rng.integers(0, 2, (40, 3))
    Y[:, 2] = 1                                       # a constant label
    models = [fit_boosted_rules(X, Y, loss="example-wise-logistic", head="complete", l2=0.0,
                                max_rules=5, feature_sampling=False, engine=engine)
              for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules and len(models[0].rules) > 1
    with pytest.raises(ValueError, match="takes complete heads"):
        fit_boosted_rules(X, Y, loss="example-wise-logistic")
    with pytest.raises(ValueError, match="not one"):
        fit_boosted_rules(X, Y, loss="example-wise-logistic", head="complete",
                          mlrl_compatible=True)
    with pytest.raises(ValueError, match="label_binning bins the outputs"):
        fit_boosted_rules(X, Y, label_binning=0.04)


# ----- sparse data -------------------------------------------------------------------------------

@given(datasets(max_examples=20), st.integers(1, 4), st.booleans(),
       st.sampled_from([None, "with:0.7", "stratified:0.6"]), st.sampled_from([None, 0.3]),
       st.integers(0, 3), st.sampled_from([1, 2]), st.sampled_from([None, "width:0.5"]))
def test_sparse_data_give_the_dense_datas_model(dataset, max_rules, sampling, instances,
                                                 holdout, seed, n_jobs, binning):
    """The sparse and the dense form of the same data, in either engine, give the same rules,
    heads and curves bit for bit."""
    columns, y, options = dataset
    dense, sparse, nominal = sparse_twin(columns)
    models = [fit_boosted_rules(X, y, max_rules=max_rules, engine=engine,
                                nominal_features=nominal, feature_sampling=sampling,
                                instance_sampling=instances, holdout=holdout, patience=2,
                                binning=binning, random_state=seed, n_jobs=n_jobs, **options)
              for engine in ("reference", "fast") for X in (dense, sparse)]
    for model in models[1:]:
        assert model.rules == models[0].rules
        assert model.training_loss == models[0].training_loss
        assert model.holdout_loss == models[0].holdout_loss


@given(datasets(max_examples=20), st.integers(1, 4), st.sampled_from([None, "with:0.7"]),
       st.integers(0, 3))
def test_both_engines_follow_mlrl_boomers_sparse_search(dataset, max_rules, instances, seed):
    """``mlrl_compatible`` on a sparse matrix: mlrl-boomer's sparse search (its vectors hold
    the stored values, its candidates against the zeros), the same in both engines."""
    columns, y, options = dataset
    if options["loss"] == "example-wise-logistic":
        options = dict(options, loss="logistic", label_binning=None)
    _, sparse, nominal = sparse_twin(columns)
    models = [fit_boosted_rules(sparse, y, max_rules=max_rules, engine=engine,
                                nominal_features=nominal, feature_sampling=False,
                                instance_sampling=instances, random_state=seed,
                                mlrl_compatible=True, **options)
              for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules
    assert models[0].training_loss == models[1].training_loss


@given(st.lists(st.one_of(st.just(0.0), st.integers(-3, 3), st.just(np.nan),
                          st.sampled_from([1e-8, -1e-8, 1.0000001, -0.99999994])),
                min_size=1, max_size=25))
def test_the_sparse_phases_are_the_dense_searchs_candidates(cells):
    """§3.2: phases I-III over the stored values evaluate the dense search's candidates, in
    its order, with its sums bit for bit, and never read a zero."""
    reference = importlib.import_module("optrules.reference.boomer")
    values = np.array(cells, dtype=np.float32)
    n = len(values)
    rng = np.random.default_rng(n)
    g, h = rng.normal(size=(n, 2)), rng.random(size=(n, 2))
    weights = np.ones(n, dtype=np.int64)
    examples = np.flatnonzero(~np.isnan(values))
    total_g, total_h = g[examples].sum(axis=0), h[examples].sum(axis=0)
    dense = reference._numerical_candidates(values, None, examples, g, h, weights, total_g,
                                            total_h, False)
    stored = examples[values[examples] != 0]
    g_read = np.where((values != 0)[:, None], g, np.nan)      # a zero's statistics: NaN
    sparse = reference._sparse_numerical_candidates(stored, values[stored], len(examples) -
                                                    len(stored), g_read, h, weights, total_g,
                                                    total_h)
    key = [(c.operator, float(c.threshold), list(c.sum_g), list(c.sum_h)) for c in dense]
    assert [(c.operator, float(c.threshold), list(c.sum_g), list(c.sum_h))
            for c in sparse] == key


def test_the_fast_sparse_search_reads_only_the_stored_values():
    """One sparse feature of 100 000 examples with 3 stored values: the rows the fast engine
    searches hold those 3 and one stand-in for the zeros."""
    fast = importlib.import_module("optrules.fast.boomer")
    n = 100_000
    X = scipy.sparse.csc_matrix(([-1.0, 2.0, 3.0], ([5, 70, 99_999], [0, 0, 0])),
                                shape=(n, 1))
    induction = fast.RuleInduction(sparse_training_data(X), SearchConfig())
    stats = fast._channels(np.ones((n, 1)), np.ones((n, 1)), np.ones(n), np.arange(1), False)
    examples, values, _, _ = induction._sparse_rows(np.array([0]), np.ones(n, bool), stats)
    assert values.tolist() == [[-1.0, 0.0, 2.0, 3.0]]
    assert examples.tolist() == [[5, n, 70, 99_999]]


def test_a_declared_nominal_feature_keeps_its_values():
    X = np.array([[0.0], [3.0], [3.0], [7.0], [np.nan]])
    model = fit_boosted_rules(X, [0, 1, 1, 0, 0], max_rules=1, feature_sampling=False,
                              nominal_features=[0])
    assert str(model.rules[1].conditions[0]) == "Condition(feature=0, operator='==', " \
        "threshold=3.0)"
    assert "x0 == 3.0" in str(model)
    again = type(model).from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.rules == model.rules and again.nominal == (True,)
    with pytest.raises(ValueError, match=r"nominal_features must hold column indices in \[0, 1\)"):
        fit_boosted_rules(X, [0, 1, 1, 0, 0], nominal_features=[1])
    with pytest.raises(ValueError, match="column 0 .'c'. is categorical"):
        fit_boosted_rules({"c": ["a", "b"]}, [0, 1], nominal_features=[0])


@pytest.mark.parametrize("engine", sorted(ENGINES))
@given(datasets(), st.lists(st.integers(0, 3), min_size=20, max_size=20))
def test_a_weighted_search_finds_the_best_weighted_condition(engine, dataset, weights):
    """With example weights (instance sampling), the first condition's quality is the least
    over every condition between the examples of non-zero weight, sums weighted; the examples
    of weight 0 are covered as the threshold says."""
    columns, y, options = dataset
    data = training_data(as_features(columns))
    weights = np.array(weights[:data.n_examples], dtype=np.int64)
    loss = LOSSES[options["loss"]]
    g, h = loss.statistics(y, np.zeros_like(y))
    config = SearchConfig(options["head"], options["l1"], options["l2"],
                          options["min_coverage"], 1,
                          packed_hessian=LOSSES[options["loss"]].packed_hessian,
                          label_binning=options.get("label_binning"))
    induction = importlib.import_module(ENGINES[engine]).RuleInduction(data, config)
    found = induction.find_rule(g, h, weights, lambda: np.arange(data.n_features))
    counted = weights > 0
    wg, wh = g * weights[:, None], h * weights[:, None]
    outputs = range(y.shape[1])
    best = math.inf
    # examples of weight 0 take no part in the search: the conditions of the counted ones
    for f, operator, threshold, mask in all_conditions(data, counted):
        if mask.sum() >= options["min_coverage"]:
            best = min(best, head_quality(wg, wh, mask, outputs, brute_head(options),
                                          options["l1"], options["l2"])[0])
    if found is None:
        assert not best < -1e-9 * max(1.0, abs(best)), engine
        return
    condition, = found.conditions
    mask = counted & condition.covers(data.values[condition.feature])
    quality = head_quality(wg, wh, mask, found.outputs if options["head"] == "single"
                           else outputs, brute_head(options), options["l1"], options["l2"])[0]
    assert math.isclose(quality, best, rel_tol=1e-9, abs_tol=1e-12), engine
    # the examples of weight 0 between the counted ones follow the threshold
    assert np.array_equal(found.covered, condition.covers(data.values[condition.feature])), \
        engine


# ----- mlrl-boomer 0.12.3 -----------------------------------------------------------------------

# Observed with mlrl-boomer 0.12.3 (max_rules=2, sampling off): its first induced rule on one
# feature. A and G: the boundary between the two smallest values from zero up is never tried;
# D and G: the threshold between negative and other values is taken from the second smallest
# value from zero up (0.5, not 0).
MLRL_QUIRKS = [
    ([1, 2, 3, 4, 5, 6], [0, 1, 1, 1, 1, 1], (">", 2.5)),
    ([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 0], ("<=", 5.5)),
    ([-3, -2, -1, 1, 2, 3], [0, 0, 0, 1, 1, 1], ("<=", 0.5)),
    ([-3, -2, -1, 1, 2, 3], [0, 0, 0, 0, 1, 1], ("<=", 0.5)),
    ([0, 0, 1, 2, 3, 4], [0, 0, 1, 1, 1, 1], (">", 0.5)),
]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("x, y, expected", MLRL_QUIRKS)
def test_mlrl_compatible_search_reproduces_mlrl_boomer_quirks(engine, x, y, expected):
    model = fit_boosted_rules(np.array(x, dtype=float)[:, None], y, max_rules=1,
                              feature_sampling=False, mlrl_compatible=True, engine=engine)
    condition, = model.rules[1].conditions
    assert (condition.operator, condition.threshold) == expected


def tied_nominal_values(first_values):
    """A nominal feature whose values 2 and 3 tie in every sum (the majority value 0 and the
    value 1 are all negatives): the one mlrl-boomer meets first in its map wins."""
    codes = list(first_values) + [0] * 30 + [1] * 29 + [2, 2, 3, 3]
    return np.array(codes, dtype=float)[:, None], [int(c >= 2) for c in codes]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("first_values, expected", [
    ([2, 3], [(0, "!=", 3.0), (0, "!=", 2.0)]), ([3, 2], [(0, "!=", 2.0), (0, "!=", 3.0)])])
def test_mlrl_compatible_nominal_search_visits_the_values_in_mlrl_boomers_order(
        engine, first_values, expected):
    """Observed with mlrl-boomer 0.12.3: values first met in the order 2, 3, 0, 1 are searched
    1, 3, 2 (libstdc++'s unordered_map; 0 is the majority value), so ``x != 3`` wins the tie;
    met 3, 2, 0, 1, they are searched 1, 2, 3."""
    X, y = tied_nominal_values(first_values)
    model = fit_boosted_rules(X, y, max_rules=1, feature_sampling=False, mlrl_compatible=True,
                              engine=engine, nominal_features=[0])
    assert [(c.feature, c.operator, c.threshold) for c in model.rules[1].conditions] == \
        expected


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_mlrl_compatible_search_closes_a_nominal_feature_after_equality(engine):
    """Observed with mlrl-boomer 0.12.3: after ``x != majority`` (or ``x == v``) a rule's
    search drops the feature, so the third rule stops at ``x != 0``; searched again, the
    feature would give it ``x != 3`` too (found by a random search over small data)."""
    X = np.array([[4.0], [0], [2], [4], [3], [2], [4], [4], [0], [0], [0]])
    y = [1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0]
    model = fit_boosted_rules(X, y, max_rules=3, feature_sampling=False, mlrl_compatible=True,
                              engine=engine, nominal_features=[0])
    assert [[(c.feature, c.operator, c.threshold) for c in rule.conditions]
            for rule in model.rules] == [[], [(0, "==", 0.0)], [(0, "==", 0.0)],
                                         [(0, "!=", 0.0)]]


def test_both_engines_sort_equal_values_as_mlrl_boomer():
    """With many equal values (runs longer than introsort's 16), the order std::sort leaves
    them in decides the last bits of the sums: both engines use it, bit for bit."""
    rng = np.random.default_rng(7)
    X = rng.integers(-2, 3, size=(90, 2)).astype(float) * 0.1
    y = (X[:, 0] + rng.normal(size=90) * 0.3 > 0).astype(int)
    models = [fit_boosted_rules(X, y, max_rules=3, feature_sampling=False, mlrl_compatible=True,
                                engine=engine) for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules
    assert models[0].training_loss == models[1].training_loss


@pytest.mark.parametrize("X, y", [
    ([[1e-38], [0], [-1e-45], [0], [1e-38]], [0, 0, 0, 1, 0]),   # -1e-45 is_equal 0
    ([[-3e38], [1e38], [1e38]], [0, 1, 1]),                      # their difference overflows
])
def test_thresholds_separate_the_values_they_lie_between(X, y):
    """Found by an adversarial review: the boundary between the negative values and the others
    was evaluated between values mlrl-boomer's is_equal calls equal, and the midpoint of
    values whose float32 difference overflows was inf; either threshold covered other examples
    than its statistics, and the engines parted. Now every threshold t between a < b has
    a <= t < b, and the model saves."""
    models = [fit_boosted_rules(X, y, max_rules=3, feature_sampling=False, engine=engine)
              for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules
    assert models[0].training_loss == models[1].training_loss
    values = np.array(X, dtype=np.float32)[:, 0]
    for rule in models[1].rules[1:]:
        for condition in rule.conditions:
            below, above = values[values <= condition.threshold], \
                values[values > condition.threshold]
            assert len(below) and len(above) and np.isfinite(condition.threshold)
    json.dumps(models[1].to_dict(), allow_nan=False)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_mlrl_compatible_skips_features_mlrl_boomer_holds_no_values_of(engine):
    """Observed with mlrl-boomer 0.12.3 on a CSC matrix: once a rule covers no stored value
    of x1, mlrl-boomer no longer searches x1 (an empty vector), so it offers no condition
    against x1's zeros covering the whole rule (which would win here: the first condition's
    sums left out the smallest positive value of x0)."""
    X = scipy.sparse.csc_matrix(np.array([
        [1.4, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.2, -1.1, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, -0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0]]).T)
    y = [0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1]
    model = fit_boosted_rules(X, y, max_rules=3, feature_sampling=False, mlrl_compatible=True,
                              engine=engine)
    assert [sorted((c.feature, c.operator, c.threshold) for c in rule.conditions)
            for rule in model.rules] == [[], [(0, ">", 0.699999988079071)],
                                         [(0, ">", 0.699999988079071)],
                                         [(0, "<=", 0.699999988079071),
                                          (1, ">", -0.6499999761581421)]]


def test_mlrl_compatible_needs_int32_nominal_codes():
    X = np.array([[0.0], [1.5], [2.0]])
    with pytest.raises(ValueError, match=r"nominal feature 0 .* int32 integers.*1\.5"):
        fit_boosted_rules(X, [0, 1, 1], nominal_features=[0], mlrl_compatible=True)


LIBSTDCXX = json.loads((FIXTURES / "libstdcxx_orders.json").read_text())


@pytest.mark.parametrize("case", LIBSTDCXX["unordered_map"]["cases"])
def test_unordered_map_order_is_libstdcxxs(case):
    assert unordered_map_order(case["emplaced"]) == case["iterated"]


@pytest.mark.parametrize("case", LIBSTDCXX["unordered_set"]["cases"])
def test_missing_order_follows_libstdcxxs_unordered_set(case):
    """A set filled in order, thinned by erasing, and a new set filled from it: the orders of
    :class:`MissingOrder` (each feature's missing examples, as mlrl-boomer keeps them)."""
    n = max(case["inserted"], default=0) + 1
    column = np.zeros(n, dtype=np.float32)
    column[case["inserted"]] = np.nan
    rule = MissingOrder([column]).for_rule()
    assert rule.of(0, np.ones(n, dtype=bool), False).tolist() == case["iterated"]
    erased = set(case["erased"])             # erasing keeps the others' order (later filters)
    assert [k for k in case["iterated"] if k not in erased] == case["after_erasing"]
    kept = np.ones(n, dtype=bool)
    kept[case["erased"]] = False
    assert rule.of(0, kept, True).tolist() == case["rebuilt"]      # the first filter: rebuilt


@pytest.mark.parametrize("case", LIBSTDCXX["sort"]["cases"])
def test_std_sort_order_is_libstdcxxs(case):
    assert std_sort_order(np.array(case["values"], dtype=np.float32)).tolist() == \
        case["indices"]


@pytest.mark.parametrize("case", LIBSTDCXX["heapsort"]["cases"])
def test_the_heapsort_of_std_sort_is_libstdcxxs(case):
    """Introsort's fallback, on a run that does not start the list."""
    from optrules.boosted_rules.mlrl_layout import _heapsort
    keys, items = [-1.0] * 3 + [float(v) for v in case["values"]], \
        [-1] * 3 + list(range(len(case["values"])))
    _heapsort(keys, items, 3, len(keys))
    assert items[3:] == case["indices"]


def test_std_sort_order_with_missing_values_and_none_equal():
    values = np.array([3.0, np.nan, -1.0, 2.0], dtype=np.float32)
    assert std_sort_order(values).tolist() == [2, 3, 0]


@pytest.mark.parametrize("codes, expected", [
    ([2, 0, 1, 1, 0, 1, None], ((0.0, 2.0), 1.0, True)),     # map order 1 0 2
    ([0, 1, 2, 3, 1, 2], ((3.0, 1.0, 0.0), 2.0, True)),      # 3 2 1 0: 2 is met before 1
    ([5, 7, 7], ((5.0,), 7.0, False)),                       # binary: the rarer value
    ([7, 5, 7, 5], ((5.0,), 7.0, False)),                    # a tie: the first in map order
    ([4, 4, None], ((), None, False)),                        # one value: no condition
])
def test_nominal_layout(codes, expected):
    column = np.array([np.nan if c is None else c for c in codes], dtype=np.float32)
    assert tuple(nominal_layout(column)) == expected


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_threads_learn_the_same_rules(engine):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 7)).round(1)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    rules = [fit_boosted_rules(X, y, max_rules=4 if engine == "reference" else 30,
                               engine=engine, n_jobs=jobs, random_state=1).rules
             for jobs in (1, 3)]
    assert rules[0] == rules[1]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@given(datasets(), st.sampled_from(["width:0.5", "frequency:0.5", "width:0.2"]))
def test_the_histogram_search_finds_the_best_bin_threshold(engine, dataset, binning):
    """§4: the first condition is the best of x <= t_b / x > t_b over the thresholds between
    neighbouring bins (and the nominal conditions)."""
    columns, y, options = dataset
    data = training_data(as_features(columns))
    model = fit_boosted_rules(columns, y, max_rules=1, max_conditions=1, binning=binning,
                              feature_sampling=False, engine=engine, **options)
    g, h = statistics(model, data, y, 0)
    outputs = range(y.shape[1])
    method, ratio = binning.split(":")
    masks = []
    for f, values in enumerate(data.values):
        if data.nominal[f]:
            masks += [m for ff, _, _, m in all_conditions(data, np.ones(len(values), bool))
                      if ff == f]
            continue
        for threshold in brute_force_bins(values, method, float(ratio))[1]:
            present = ~np.isnan(values)
            masks += [present & (values <= threshold), present & (values > threshold)]
    qualities = [head_quality(g, h, m, outputs, brute_head(options), options["l1"],
                              options["l2"])[0] for m in masks
                 if m.sum() >= options["min_coverage"]]
    best = min(qualities, default=math.inf)
    if len(model.rules) == 1:
        assert not best < -1e-9 * max(1.0, abs(best)), engine
        return
    condition, = model.rules[1].conditions
    mask = condition.covers(data.values[condition.feature])
    rule_outputs = model.rules[1].outputs if options["head"] == "single" else outputs
    chosen = head_quality(g, h, mask, rule_outputs, brute_head(options), options["l1"],
                          options["l2"])[0]
    assert chosen <= best + 1e-9 * max(1.0, abs(best)), engine


def test_fine_bins_of_few_covered_examples_are_compacted_as_the_reference(monkeypatch):
    """With many bins and a rule covering few examples the fast engine keeps only the
    occupied bins; the rules stay the reference's, bit for bit."""
    fast = importlib.import_module("optrules.fast.boomer")
    calls = []
    original = fast._occupied_bins
    monkeypatch.setattr(fast, "_occupied_bins",
                        lambda *args: calls.append(1) or original(*args))
    rng = np.random.default_rng(6)
    X = rng.normal(size=(3000, 3))
    y = (X[:, 0] > 1.5) | (X[:, 1] < -1.8)
    models = [fit_boosted_rules(X, y, max_rules=4, binning="width:1", feature_sampling=False,
                                engine=engine) for engine in ("reference", "fast")]
    assert calls and models[0].rules == models[1].rules
    assert models[0].training_loss == models[1].training_loss


def brute_force_bins(values, method, ratio):
    """(bin of each present value, thresholds) straight from eq. 6-8: B = max(2, ⌈ratio·D⌉)
    capped at D distinct values; equal values share the bin of their first rank; bins whose
    facing values are is_equal are one; thresholds between neighbouring non-empty bins."""
    present = np.sort(values[~np.isnan(values)])
    distinct = sorted(set(present.tolist()))
    if not distinct:
        return {}, []
    n_bins = min(len(distinct), max(2, math.ceil(ratio * len(distinct))))
    if method == "width":
        width = (distinct[-1] - distinct[0]) / n_bins
        bin_of = {v: 0 if width == 0 else min(int((v - distinct[0]) / width), n_bins - 1)
                  for v in distinct}
    else:
        first = {}
        for rank, v in enumerate(present.tolist()):
            first.setdefault(v, rank)
        bin_of = {v: first[v] * n_bins // len(present) for v in distinct}
    thresholds, joined, current = [], {distinct[0]: 0}, 0
    for small, large in zip(distinct[:-1], distinct[1:]):
        if bin_of[small] != bin_of[large] and not close(small, large):  # a bin ends at small
            thresholds.append(between(small, large))
            current += 1
        joined[large] = current
    return joined, thresholds


@given(st.lists(st.one_of(st.integers(-5, 5), st.floats(-3, 3, width=32), st.just(None)),
                min_size=1, max_size=30),
       st.sampled_from(["width", "frequency"]), st.sampled_from([0.1, 0.33, 0.5, 1.0]))
def test_binning_follows_the_papers_equations(cells, method, ratio):
    from optrules.boosted_rules.binning import feature_bins
    values = np.array([np.nan if c is None else c for c in cells], dtype=np.float32)
    bins = feature_bins(values, method, ratio)
    bin_of, thresholds = brute_force_bins(values, method, ratio)
    assert bins.thresholds.tolist() == [float(t) for t in thresholds]
    present = ~np.isnan(values)
    assert (bins.index[~present] == -1).all()
    # the same partition of the values, bins numbered in increasing order of value
    groups = {}
    for value, b in zip(values[present].tolist(), bins.index[present].tolist()):
        groups.setdefault(b, set()).add(bin_of[value])
    assert all(len(g) == 1 for g in groups.values())
    assert sorted(groups) == list(range(bins.n_bins))


def test_the_paper_search_tries_every_boundary():
    model = fit_boosted_rules(np.arange(1.0, 7.0)[:, None], [0, 1, 1, 1, 1, 1], max_rules=1,
                              feature_sampling=False)
    condition, = model.rules[1].conditions
    assert (condition.operator, condition.threshold) == (">", 1.5)


@pytest.mark.parametrize("dataset", ["breast", "breast-missing", "breast-nominal",
                                     "sparse-small"])
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_mlrl_boomer_rules_on_breast_cancer(engine, dataset):
    """The first rules mlrl-boomer 0.12.3 learns on scikit-learn's breast cancer data, with 5%
    of its values missing, with five columns as nominal quartile codes, and on a small sparse
    matrix, sampling off (tests/data/mlrl_boomer_breast_cancer.json, written by
    ``benchmarks/boosted_rules.py --write-fixture``): same conditions, thresholds, heads bit
    for bit. These need mlrl-boomer's order of equal values, of nominal values and of missing
    values (libstdc++'s std::sort, std::unordered_map and std::unordered_set), its sparse
    search, its counts, and the C library's exp."""
    fixture = json.loads((FIXTURES / "mlrl_boomer_breast_cancer.json").read_text())
    data = fixture["datasets"][dataset]
    if "csc" in data:
        csc = data["csc"]
        X = scipy.sparse.csc_matrix((csc["data"], csc["indices"], csc["indptr"]),
                                    shape=csc["shape"])
        y = np.array(data["y"])
    else:
        datasets = pytest.importorskip("sklearn.datasets")
        X, y = datasets.load_breast_cancer(return_X_y=True)
        for j, column in data["columns"].items():
            X[:, int(j)] = column
        for i, j in data["missing"]:
            X[i, j] = np.nan
    n_rules = 2 if engine == "reference" else len(data["rules"]) - 1
    model = fit_boosted_rules(X, y, max_rules=n_rules, feature_sampling=False,
                              mlrl_compatible=True, engine=engine,
                              nominal_features=data["nominal"])
    assert len(model.rules) == n_rules + 1
    for k, (ours, theirs) in enumerate(zip(model.rules, data["rules"])):
        conditions = sorted([c.feature, c.operator, c.threshold] for c in ours.conditions)
        assert conditions == theirs["conditions"], k
        assert [str(o) for o in ours.outputs] == list(theirs["head"]), k
        assert list(ours.scores) == list(theirs["head"].values()), k          # bit for bit


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("fixture", ["small_sparse", "small_nominal"])
def test_mlrl_boomer_rules_on_small_random_problems(engine, fixture):
    """The first rules mlrl-boomer 0.12.3 learns on 120 small random CSC matrices with missing
    values, and on 120 small dense problems with nominal features (binary ones among them)
    and missing values (tests/data/mlrl_boomer_small_*.json, written by
    ``benchmarks/boosted_rules.py --write-small-fixtures``): same conditions and thresholds,
    heads bit for bit. Among them: matrices mlrl-boomer densifies (specs §4.7), conditions
    whose count is not their coverage's, vectors its interval filter ends, missing values in
    its order and subtracted again after a nominal ``!=`` (§4.8), binary features (§4.4)."""
    cases = json.loads((FIXTURES / f"mlrl_boomer_{fixture}.json").read_text())["cases"]
    for i, case in enumerate(cases):
        X = np.array(case["X"], dtype=float)
        if case.get("sparse", True):
            X = scipy.sparse.csc_matrix(X)
        model = fit_boosted_rules(X, case["y"], max_rules=len(case["rules"]) - 1,
                                  feature_sampling=False, mlrl_compatible=True, engine=engine,
                                  nominal_features=case.get("nominal") or None)
        assert [sorted([c.feature, c.operator, c.threshold] for c in rule.conditions)
                for rule in model.rules] == [rule["conditions"] for rule in case["rules"]], i
        for ours, theirs in zip(model.rules, case["rules"]):
            assert [str(o) for o in ours.outputs] == list(theirs["head"]), i
            assert list(ours.scores) == list(theirs["head"].values()), i


def test_nominal_totals_follow_the_rules_sums_in_mlrl_compatible_mode():
    """Found by the deep Hypothesis profile: with instance sampling, the fast engine summed a
    nominal feature's totals afresh while the reference took the rule's sums (mlrl-boomer's
    bookkeeping); the last bits then chose `!= b` over `== a`."""
    columns = {"c0": np.array(["a", "a", "a", "a", None, "b", "a", "a", "a", "b"],
                              dtype=object)}
    models = [fit_boosted_rules(columns, np.zeros((10, 1)), max_rules=2, engine=engine,
                                mlrl_compatible=True, feature_sampling=False,
                                instance_sampling="with:0.7", random_state=0, l2=0.0)
              for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules


@pytest.mark.parametrize("instances, holdout", [("without:0.5", None), ("with:0.7", 0.3)])
def test_nominal_values_of_unsampled_examples_in_mlrl_compatible_mode(instances, holdout):
    """Found by the deep Hypothesis profile: a nominal value held only by examples of weight 0
    gave the fast engine a condition covering no counted example (its sums a rounding
    residue), and a rule covering only holdout examples crashed the head's recomputation."""
    columns = {"x0": np.array([-1.0] * 5 + [np.nan] * 5),
               "c1": np.array([None, "a", "a", "a", None, None, "a", None, "b", None],
                              dtype=object)}
    models = [fit_boosted_rules(columns, np.zeros((10, 1)), max_rules=2, engine=engine,
                                mlrl_compatible=True, feature_sampling=False,
                                instance_sampling=instances, holdout=holdout, random_state=2)
              for engine in ("reference", "fast")]
    assert models[0].rules == models[1].rules and models[0].status == models[1].status
