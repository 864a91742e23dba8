"""A LangChain retriever as a source of seeds: entity documents, seeding by rank, stale
ids, caching per task text, and the errors a wrong retriever gets."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import Field

from citeloop.errors import ConfigurationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import (
    ContextExpansion,
    ContextInjector,
    Entity,
    EntityKind,
    MemoryGraphStore,
    SqliteGraphStore,
    Tier,
    index_tree,
)
from citeloop.knowledge.retrieval import MAX_RETRIEVED, entity_text
from citeloop.knowledge.search import entity_document
from citeloop.retrievers import entity_documents
from tests.fakes import ScriptedChatModel
from tests.unit.test_grounded_answer_graph import NO_RETRY_DELAY


class ScriptedRetriever(BaseRetriever):
    """Returns the documents of ``ids`` for any query, and counts the queries."""

    ids: list[str]
    queries: list[str] = Field(default_factory=list)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        self.queries.append(query)
        return [Document(page_content=i, metadata={"entity_id": i}) for i in self.ids]


# Nothing in the task shares a word with these: only a retriever finds them.
EXECUTE = Entity("pkg.runner.Job.run", EntityKind.METHOD, "run", docstring="Start it.")
SETUP = Entity("pkg.runner.prepare", EntityKind.FUNCTION, "prepare", docstring="Get ready.")
NOISE = Entity("pkg.other.colour", EntityKind.FUNCTION, "colour", docstring="Paint it.")
TASK = "Which method carries out the execution?"


def _store() -> MemoryGraphStore:
    job = Entity("pkg.runner.Job", EntityKind.CLASS, "Job")
    return MemoryGraphStore([job, EXECUTE, SETUP, NOISE], [])


def test_entity_documents_are_the_searchable_entities_with_their_ids(
    store: SqliteGraphStore, sample_repo: Path
) -> None:
    index_tree(sample_repo, store)
    sample = store
    documents = entity_documents(sample)
    searchable = [e for e in sample.all_entities() if entity_document(e) is not None]
    assert [d.id for d in documents] == [e.id for e in searchable]
    assert len(documents) < len(sample.all_entities())  # modules and unresolved left out
    by_id = {e.id: e for e in searchable}
    for document in documents:
        entity = by_id[document.id]
        assert document.metadata == {
            "entity_id": entity.id,
            "kind": entity.kind.value,
            "path": entity.path,
            "line": entity.line,
        }
        assert document.page_content == entity_text(entity)


def test_a_document_holds_no_none_metadata() -> None:
    """Some vector stores (Chroma) refuse a ``None`` metadata value: a user's entity
    without a path or line has neither key."""
    bare = Entity("pkg.made_up", EntityKind.FUNCTION, "made_up")
    (document,) = entity_documents(MemoryGraphStore([bare], []))
    assert document.metadata == {"entity_id": "pkg.made_up", "kind": "function"}


def test_entity_text_holds_the_name_words_owner_signature_and_docstring() -> None:
    entity = Entity(
        "flask.json.provider.DefaultJSONProvider",
        EntityKind.CLASS,
        "DefaultJSONProvider",
        signature="(JSONProvider)",
        docstring="Provide JSON operations using Python's built-in json library." * 20,
    )
    text = entity_text(entity)
    owner = "(class DefaultJSONProvider in flask.json.provider)"
    assert text.startswith(f"default json provider {owner}")
    assert "(JSONProvider) Provide JSON operations" in text
    assert len(text) < 600  # the docstring's opening only
    decision = Entity("ADR-1", EntityKind.DECISION, "ADR-1", signature="Use circles")
    assert entity_text(decision) == "adr 1 (decision ADR-1) Use circles"


def test_a_retrieved_entity_seeds_the_context_when_no_word_matches() -> None:
    assert "run" not in {e.name for e in ContextInjector(_store()).inject(TASK).entities}
    retriever = ScriptedRetriever(ids=[EXECUTE.id])
    context = ContextInjector(_store(), retriever=retriever).inject(TASK)
    found = {e.id: e for e in context.entities}
    assert found[EXECUTE.id].reason == "retrieved"
    assert found[EXECUTE.id].tier is Tier.SUPPORTING  # a retriever never makes core
    assert context.core == ()
    assert NOISE.id not in found


@pytest.mark.parametrize("order", [[EXECUTE.id, SETUP.id], [SETUP.id, EXECUTE.id]])
def test_the_retrievers_order_ranks_its_entities(order: list[str]) -> None:
    context = ContextInjector(_store(), retriever=ScriptedRetriever(ids=order)).inject(TASK)
    ranked = [e.id for e in context.entities if e.reason == "retrieved"]
    assert ranked == order
    scores = [e.score for e in context.entities if e.reason == "retrieved"]
    assert scores[0] > scores[1]


def test_a_retrievers_first_document_outranks_the_best_lexical_hit() -> None:
    """It weighs as a mention of the task does: what the retriever (or a model rewriting
    the task) says the task is about comes before a word the task shares with a name."""
    # `colour` shares a word with the task; `run` shares none, and its id sorts after it,
    # so only its weight puts it first.
    task = "Which method carries out the execution of the colour?"
    lexical_only = ContextInjector(_store()).inject(task)
    assert [e.id for e in lexical_only.entities if e.reason == "lexical"] == [NOISE.id]
    context = ContextInjector(_store(), retriever=ScriptedRetriever(ids=[EXECUTE.id])).inject(task)
    scores = {e.id: e.score for e in context.entities}
    assert scores[EXECUTE.id] > scores[NOISE.id]
    assert context.core == ()


def test_stale_ids_and_tests_are_left_out_unless_tests_are_followed() -> None:
    test = Entity("tests.test_runner.test_run", EntityKind.TEST, "test_run")
    store = MemoryGraphStore([EXECUTE, test], [])
    retriever = ScriptedRetriever(ids=["pkg.gone.removed", test.id, EXECUTE.id])
    injector = ContextInjector(store, retriever=retriever)
    assert [e.id for e in injector.inject(TASK).entities] == [EXECUTE.id]
    with_tests = {e.id for e in injector.inject(TASK, task_type="test").entities}
    assert with_tests == {EXECUTE.id, test.id}


def test_the_retriever_is_asked_once_per_task_text() -> None:
    retriever = ScriptedRetriever(ids=[EXECUTE.id], queries=[])
    injector = ContextInjector(_store(), retriever=retriever)
    default = injector.inject(TASK)
    injector.inject(TASK, expansion=ContextExpansion(limit_multiplier=2), default=default)
    injector.inject(TASK, expansion=ContextExpansion(extra_hops=1))  # selects the default again
    assert retriever.queries == [TASK]
    injector.inject("Another task")
    assert retriever.queries == [TASK, "Another task"]


class _NoInvoke:
    pass


class _Returns:
    def __init__(self, value: object) -> None:
        self.value = value

    def invoke(self, text: str) -> object:
        return self.value


def test_a_retriever_without_invoke_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="as_retriever"):
        ContextInjector(_store(), retriever=_NoInvoke())  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["a text", None, 3])
def test_a_retriever_that_returns_no_documents_is_named(value: object) -> None:
    injector = ContextInjector(_store(), retriever=_Returns(value))
    with pytest.raises(ConfigurationError, match=r"_Returns returned \w+, not a list of documents"):
        injector.inject(TASK)


@pytest.mark.parametrize(
    "document",
    [Document(page_content="run"), Document(page_content="run", metadata={"entity_id": ""})],
)
def test_a_document_without_an_entity_id_points_to_entity_documents(document) -> None:
    injector = ContextInjector(_store(), retriever=_Returns([document]))
    with pytest.raises(ConfigurationError, match=r"citeloop.entity_documents\(store\)"):
        injector.inject(TASK)


class _SynonymEmbeddings(Embeddings):
    """A toy embedding: one dimension per meaning, words of a meaning mapped together."""

    MEANINGS = (("run", "execution", "executes", "carries", "start"), ("prepare", "ready"))

    def _vector(self, text: str) -> list[float]:
        words = text.lower().replace("'", " ").replace("?", " ").replace(".", " ").split()
        return [float(sum(word in meaning for word in words)) + 1e-6 for meaning in self.MEANINGS]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def test_a_vector_store_of_entity_documents_finds_a_paraphrase() -> None:
    store = _store()
    vectors = InMemoryVectorStore.from_documents(entity_documents(store), _SynonymEmbeddings())
    retriever = vectors.as_retriever(search_kwargs={"k": 1})
    context = ContextInjector(store, retriever=retriever).inject(TASK)
    assert context.entities[0].id == EXECUTE.id
    assert context.entities[0].reason == "retrieved"


async def test_the_grounded_answer_graph_prompts_with_what_the_retriever_found() -> None:
    store = _store()
    retriever = ScriptedRetriever(ids=[EXECUTE.id])
    model = ScriptedChatModel(script=["`Job.run` carries it out.\n\n## Entities used\n- run\n"])
    graph = build_grounded_answer_graph(
        model, injector=ContextInjector(store, retriever=retriever), model_retry=NO_RETRY_DELAY
    )
    out = await graph.ainvoke({"task": TASK})
    assert "Job.run()" in model.prompts[0][-1].text
    assert out["outcome"] == "passed"
    assert len(retriever.queries) == 1 and TASK in retriever.queries[0]  # the task's text


def test_context_explain_keeps_its_columns_for_a_retrieved_entity() -> None:
    from citeloop.cli import _explanation

    located = Entity("pkg.x.zzz", EntityKind.FUNCTION, "zzz", path="pkg/x.py", line=9)
    store = MemoryGraphStore([located, EXECUTE], [])
    retriever = ScriptedRetriever(ids=[located.id])
    context = ContextInjector(store, retriever=retriever).inject("Job.run: " + TASK)
    rows = [row for row in _explanation(context).splitlines() if not row.startswith("--")]
    assert any(" retrieved " in row for row in rows)
    assert len({row.index("pkg/") for row in rows if "pkg/" in row} | {rows[0].index("where")}) == 1


class _Plain:
    """A document that is not LangChain's: a read-only mapping as its metadata."""

    def __init__(self, metadata: object, id: object = None) -> None:
        self.metadata = metadata
        self.id = id


