"""Search certificates of rule lists (specs/certificates.md): both engines write them, the
checker in verify accepts them on random instances and on COMPAS, and rejects every tampering
(a deleted record, a weakened bound, another claim or model, a swapped witness, a truncated
file)."""

import gzip
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from optrules.cli import main
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.corels_files import load_corels, save_corels
from optrules.rule_lists import fit_rule_list
from optrules.verify import RuleListInstance, optimal_rule_list
from optrules.verify.search_certificate import check_search_certificate


@st.composite
def searches(draw):
    """A small dataset (2-3 classes, weights sometimes), λ, and search options."""
    n_antecedents = draw(st.integers(1, 6))
    n_samples = draw(st.integers(1, 24))
    n_classes = draw(st.sampled_from([2, 2, 3]))
    bits = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_samples,
                                           max_size=n_samples),
                                  min_size=n_antecedents, max_size=n_antecedents)), dtype=bool)
    labels = draw(st.lists(st.integers(0, n_classes - 1), min_size=n_samples,
                           max_size=n_samples))
    if n_antecedents > 1 and draw(st.booleans()):
        bits[1] = bits[0]                                     # equivalent prefixes
    weights = None
    if draw(st.booleans()):
        weights = draw(st.lists(st.sampled_from([1, 2, 3, 4, Fraction(1, 2), Fraction(3, 7)]),
                                min_size=n_samples, max_size=n_samples))
    classes = tuple(f"c{c}" for c in range(n_classes))
    data = BinaryDataset.from_bits([f"a{m}" for m in range(n_antecedents)], bits, labels,
                                   classes=classes, sample_weight=weights)
    lam = draw(st.sampled_from(["1/100", "1/40", "1/20", "1/10", "1/5"]))
    options = {"engine": draw(st.sampled_from(["fast", "reference"])),
               "symmetry_map": draw(st.sampled_from(["prefix", "captured", "none"])),
               "policy": draw(st.sampled_from(["lower-bound", "bfs", "dfs", "curiosity",
                                               "objective"]))}
    return data, lam, options


class Checked:
    """A rule-list instance with its class values: what the checker replays a certificate on."""

    def __init__(self, data, lam):
        self.instance = RuleListInstance.from_dataset(data, lam)
        self.classes = data.classes

    def check(self, path):
        return check_search_certificate(path, self.instance, self.classes)


def certified(tmp_path, data, lam, name="search.jsonl", **options):
    path = tmp_path / name
    result = fit_rule_list(data, lam, certificate=path, max_memory=None, **options)
    return result, path, Checked(data, lam)


@given(searches())
@settings(deadline=None)
def test_certificates_of_random_searches_are_accepted(tmp_path_factory, search):
    data, lam, options = search
    result, path, instance = certified(tmp_path_factory.mktemp("c"), data, lam, **options)
    report = instance.check(path)
    assert report.accepted, report.reason
    assert result.objective == optimal_rule_list(instance.instance)[0]


@pytest.fixture(scope="module")
def compas():
    folder = "../shared/data/compas/compas_train"
    return load_corels(f"{folder}.out", f"{folder}.label", f"{folder}.minor")


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_the_compas_certificate_is_accepted(compas, tmp_path, engine):
    """λ = 0.015 (4 159 expanded prefixes); gzip-compressed."""
    result, path, instance = certified(tmp_path, compas, "0.015", "search.jsonl.gz",
                                       engine=engine)
    report = instance.check(path)
    assert report.accepted, report.reason
    assert report.records == result.nodes_expanded + int(report.reason.split()[3])
    with gzip.open(path, "rt") as handle:
        assert json.loads(handle.readline())["claimed_objective"] == "245267/648900"


@pytest.mark.slow
def test_the_compas_certificate_at_lambda_0_01_is_accepted(compas, tmp_path):
    """102 652 expanded prefixes, 15.6 million children (specs/certificates.md §3)."""
    result, path, instance = certified(tmp_path, compas, "0.01", "search.jsonl.gz")
    report = instance.check(path)
    assert report.accepted, report.reason
    assert result.nodes_expanded == 102652 and result.objective == Fraction(119389, 324450)


# ----- tampering ---------------------------------------------------------------------------------
def mutation_case(tmp_path):
    """A search with many records of every kind: symmetric prefixes and drops."""
    rng = np.random.default_rng(5)
    bits = rng.random((7, 60)) < 0.35
    labels = (bits[0] & bits[2]) | (rng.random(60) < 0.2)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(7)], bits, labels)
    return certified(tmp_path, data, "1/50")


def edited(path, edit):
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    edit(records)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def first(records, kind, condition=lambda record: True):
    return next(i for i, record in enumerate(records) if kind in record and condition(record))


def delete_expanded(records):
    """The last expanded prefix (whose children are not expanded: no other record names it)."""
    del records[max(i for i, record in enumerate(records) if record.get("expanded"))]
    records[-1]["end"]["records"] -= 1


