"""optrules.data: the data side of the pipeline, shared by every method.

Tables and canonical feature columns (:mod:`.table`), packed bitsets (:mod:`.bitset`),
propositions on features (:mod:`.propositions`), antecedent mining for rule lists
(:mod:`.mining`), binary antecedent datasets (:mod:`.binary_dataset`), the CORELS text formats
(:mod:`.corels_files`) and synthetic data (:mod:`.synthetic`), plus the bundled datasets.

Examples
--------
>>> X, y = read_csv(bundled_csv("compas"), target=DATASETS["compas"]["target"])
>>> X.n_samples, X.names[:3], sorted(set(y.tolist()))
(6489, ('sex', 'age', 'juvenile-felonies'), [0, 1])
"""

from optrules.data.table import Features, MixedColumnWarning, as_features, read_csv

__all__ = ["DATASETS", "bundled_csv", "read_csv", "as_features", "Features",
           "MixedColumnWarning"]

#: Bundled datasets: name -> file in this package, target column and description.
DATASETS = {
    "compas": {"file": "compas_train.csv", "target": "recidivate-within-two-years",
               "description": "ProPublica COMPAS training split as CORELS uses it: 6489 rows, "
                              "7 categorical features, binary target "
                              "recidivate-within-two-years (1 = reoffended within two years)"},
    "parity": {"file": "parity.csv", "target": "parity",
               "description": "noisy 3-bit parity (Boley et al. 2021, Fig. 1b): 600 rows, numeric "
                              "features x1-x3 (a random sign ±1 plus Gaussian noise of sd 0.5) "
                              "and two irrelevant ones, target parity = the product of the three "
                              "signs (-1 or 1); optrules.data.synthetic.noisy_parity(600, d=3, "
                              "seed=0), noise columns from seed 1, 3 decimals"},
}


def bundled_csv(name):
    """Path-like of a bundled dataset's CSV file (a key of :data:`DATASETS`)."""
    from importlib import resources    # only here: with tempfile and shutil, it costs 7 ms
    if name not in DATASETS:
        raise ValueError(f"unknown bundled dataset {name!r}; choose from {sorted(DATASETS)}.")
    return resources.files("optrules.data") / DATASETS[name]["file"]
