"""Conformance with the source design 001, ``../shared/seeds/001-validator-loop.txt``.

Each test names the part of the design it checks: the module summary ("summary"), the
class docstrings and signatures ("ValidatorLoopResult", "ValidatorLoop.__init__"),
``_expansion_for_attempt`` and the docstring and body of ``run``. The calls are scripted
``call_llm`` functions; the knowledge graph is a small tree indexed in the test's folder.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import pytest

from citeloop import (
    ContextExpansion,
    ContextInjector,
    GraphValidationResult,
    SqliteGraphStore,
    ValidationResult,
    ValidatorLoop,
    ValidatorLoopResult,
    index_tree,
)
from citeloop.errors import ConfigurationError
from citeloop.validator_loop import DEFAULT_MAX_RETRIES

FILES = {
    "inventory/__init__.py": "",
    "inventory/stock.py": (
        "class Stock:\n"
        "    def reserve(self, sku):\n"
        "        return check_level(sku)\n\n\n"
        "def check_level(sku):\n"
        "    return 1\n"
    ),
    "inventory/orders.py": (
        "from inventory.stock import Stock\n\n\n"
        "class Order:\n"
        "    def place(self, stock: Stock):\n"
        "        return stock.reserve('x')\n"
    ),
    "tests/test_stock.py": (
        "from inventory.stock import Stock\n\n\n"
        "def test_reserve():\n"
        "    assert Stock().reserve('a') == 1\n"
    ),
}
MESSAGE = "How does `Order` use `Stock`?"
CITING = "Order.place calls Stock.reserve.\n\n## Entities used\n- Order\n- Stock\n"
UNCITED = "An order asks the stock."


class RecordingInjector(ContextInjector):
    """A real injector that records the task type and widening of every call."""

    def __init__(self, store: SqliteGraphStore) -> None:
        super().__init__(store)
        self.seen: list[tuple[Any, ContextExpansion | None]] = []

    def inject(self, payload: Any, task_type: Any = None, expansion: Any = None):
        self.seen.append((task_type, expansion))
        return super().inject(payload, task_type=task_type, expansion=expansion)


class Script:
    """An async ``call_llm`` that answers with scripted replies and records each call."""

    def __init__(self, *replies: str | BaseException) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, system_prompt: str, user_message: str, **kwargs: Any) -> str:
        self.calls.append({"system": system_prompt, "user": user_message, **kwargs})
        reply = self.replies[len(self.calls) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply


@pytest.fixture
def store(tmp_path: Path):
    root = tmp_path / "src"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(root, graph)
        yield graph


@pytest.fixture
def injector(store) -> RecordingInjector:
    return RecordingInjector(store)


def test_result_fields_and_defaults():
    """ValidatorLoopResult: response, validation, retries = 0, expanded = False."""
    names = [item.name for item in dataclasses.fields(ValidatorLoopResult)][:4]
    assert names == ["response", "validation", "retries", "expanded"]
    result = ValidatorLoopResult("text", None)
    assert (result.retries, result.expanded) == (0, False)


def test_constructor_defaults(injector):
    """ValidatorLoop.__init__: validator_factory None, max_retries DEFAULT_MAX_RETRIES (2);
    a negative max_retries is 0."""
    loop = ValidatorLoop(injector)
    assert DEFAULT_MAX_RETRIES == 2
    assert (loop.validator_factory, loop.max_retries) == (None, 2)
    assert ValidatorLoop(injector, max_retries=-3).max_retries == 0


@pytest.mark.parametrize("retries", ["2", None, 1.5, True])
def test_max_retries_that_is_no_int_is_refused_by_name(injector, retries):
    with pytest.raises(ConfigurationError, match=r"max_retries must be an int"):
        ValidatorLoop(injector, max_retries=retries)


async def test_a_first_answer_that_passes_ends_the_loop(injector):
    """run: the first call uses the normal context; a pass returns retries 0, not expanded."""
    call = Script(CITING)
    result = await ValidatorLoop(injector).run({}, call, user_message=MESSAGE)
    assert len(call.calls) == 1
    assert (result.response, result.retries, result.expanded) == (CITING, 0, False)
    # The design 000's result, with citeloop's full report behind it.
    assert isinstance(result.validation, ValidationResult) and result.validation.passed
    assert isinstance(result.validation.report, GraphValidationResult)
    assert result.validation.public_count == result.validation.report.public_count
    assert injector.seen[0][1] is None  # the first injection is not widened


async def test_call_llm_receives_prompts_graph_context_and_call_kwargs(injector):
    """run Args: call_llm receives system_prompt, user_message and the merged keyword
    arguments, including graph_context."""
    call = Script(CITING)
    await ValidatorLoop(injector).run(
        {"ticket": "stock"},
        call,
        system_prompt="Be brief.",
        user_message=MESSAGE,
        call_kwargs={"temperature": 0.0},
    )
    (first,) = call.calls
    assert (first["system"], first["user"], first["temperature"]) == ("Be brief.", MESSAGE, 0.0)
    assert "class Order" in first["graph_context"] and "class Stock" in first["graph_context"]


async def test_a_failed_answer_is_retried_with_a_wider_context_and_the_missing_citations(
    injector,
):
    """summary and run: on failure the context is widened and the retry prompt lists the
    missing core citations; a pass on retry 1 gives retries 1, expanded."""
    call = Script(UNCITED, CITING)
    result = await ValidatorLoop(injector).run({}, call, user_message=MESSAGE)
    assert (result.retries, result.expanded, result.validation.passed) == (1, True, True)
    retry = call.calls[1]
    assert retry["user"].startswith(MESSAGE)
    assert "Cite these core entities" in retry["user"] and "Order" in retry["user"]
    assert len(retry["graph_context"]) > len(call.calls[0]["graph_context"])
    assert "test_reserve" in retry["graph_context"]  # tested_by is followed when widened


async def test_expansion_grows_with_each_attempt(injector):
    """_expansion_for_attempt: extra_hops = attempt + 1, tested_by and requirement
    closure included, limit_multiplier = attempt + 2."""
    await ValidatorLoop(injector, max_retries=2).run(
        {}, Script(UNCITED, UNCITED, UNCITED), user_message=MESSAGE
    )
    widened = [expansion for _, expansion in injector.seen if expansion is not None]
    steps = [(e.extra_hops, e.limit_multiplier) for e in dict.fromkeys(widened)]
    assert steps == [(1, 2), (2, 3)]
    assert all(e.include_tested_by and e.include_requirement_closure for e in widened)


async def test_exhausted_loop_returns_the_last_answer(injector):
    """run: after max_retries retries the last response and its failed validation are
    returned, with retries = max_retries and expanded = max_retries > 0."""
    call = Script(UNCITED, UNCITED, "Still no citations.")
    result = await ValidatorLoop(injector, max_retries=2).run({}, call, user_message=MESSAGE)
    assert len(call.calls) == 3
    assert (result.response, result.retries, result.expanded) == ("Still no citations.", 2, True)
    assert not result.validation.passed
    assert set(result.validation.missing_core_citations) == {"Order", "Stock"}


async def test_zero_retries_still_calls_once(injector):
    """ValidatorLoop.__init__: the loop always makes at least one LLM call."""
    call = Script(UNCITED)
    result = await ValidatorLoop(injector, max_retries=0).run({}, call, user_message=MESSAGE)
    assert len(call.calls) == 1 and (result.retries, result.expanded) == (0, False)


async def test_task_type_is_forwarded_to_the_injector(injector):
    """run Args: task_type is forwarded to the injector (on every injection)."""
    await ValidatorLoop(injector).run(
        {}, Script(UNCITED, CITING), task_type="test", user_message=MESSAGE
    )
    assert {task_type for task_type, _ in injector.seen} == {"test"}


async def test_what_must_be_cited_does_not_grow_with_widening(injector):
    """The design's defect, fixed: the widened context has more entities, and the retry
    passes citing only what the first context required."""
    call = Script(UNCITED, CITING)
    result = await ValidatorLoop(injector).run({}, call, user_message=MESSAGE)
    assert result.validation.passed
    assert set(result.validation.report.core_entities) == {"Order", "Stock"}
    assert "test_reserve" in result.validation.report.public_entities  # widening brought it


class SeedStyleValidator:
    """A validator of the design's shape: built from a context text, every public
    ``class`` of it must be cited."""

    built_from: ClassVar[list[str]] = []

    def __init__(self, context: str) -> None:
        SeedStyleValidator.built_from.append(context)
        lines = [line for line in context.splitlines() if line.startswith("class ")]
        self.required = {line.split()[1].split("(")[0] for line in lines}

    def validate(self, response: str) -> Any:
        cited = set(response.split("## Entities used", 1)[-1].replace("-", " ").split())
        missing = sorted(self.required - cited)
        return type("Result", (), {"passed": not missing, "missing_core_citations": missing})()


async def test_validator_factory_is_built_once_from_the_first_context(injector):
    """ValidatorLoop.__init__ validator_factory, with the defect fixed: the factory builds
    the validator from the first context only, and each answer must pass it."""
    SeedStyleValidator.built_from = []
    only_order = "Order.place calls Stock.reserve.\n\n## Entities used\n- Order\n"
    call = Script(only_order, CITING)
    loop = ValidatorLoop(injector, validator_factory=SeedStyleValidator)
    result = await loop.run({}, call, user_message=MESSAGE)
    assert len(SeedStyleValidator.built_from) == 1
    assert SeedStyleValidator.built_from[0] == call.calls[0]["graph_context"]
    assert len(call.calls) == 2 and "[validator]" in call.calls[1]["user"]
    assert result.validation.passed and result.retries == 1


async def test_a_plain_function_is_accepted_as_call_llm(injector):
    """run Args: call_llm may also be a plain function returning the answer."""

    def call_llm(system_prompt: str, user_message: str, **kwargs: Any) -> str:
        return CITING

    result = await ValidatorLoop(injector).run({}, call_llm, user_message=MESSAGE)
    assert result.validation.passed and result.retries == 0


async def test_an_error_of_call_llm_propagates(injector):
    """run: an error of the model call is the caller's (raised as call_llm raised it)."""
    with pytest.raises(PermissionError, match="denied"):
        await ValidatorLoop(injector).run(
            {}, Script(PermissionError("denied")), user_message=MESSAGE
        )


async def test_bad_inputs_are_refused(injector):
    """ValidatorLoop and run refuse what they cannot use, naming it."""
    with pytest.raises(TypeError, match="ContextInjector"):
        ValidatorLoop(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="user_message or a payload"):
        await ValidatorLoop(injector).run({}, Script(CITING))
    with pytest.raises(TypeError, match="must return the answer as a str"):
        await ValidatorLoop(injector).run({}, Script(42), user_message=MESSAGE)  # type: ignore[arg-type]


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    """The README's validator-loop example runs as written and prints what it says."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The validator loop", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.setattr("tempfile.mkdtemp", lambda: str(tmp_path))
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "True 0 False"
