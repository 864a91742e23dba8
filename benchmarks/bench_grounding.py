"""Agreement of ``GraphContextValidator`` with answers labelled by its rules beforehand.

The answers (``benchmarks/data/grounding/answers.json``) are written in the styles of
real chat models against contexts the injector rendered from the installed
``langgraph`` package (``contexts.json``), and each carries the verdict and findings its
author derived from the rules in README.md ("Checks on substance") *before* the
validator ran. The benchmark indexes the same installed package (to tell names the
graph has from invented ones), validates every answer with the default settings, and
prints the agreement on the verdict, the false accepts (labelled fail, validated pass)
and, per finding, how often the validator's list matches the label.

Targets: 0 false accepts and at least 98% agreement on the verdict.

Run: ``python benchmarks/bench_grounding.py [--show-disagreements]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from citeloop.grounding import GraphContextValidator, GraphValidationResult
from citeloop.knowledge import SqliteGraphStore, index_tree

DATA = Path(__file__).parent / "data"
SETS = ("grounding", "grounding_heldout")
"""The labelled sets: the first written with the rules, the second written apart from
the first and labelled without running the validator (a held-out check)."""
MIN_AGREEMENT = 0.98
MAX_FALSE_ACCEPTS = 0

# Label key -> the result field it is compared with (as sets of strings).
FINDINGS = {
    "invented": "invented_names",
    "in_graph": "ungrounded_in_graph",
    "invalid_citations": "invalid_citations",
    "invalid_locations": "invalid_locations",
    "missing_core_citations": "missing_core_citations",
}


def _graph_names(package: str) -> frozenset[str]:
    root = Path(importlib.import_module(package).__path__[0])
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteGraphStore(Path(folder) / f"{package}.db")
        try:
            index_tree(root, store)
            return store.names()
        finally:
            store.close()


def _agrees(label: str, labelled: list[str], result: GraphValidationResult) -> bool:
    """Whether the validator's list matches the label. Labels write a citation as the
    answer does (``Pregel.invoke``) and a location alone (``types.py:700``); the result
    reduces a citation to its last part and reports a location with its item."""
    found = list(getattr(result, FINDINGS[label]))
    if label == "invalid_citations":
        labelled = [name.rsplit(".", 1)[-1] for name in labelled]
    if label == "invalid_locations":
        return len(found) == len(labelled) and all(
            any(location in item for item in found) for location in labelled
        )
    return set(labelled) == set(found)


def _run_set(name: str, show: bool) -> tuple[int, int, int]:
    """Validate one labelled set; print its figures. Returns (agreed, total, false accepts)."""
    folder = DATA / name
    contexts = {c["id"]: c for c in json.loads((folder / "contexts.json").read_text())}
    answers: list[dict[str, Any]] = json.loads((folder / "answers.json").read_text())
    package = next(iter(contexts.values())).get("package", "langgraph")
    labelled_with = {
        c.get("package_version") or c.get("langgraph_version") for c in contexts.values()
    } - {None}
    installed = version(package)
    if labelled_with and installed not in labelled_with:
        print(f"warning: labelled against {package} {labelled_with}, installed {installed}")
    names = _graph_names(package)
    validator = GraphContextValidator()

    agree = false_accepts = false_rejects = 0
    finding_agree = dict.fromkeys(FINDINGS, 0)
    disagreements: list[str] = []
    for item in answers:
        context = contexts[item["context"]]
        expected = item["expected"]
        result = validator.validate(
            item["answer"],
            context["entities"],
            prompt=[context["task"], context["context_text"]],
            graph_names=names,
        )
        if result.passed == expected["passed"]:
            agree += 1
        elif result.passed:
            false_accepts += 1
        else:
            false_rejects += 1
        wrong = []
        for label, field in FINDINGS.items():
            if _agrees(label, expected.get(label, []), result):
                finding_agree[label] += 1
            else:
                wrong.append(
                    f"{label}: labelled {sorted(expected.get(label, []))}, "
                    f"found {sorted(getattr(result, field))}"
                )
        if bool(expected.get("insufficient")) != result.insufficient_context:
            wrong.append(
                f"insufficient: labelled {bool(expected.get('insufficient'))}, "
                f"found {result.insufficient_context}"
            )
        if result.passed != expected["passed"] or wrong:
            disagreements.append(
                f"{item['id']} ({item['category']}): labelled "
                f"{'pass' if expected['passed'] else 'fail'}, validated "
                f"{'pass' if result.passed else 'fail'} {list(result.failed_rules)}"
                + "".join(f"\n    {line}" for line in wrong)
            )

    total = len(answers)
    labelled_pass = sum(1 for item in answers if item["expected"]["passed"])
    print(
        f"[{name}] answers: {total} ({labelled_pass} labelled pass, {total - labelled_pass} "
        f"fail), {len(contexts)} contexts, {package} {installed}, {len(names)} graph names"
    )
    print(f"  verdict agreement: {agree}/{total} = {agree / total:.1%}")
    print(f"  false accepts: {false_accepts}; false rejects: {false_rejects}")
    for label, count in finding_agree.items():
        print(f"  {label}: {count}/{total} agree")
    if show:
        print("\n".join(disagreements))
    return agree, total, false_accepts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-disagreements", action="store_true")
    args = parser.parse_args()
    agree = total = false_accepts = 0
    for name in SETS:
        if (DATA / name / "answers.json").is_file():
            set_agree, set_total, set_false = _run_set(name, args.show_disagreements)
            agree, total, false_accepts = (
                agree + set_agree,
                total + set_total,
                false_accepts + set_false,
            )
    share = agree / total if total else 0.0
    print(
        f"all sets: agreement {agree}/{total} = {share:.1%} (target >= {MIN_AGREEMENT:.0%}), "
        f"false accepts {false_accepts} (target {MAX_FALSE_ACCEPTS})"
    )
    met = false_accepts <= MAX_FALSE_ACCEPTS and share >= MIN_AGREEMENT
    print("target met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
