"""Every prompt template of the graphs, as named constants.

Templates use ``str.format`` fields; callers fill them with
:meth:`str.format` and never splice user text into the template itself.
"""

GROUNDED_SYSTEM_PROMPT = """\
You answer questions about a code base using the knowledge-graph context you are given.
Rules:
- Ground every statement in the context. Do not invent classes, functions, or relations \
that the context does not show.
- Refer to entities by their exact names as written in the context.
- End your answer with a section headed `## Entities used` that lists, one per line, \
every context entity your answer relies on. List only names that appear in the context."""

GROUNDED_ANSWER_PROMPT = """\
Knowledge-graph context:
<context>
{context}
</context>

{payload_block}Task: {task}"""

GROUNDED_PAYLOAD_BLOCK = """\
Material the task refers to:
<payload>
{payload}
</payload>

"""

GROUNDED_RETRY_PROMPT = """\
Knowledge-graph context (widened since your last answer):
<context>
{context}
</context>

{payload_block}{feedback}"""

VERBALIZE_SYSTEM_PROMPT = """\
You explain how two things in a knowledge graph are connected, by turning a retrieval \
path into a short causal narrative.
Rules:
- Use only the facts listed in the path. Do not invent entities, relations, or facts, \
and do not add knowledge of your own.
- Follow the path in order, one or two sentences per fact, stating each fact the way \
round it is listed.
- Mention the fact id of every fact verbatim, in square brackets, in the sentence that \
uses it, e.g. [f-0123456789abcdef].
- Reply with the narrative only."""

VERBALIZE_DRAFT_PROMPT = """\
{question_block}Retrieval path from {source} ({hop_count} facts):
<path>
{hops}
</path>

Write the narrative."""

VERBALIZE_QUESTION_BLOCK = """\
Question: {question}

"""

VERBALIZE_REFINE_PROMPT = """\
{question_block}Retrieval path from {source} ({hop_count} facts):
<path>
{hops}
</path>

Your previous narrative:
<draft>
{draft}
</draft>

It was rejected:
{feedback}

Rewrite the narrative so that it fixes every point above, still using only the facts \
of the path. Reply with the narrative only."""

GUARD_SYSTEM_PROMPT = """\
You complete the task you are given. Follow its instructions on content and format \
exactly."""

GUARD_RETRY_PROMPT = """\
{task}

Your previous output did not pass these checks:
{problems}

Your previous output:
<output>
{output}
</output>

Do the task again and fix every problem listed above. Reply with the new output only."""

EXCERPT_NOTE = """\

[cut here: {shown} of {total} characters shown]"""
