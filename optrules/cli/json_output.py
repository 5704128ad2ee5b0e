"""What the commands print with ``--json``: always valid JSON, which has no inf or nan.

Examples
--------
>>> print(json_text({"loss": float("inf"), "curve": [1.5, float("nan")]}, indent=None))
{"loss": null, "curve": [1.5, null]}
"""

import json
import math

__all__ = ["json_text"]


def json_text(value, indent=2):
    """``value`` as JSON text, each float that is not finite written as null (a training loss
    beyond the float range, say)."""
    return json.dumps(_finite(value), indent=indent, allow_nan=False)


def _finite(value):
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value