def delete_dropped(records):
    """A dropped prefix that was queued and not expanded (its own, and only, fate)."""
    expanded = {tuple(r["expanded"]) for r in records if "expanded" in r}
    del records[first(records, "dropped", lambda r: tuple(r["dropped"]) not in expanded)]
    records[-1]["end"]["records"] -= 1


def weaken_bound(records):
    record = records[first(records, "expanded", lambda r: r["expanded"])]
    record["bound"] = str(Fraction(record["bound"]) / 2)


def swap_witness(records):
    record = records[first(records, "expanded", lambda r: "witnesses" in r)]
    s, witness = next(iter(record["witnesses"].items()))
    record["witnesses"][s] = witness[::-1] if len(witness) > 1 else [int(s)]


def claim_lower(records):
    claim = Fraction(records[0]["claimed_objective"])
    records[0]["claimed_objective"] = str(claim - Fraction(1, 60))


def other_model(records):
    records[0]["model"]["rules"] = records[0]["model"]["rules"][:-1]


def move_counts(records):
    """A sample moved from the first rule's counts to the default's: the counts still sum to
    the total weight and the re-score is unchanged (found by review: it was accepted)."""
    model = records[0]["model"]
    rule_counts, default_counts = model["rules"][0]["class_counts"], model["default_counts"]
    k = next(c for c, count in enumerate(rule_counts) if int(count))
    rule_counts[k] = int(rule_counts[k]) - 1
    default_counts[k] = int(default_counts[k]) + 1


def child_code(records):
    record = records[first(records, "expanded", lambda r: "h" in r["children"])]
    record["children"] = record["children"].replace("h", "s", 1)


@pytest.mark.parametrize("edit, message", [
    (delete_expanded, "was queued but never expanded or dropped"),
    (weaken_bound, "the stated bound"),
    (swap_witness, "witness"),
    (claim_lower, "re-scores to"),
    (other_model, "re-scores to"),
    (move_counts, "the model's class counts of rule 0 are not"),
    (child_code, "fails its code 's'"),
    (lambda records: records.pop(), "truncated"),
    (lambda records: records.pop(first(records, "dropped")), "does not count"),
    (delete_dropped, "was queued but never expanded or dropped"),
])
def test_tampered_certificates_are_rejected(tmp_path, edit, message):
    _, path, instance = mutation_case(tmp_path)
    assert instance.check(path).accepted
    report = instance.check(edited(path, edit))
    assert not report.accepted and message in report.reason, report.reason


def swap_classes(records):
    """The classes reversed and every prediction flipped: the same re-score (by index), the
    opposite model (by value)."""
    model = records[0]["model"]
    model["classes"] = model["classes"][::-1]
    other = dict(zip(model["classes"], model["classes"][::-1]))
    for rule in model["rules"]:
        rule["prediction"] = other[rule["prediction"]]
        rule["class_counts"] = rule["class_counts"][::-1]
    model["default"] = other[model["default"]]
    model["default_counts"] = model["default_counts"][::-1]


@pytest.mark.parametrize("edit, message", [
    (swap_classes, "the model's classes"),
    (lambda records: records.insert(1, {"dropped": [], "reason": "y", "witness": [0],
                                        "bound": "0/1"}),
     "the empty prefix has no equivalent prefix before it"),
    (lambda records: records[first(records, "expanded")].update(bound="1" + "0" * 30 + "/1"),
     "is not an objective of this instance"),
    (lambda records: records[0].update(version=True), "not a version-1"),
    (lambda records: records[-1]["end"].update(records=float(records[-1]["end"]["records"])),
     "does not count"),
])
def test_malformed_or_misleading_certificates_are_rejected(tmp_path, edit, message):
    """Found by an adversarial review: each was accepted or raised an exception before."""
    _, path, instance = mutation_case(tmp_path)
    report = instance.check(edited(path, edit))
    assert not report.accepted and message in report.reason, report.reason


def test_deep_nesting_and_a_corrupt_gzip_stream_are_rejected(tmp_path):
    _, path, instance = mutation_case(tmp_path)
    nested = tmp_path / "nested.jsonl"
    nested.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert "not JSON (RecursionError" in instance.check(nested).reason
    zipped = bytearray(gzip.compress(path.read_bytes()))
    zipped[len(zipped) // 2] ^= 0xFF
    corrupt = tmp_path / "corrupt.jsonl.gz"
    corrupt.write_bytes(bytes(zipped))
    report = instance.check(corrupt)
    assert not report.accepted, report.reason


def test_a_truncated_gzip_file_is_rejected(tmp_path):
    _, path, instance = mutation_case(tmp_path)
    zipped = tmp_path / "search.jsonl.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes())[:-40])
    report = instance.check(zipped)
    assert not report.accepted and "unreadable" in report.reason, report.reason


def test_the_certificate_names_its_instance(tmp_path):
    _, path, instance = mutation_case(tmp_path)
    inner = instance.instance
    other = RuleListInstance.from_bits(inner.antecedents, 1 - inner.labels, inner.lam,
                                       inner.names)
    report = check_search_certificate(path, other, instance.classes)
    assert not report.accepted and "line 1: the instance digest" in report.reason


def test_a_stopped_search_writes_no_certificate(tmp_path):
    rng = np.random.default_rng(5)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(7)], rng.random((7, 60)) < 0.35,
                                   rng.random(60) < 0.4)
    result = fit_rule_list(data, "1/100", max_nodes=2, certificate=tmp_path / "s.jsonl")
    assert result.status == "node-limit" and list(tmp_path.iterdir()) == []