def test_an_entity_id_in_any_mapping_of_metadata_is_read() -> None:
    document = _Plain(MappingProxyType({"entity_id": EXECUTE.id}))
    context = ContextInjector(_store(), retriever=_Returns([document])).inject(TASK)
    assert [e.id for e in context.entities if e.reason == "retrieved"] == [EXECUTE.id]


def test_a_document_with_an_id_that_is_no_string_is_named() -> None:
    documents = [
        Document(page_content="run", id=EXECUTE.id),
        Document("x", metadata={"entity_id": 7}),
    ]
    injector = ContextInjector(_store(), retriever=_Returns(documents))
    with pytest.raises(ConfigurationError, match=r"document 1 \(Document\).*entity_id.*7 \(int\)"):
        injector.inject(TASK)


@pytest.mark.parametrize("payload", ["", "  \n", {"attempt": 2}, ["", ""]])
def test_a_blank_task_asks_no_retriever(payload: object) -> None:
    retriever = ScriptedRetriever(ids=[EXECUTE.id], queries=[])
    context = ContextInjector(_store(), retriever=retriever).inject(payload)  # type: ignore[arg-type]
    assert context.entities == ()
    assert retriever.queries == []


def test_a_retriever_seeds_its_first_max_retrieved_entities_only() -> None:
    many = [Entity(f"pkg.many.f{n}", EntityKind.FUNCTION, f"f{n}") for n in range(200)]
    retriever = ScriptedRetriever(ids=["pkg.gone.removed", *(e.id for e in many)])
    injector = ContextInjector(MemoryGraphStore(many, []), retriever=retriever)
    context = injector.inject(TASK, expansion=ContextExpansion(limit_multiplier=50))
    retrieved = [e.id for e in context.entities if e.reason == "retrieved"]
    assert retrieved == [e.id for e in many[:MAX_RETRIEVED]]


