"""optrules.data: the data side of the pipeline, shared by every method.

Tables and canonical feature columns (:mod:`.table`), packed bitsets (:mod:`.bitset`),
propositions on features (:mod:`.propositions`), antecedent mining for rule lists
(:mod:`.mining`), binary antecedent datasets (:mod:`.binary_dataset`), the CORELS text formats
(:mod:`.corels_files`) and synthetic data (:mod:`.synthetic`). The bundled COMPAS training split
is ``compas_train.csv`` in this package.
"""