# ----- command line ------------------------------------------------------------------------------
def corels_files(tmp_path, instance):
    """The ``.out`` and ``.label`` files of a checked instance's data."""
    inner = instance.instance
    data = BinaryDataset.from_bits(list(inner.names), inner.antecedents, inner.labels)
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    save_corels(data, out, label)
    return out, label


def test_rulelist_writes_and_check_certificate_replays(tmp_path, capsys):
    _, path, instance = mutation_case(tmp_path)
    out, label = corels_files(tmp_path, instance)
    certificate = tmp_path / "cli.jsonl.gz"
    assert main(["rulelist", "--corels-out", str(out), "--corels-label", str(label), "--lam",
                 "1/50", "--certificate", str(certificate), "--quiet"]) == 0
    capsys.readouterr()
    corels = ["--corels-out", str(out), "--corels-label", str(label)]
    assert main(["check-certificate", str(certificate)] + corels) == 0
    assert capsys.readouterr().out.startswith("ACCEPTED: ")
    rejected = edited(path, weaken_bound)
    assert main(["check-certificate", str(rejected), "--json"] + corels) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["accepted"] and report["reason"].startswith("line ")
    with pytest.raises(SystemExit) as usage:
        main(["check-certificate", str(rejected), "--corels-out", str(out)])
    assert usage.value.code == 2
    assert "CORELS input needs both" in capsys.readouterr().err
    # found by review: a gzip file damaged within its first line was an internal error
    for damaged in (certificate.read_bytes()[:40], b"\x1f\x8b\x08\x00garbage\n"):
        cut = tmp_path / "cut.jsonl.gz"
        cut.write_bytes(damaged)
        assert main(["check-certificate", str(cut)] + corels) == 2
        assert f"error: {cut}: unreadable (" in capsys.readouterr().err
    label.write_text("")
    assert main(["check-certificate", str(rejected)] + corels) == 2
    assert "optrules check-certificate: error: " in capsys.readouterr().err


def test_a_csv_certificate_is_checked_on_the_csv(tmp_path, capsys):
    """The data and mining options of rulelist, given again, rebuild the same instance."""
    rng = np.random.default_rng(3)
    csv = tmp_path / "t.csv"
    csv.write_text("a,b,y\n" + "".join(f"{rng.integers(0, 6)},{'uvw'[rng.integers(3)]},"
                                        f"{rng.integers(2)}\n" for _ in range(80)))
    certificate = tmp_path / "csv.jsonl"
    data = ["--csv", str(csv), "--target", "y", "--thresholds", "quantile:4"]
    assert main(["rulelist", *data, "--lam", "0.02", "--certificate", str(certificate),
                 "--quiet"]) == 0
    assert main(["check-certificate", str(certificate), *data]) == 0
    assert "ACCEPTED" in capsys.readouterr().out
    assert main(["check-certificate", str(certificate), "--csv", str(csv), "--target",
                 "y"]) == 1                                  # other antecedents
    assert "line 1: the instance digest" in capsys.readouterr().out


def test_rulelist_says_when_it_writes_no_certificate(tmp_path, capsys):
    _, path, instance = mutation_case(tmp_path)
    out, label = corels_files(tmp_path, instance)
    assert main(["rulelist", "--corels-out", str(out), "--corels-label", str(label), "--lam",
                 "1/200", "--max-nodes", "1", "--certificate", str(tmp_path / "no.jsonl"),
                 "--quiet"]) == 0
    assert "no certificate written" in capsys.readouterr().err
    assert not (tmp_path / "no.jsonl").exists()


def test_check_certificate_help_has_an_example():
    out = subprocess.run([sys.executable, "-m", "optrules", "check-certificate", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "example: optrules rulelist" in out


def test_the_search_tree_exports_to_graphml(tmp_path, capsys):
    networkx = pytest.importorskip("networkx")
    _, path, instance = mutation_case(tmp_path)
    out, label = corels_files(tmp_path, instance)
    graphml = tmp_path / "tree.graphml"
    assert main(["check-certificate", str(path), "--corels-out", str(out), "--corels-label",
                 str(label), "--graphml", str(graphml)]) == 0
    tree = networkx.read_graphml(graphml)
    records = [json.loads(line) for line in path.read_text().splitlines()[1:-1]]
    expanded = {",".join(map(str, r["expanded"])) for r in records if "expanded" in r}
    assert {name for name, kind in tree.nodes(data="kind") if "expanded" in kind} == expanded
    assert networkx.is_tree(tree) and tree.in_degree("") == 0
