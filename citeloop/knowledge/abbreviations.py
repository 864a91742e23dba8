"""The full words of the abbreviations code names are written with.

Code abbreviates what a question spells out: sphinx's ``ASTParenExpr`` is "the
parenthesized expression node", sqlfluff's ``BlockConfig`` "the spacing configuration",
``get_type_id`` "the type identifier method". A lexical search over name words alone
never matches the two, so an entity's searchable words
(:func:`~citeloop.knowledge.search.entity_document`) also hold the full words of the
abbreviations its name and its owners' names are written with. Query expansion by a
table of abbreviations is the usual remedy in code search (Lawrie and Binkley,
"Expanding identifiers to normalize source code vocabulary", ICSM 2011, give the
problem and measure it); the table here holds common programming abbreviations only.

Left out on purpose: Python's builtins (``str``, ``int``, ``dict``, ``len``, ``repr``,
``iter``: a name word ``str`` is the type far more often than an abbreviation; those
that abbreviate one word are :data:`BUILTIN_WORDS`, read where an excerpt's lines are
chosen only), and words of one or two letters (``fn``, ``op``, ``id``: too many
readings).
"""

from __future__ import annotations

from collections.abc import Iterable

ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "addr": ("address",),
    "agg": ("aggregate", "aggregation"),
    "alloc": ("allocate", "allocation"),
    "app": ("application",),
    "arg": ("argument",),
    "args": ("arguments",),
    "attr": ("attribute",),
    "attrs": ("attributes",),
    "buf": ("buffer",),
    "calc": ("calculate", "calculation"),
    "cfg": ("configuration",),
    "clf": ("classifier",),
    "cmd": ("command",),
    "cmp": ("compare", "comparison"),
    "coef": ("coefficient",),
    "col": ("column",),
    "cols": ("columns",),
    "conf": ("configuration",),
    "config": ("configuration",),
    "conn": ("connection",),
    "coord": ("coordinate",),
    "coords": ("coordinates",),
    "ctx": ("context",),
    "cur": ("current",),
    "decl": ("declaration", "declarator"),
    "def": ("definition",),
    "defs": ("definitions",),
    "dep": ("dependency",),
    "deps": ("dependencies",),
    "desc": ("description", "descriptor"),
    "dest": ("destination",),
    "dim": ("dimension",),
    "dims": ("dimensions",),
    "dir": ("directory",),
    "doc": ("document", "documentation"),
    "elem": ("element",),
    "env": ("environment",),
    "err": ("error",),
    "est": ("estimator",),
    "exc": ("exception",),
    "expr": ("expression",),
    "ext": ("extension",),
    "fmt": ("format",),
    "freq": ("frequency",),
    "func": ("function",),
    "gen": ("generate", "generator"),
    "hdr": ("header",),
    "ident": ("identifier",),
    "idx": ("index",),
    "img": ("image",),
    "impl": ("implementation",),
    "info": ("information",),
    "init": ("initialize", "initialization"),
    "kwargs": ("keyword", "arguments"),
    "lang": ("language",),
    "lib": ("library",),
    "lit": ("literal",),
    "loc": ("location",),
    "mgr": ("manager",),
    "mod": ("module",),
    "msg": ("message",),
    "num": ("number",),
    "obj": ("object",),
    "opt": ("option",),
    "opts": ("options",),
    "param": ("parameter",),
    "params": ("parameters",),
    "paren": ("parenthesis", "parentheses", "parenthesized"),
    "pkg": ("package",),
    "pos": ("position",),
    "pred": ("prediction",),
    "prev": ("previous",),
    "proba": ("probability",),
    "proc": ("process", "procedure"),
    "ptr": ("pointer",),
    "qual": ("qualifier", "qualified"),
    "ref": ("reference",),
    "refs": ("references",),
    "rel": ("relative",),
    "req": ("request",),
    "resp": ("response",),
    "seg": ("segment",),
    "sep": ("separator",),
    "sig": ("signature",),
    "spec": ("specification",),
    "src": ("source",),
    "stmt": ("statement",),
    "tbl": ("table",),
    "tmp": ("temporary",),
    "tmpl": ("template",),
    "tok": ("token",),
    "tol": ("tolerance",),
    "txt": ("text",),
    "util": ("utility",),
    "utils": ("utilities",),
    "val": ("value",),
    "var": ("variable",),
    "ver": ("version",),
    "xref": ("cross", "reference"),
}
"""Full words of each abbreviation (lower case; a search stems both sides)."""

BUILTIN_WORDS: dict[str, tuple[str, ...]] = {
    "bool": ("boolean",),
    "dict": ("dictionary",),
    "int": ("integer",),
    "len": ("length",),
    "repr": ("representation",),
    "str": ("string",),
}
"""Full words of Python's builtin names that abbreviate one: a source line's
``"__dict__" in slot_names`` is about "the dynamic attribute dictionary" a task asks of.
Read where the lines of an excerpt are chosen (a line's terms matched against
:func:`~citeloop.knowledge.body_lines.focus_terms`), never where entities are found:
a name word ``str`` there is the type far more often than an abbreviation."""


def expansions(words: Iterable[str]) -> list[str]:
    """The full words of the abbreviations among ``words`` (lower-case name words), in
    order, each once: ``["paren", "expr"]`` gives ``["parenthesis", "parentheses",
    "parenthesized", "expression"]``."""
    found: dict[str, None] = {}
    for word in words:
        for full in ABBREVIATIONS.get(word, ()):
            found.setdefault(full)
    return list(found)
