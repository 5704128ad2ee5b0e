"""A search certificate's tree as a networkx graph, for viewing (GraphML) or analysis.

networkx is an optional dependency (``pip install optrules[graph]``); nothing else in optrules
needs it. The graph is read from the records, not checked: check the certificate first
(:func:`.search_certificate.check_search_certificate`).
"""

import json

from .certificate_replay import lines

__all__ = ["search_tree"]

#: The fields of a record kept as node attributes: rule lists' ``children`` codes and
#: ``reason``, boosting rules' ``codes`` and ``usable`` set; both have ``bound``.
FIELDS = ("bound", "children", "reason", "codes", "usable")


def search_tree(path):
    """The tree of expanded and dropped prefixes (rule lists) or queries (boosting rules) of
    the search certificate at ``path``.

    Returns
    -------
    networkx.DiGraph
        A node per prefix or query named by its indices joined with "," (the empty one: ""),
        with ``kind`` ("expanded", "dropped" or "expanded, dropped") and the record's
        :data:`FIELDS` (``bound`` as "p/q"; the codes of an expansion; a drop's reason; a
        query's usable set); an edge from each node's parent, with ``antecedent`` (the index
        added).

    Raises
    ------
    ImportError
        Without networkx, saying how to install it.

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from optrules.data.binary_dataset import BinaryDataset
    >>> from optrules.rule_lists import fit_rule_list
    >>> data = BinaryDataset.from_bits(["a", "b"], np.array([[1, 1, 0, 0], [0, 1, 1, 0]], bool),
    ...                                [1, 1, 0, 0])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "search.jsonl"
    >>> _ = fit_rule_list(data, "1/10", certificate=path)
    >>> tree = search_tree(path)
    >>> tree.nodes[""]["kind"], tree.nodes[""]["children"]
    ('expanded', 'lh')
    """
    try:
        import networkx
    except ImportError:
        raise ImportError("the search tree needs networkx: pip install 'optrules[graph]'") \
            from None
    tree = networkx.DiGraph()
    for number, line in enumerate(lines(path)):
        record = json.loads(line)
        if number == 0 or "end" in record:
            continue
        kind = "expanded" if "expanded" in record else "dropped"
        prefix = record[kind]
        name = ",".join(map(str, prefix))
        attributes = tree.nodes[name] if name in tree else {}
        attributes = dict(attributes, kind=kind if attributes.get("kind", kind) == kind
                          else "expanded, dropped")
        attributes.update({field: record[field] for field in FIELDS if field in record})
        tree.add_node(name, **attributes)
        if prefix:
            tree.add_edge(",".join(map(str, prefix[:-1])), name, antecedent=prefix[-1])
    return tree
