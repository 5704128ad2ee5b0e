"""Model files: fitted estimators saved as JSON and loaded back, checked, never pickled.

A model file is one JSON object::

    {"format": "optrules.model", "version": 1, "kind": "RuleListClassifier",
     "optrules_version": "0.1.0", "params": {...}, "n_features_in": 7, ...,
     "sha256": "<hex digest of everything else>"}

``kind`` names the estimator class; the rest is the class's own content (parameters, feature
schema, classes, rules, exact objective and status where there is one). ``sha256`` is the
SHA-256 of the canonical JSON text of all other fields (sorted keys, no whitespace, UTF-8), so
a file truncated, corrupted or edited after it was written is rejected instead of silently
predicting something else (or claiming an optimality it no longer has).

:func:`load_model` raises ``ValueError`` naming the file and the problem: unreadable, not JSON
(truncated), not an optrules model, a version this optrules cannot read, a checksum mismatch,
an unknown kind, or content that does not describe a valid model.
"""

import hashlib
import json
import os
from fractions import Fraction

import numpy as np

from optrules.validation import read_json, shown, write_text_atomically

__all__ = ["FORMAT", "VERSION", "HEADER_FIELDS", "load_model", "write_model", "read_model",
           "json_params"]

FORMAT = "optrules.model"
VERSION = 1
#: The fields every model file starts with (then the estimator's content, then ``sha256``).
HEADER_FIELDS = ("format", "version", "kind", "optrules_version")


def _digest(content):
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_params(params):
    """Estimator parameters in JSON form: Fractions as ``"p/q"``, numpy scalars as Python
    numbers, tuples as lists, paths (``trace``, ``certificate``) as text; a callable (not
    storable) as None."""
    def convert(value):
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, Fraction):
            return f"{value.numerator}/{value.denominator}"
        if isinstance(value, np.floating):
            # its shortest decimal in its own precision: np.float32(0.015) is 0.015, which is
            # what the estimator read (.item() would widen it to 0.014999999664723873)
            return float(str(value))
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, (tuple, list, frozenset, set)):
            return [convert(v) for v in (sorted(value) if isinstance(value, (set, frozenset))
                                         else value)]
        return None if callable(value) else value
    return {name: convert(value) for name, value in params.items()}


def write_model(path, kind, content):
    """Write a model file of ``kind`` with ``content`` (a JSON-ready dict)."""
    from optrules import __version__
    body = dict(zip(HEADER_FIELDS, (FORMAT, VERSION, kind, __version__)))
    body.update(content)
    body["sha256"] = _digest(body)
    text = json.dumps(body, indent=1, ensure_ascii=False, allow_nan=False)
    write_text_atomically(path, text + "\n")


def read_model(path):
    """The checked JSON object of a model file; ValueError naming the file and the problem.

    Checked here, for every kind: strict JSON (:func:`~optrules.validation.read_json`: no NaN or
    infinite numbers), the format, the version, the header's types and the checksum. The
    content is checked by the estimator's ``_from_model_content``, whatever the checksum says:
    a careless edit followed by a recomputed checksum is refused as surely as a corrupted file.
    """
    body = read_json(path, "model file")
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ValueError(f"{path}: not an optrules model file (expected \"format\": "
                         f"\"{FORMAT}\").")
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"{path}: the model file has an invalid version {shown(version)}.")
    if version > VERSION:
        raise ValueError(f"{path}: the model file has version {version}, written by a newer "
                         f"optrules; this optrules reads version {VERSION}.")
    claimed = body.pop("sha256", None)
    if claimed is None:
        raise ValueError(f"{path}: the model file has no sha256 checksum.")
    if claimed != _digest(body):
        raise ValueError(f"{path}: the model file's content does not match its sha256 "
                         "checksum: it was modified or corrupted after it was written.")
    if not isinstance(body.get("optrules_version"), str):
        raise ValueError(f"{path}: the model file's optrules_version must be a string; got "
                         f"{shown(body.get('optrules_version'))}.")
    return body


def load_model(path):
    """Load a fitted estimator saved with ``to_json(path)``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    RuleListClassifier, OptimalRuleBoostingClassifier, OptimalRuleBoostingRegressor,
    BoostedRulesClassifier, BoostedRulesRegressor, CompressedRuleEnsembleClassifier or
    CompressedRuleEnsembleRegressor
        Fitted, predicting exactly as the estimator that was saved.

    Raises
    ------
    ValueError
        If the file is unreadable, truncated, tampered with, of an unknown kind or version, or
        does not describe a valid model; the message names the file and the problem.

    Examples
    --------
    >>> import os, tempfile
    >>> from optrules import RuleListClassifier, load_model
    >>> X = [["a"], ["a"], ["b"], ["b"]]
    >>> model = RuleListClassifier(lam=0.1).fit(X, [1, 1, 0, 0])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> model.to_json(path)
    >>> load_model(path).predict([["b"], ["a"]]).tolist()
    [0, 1]
    """
    from optrules.boosted_rules.estimator import BoostedRulesClassifier, BoostedRulesRegressor
    from optrules.compressed_rules.estimator import (CompressedRuleEnsembleClassifier,
                                                     CompressedRuleEnsembleRegressor)
    from optrules.rule_boosting.estimator import (OptimalRuleBoostingClassifier,
                                                  OptimalRuleBoostingRegressor)
    from optrules.rule_lists.estimator import RuleListClassifier
    kinds = {cls.__name__: cls for cls in (RuleListClassifier, OptimalRuleBoostingClassifier,
                                           OptimalRuleBoostingRegressor, BoostedRulesClassifier,
                                           BoostedRulesRegressor,
                                           CompressedRuleEnsembleClassifier,
                                           CompressedRuleEnsembleRegressor)}
    body = read_model(path)
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in kinds:
        raise ValueError(f"{path}: unknown model kind {shown(kind)}; this optrules reads "
                         f"{sorted(kinds)}.")
    try:
        return kinds[kind]._from_model_content(body)
    except (KeyError, TypeError, ValueError) as error:
        problem = f"lacks the field {error}" if isinstance(error, KeyError) else str(error)
        raise ValueError(f"{path}: the {kind} model file is invalid: {problem}") from None
