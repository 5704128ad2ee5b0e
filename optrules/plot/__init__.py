"""Plots of the searches and models (the optional extra ``plot``: matplotlib).

- :func:`search_trace`: a rule-list search's best objective and lower bound over time, its
  queue size and the lengths of its queued prefixes, from its trace (Angelino et al. 2018,
  Fig. 6 kind).
- :func:`boosting_curve`: test score against the number of rules, optimal against greedy
  rule boosting (Boley et al. 2021, Fig. 2 kind); :func:`rule_count_scores` computes it.
- :func:`cre_split_points`: a feature's split points by cluster and each cluster's soft
  condition Φ(x) in a compressed rule ensemble (Nalenz and Augustin, Fig. 2 kind).

Each writes PNG or SVG by the file's suffix, at ``size`` inches and ``dpi``, off screen.
Importing this package does not import matplotlib; a plot without it raises ImportError
saying to install ``optrules[plot]``. ``optrules plot`` draws the same from the command line.
"""

from optrules.plot.boosting_plot import boosting_curve, rule_count_scores
from optrules.plot.cre_plot import cre_split_points
from optrules.plot.search_plot import search_trace

__all__ = ["search_trace", "boosting_curve", "rule_count_scores", "cre_split_points"]
