"""Compatibility package: the names it held now live in :mod:`citeloop.grounding`
(does an answer use and cite its graph context) and :mod:`citeloop.checks` (everyday
output validators and ``Check``). ``from citeloop.validation import X`` keeps working,
lazily (a name's package is imported on first use); new code imports from
``citeloop``, ``citeloop.grounding`` or ``citeloop.checks``.
"""

from citeloop import checks, grounding
from citeloop._lazy import lazy_exports

__all__ = sorted({*checks.__all__, *grounding.__all__})

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(grounding.__all__, "citeloop.grounding"),
        **dict.fromkeys(checks.__all__, "citeloop.checks"),
    },
    globals(),
)
