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
