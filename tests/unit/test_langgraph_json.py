"""langgraph.json registers every graph under the name it is compiled with."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from langgraph.graph.state import CompiledStateGraph

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))


def test_dependencies_are_the_project_itself():
    assert CONFIG["dependencies"] == ["."]


@pytest.mark.parametrize(("name", "target"), sorted(CONFIG["graphs"].items()))
def test_each_entry_loads_a_compiled_graph_of_that_name(name, target):
    path, _, attribute = target.partition(":")
    spec = importlib.util.spec_from_file_location(f"langgraph_json_{name}", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    graph = getattr(module, attribute)
    assert isinstance(graph, CompiledStateGraph)
    assert graph.name == name
    assert graph.get_context_jsonschema()["properties"]  # runtime settings show in Studio