class _InvokeIsNoMethod:
    invoke = None


@pytest.mark.parametrize("retriever", [_InvokeIsNoMethod(), ScriptedRetriever])
def test_a_retriever_whose_invoke_cannot_be_called_with_a_text_is_refused(retriever) -> None:
    with pytest.raises(ConfigurationError, match="as_retriever"):
        ContextInjector(_store(), retriever=retriever)


def test_a_retriever_whose_ids_the_graph_lacks_is_named_in_a_warning(caplog) -> None:
    """Documents loaded without citeloop's ids (a vector store then makes up UUIDs)
    would otherwise be dropped without a word."""
    injector = ContextInjector(_store(), retriever=ScriptedRetriever(ids=["3f2a-uuid", "x"]))
    with caplog.at_level("WARNING", logger="citeloop.knowledge.retrieval"):
        injector.inject(TASK)
        injector.inject(TASK, expansion=ContextExpansion(limit_multiplier=2))
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1  # once per task text, not at every widening
    assert "none of the 2 entity ids retriever ScriptedRetriever returned" in warnings[0]
    assert "citeloop.entity_documents(store)" in warnings[0]
    caplog.clear()
    ContextInjector(_store(), retriever=ScriptedRetriever(ids=[EXECUTE.id, "x"])).inject(TASK)
    assert not caplog.records  # one id of the graph is enough: the rest may be stale


def test_a_retriever_passed_as_the_graphs_injector_is_named() -> None:
    retriever = ScriptedRetriever(ids=[EXECUTE.id])
    with pytest.raises(ConfigurationError, match=r"got ScriptedRetriever; a retriever goes into"):
        build_grounded_answer_graph(ScriptedChatModel(script=[]), injector=retriever)


def test_the_retriever_is_read_only_on_the_injector() -> None:
    """Its answers are kept per task text: swapping it in place would mix two."""
    retriever = ScriptedRetriever(ids=[EXECUTE.id])
    injector = ContextInjector(_store(), retriever=retriever)
    assert injector.retriever is retriever
    with pytest.raises(AttributeError):
        injector.retriever = ScriptedRetriever(ids=[SETUP.id])  # type: ignore[misc]
    assert ContextInjector(_store()).retriever is None
