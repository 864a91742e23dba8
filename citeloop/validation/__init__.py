"""Compatibility package: the names it held now live in :mod:`citeloop.grounding`
(does an answer use and cite its graph context) and :mod:`citeloop.checks` (everyday
output validators and ``Check``). ``from citeloop.validation import X`` keeps working;
new code imports from ``citeloop``, ``citeloop.grounding`` or ``citeloop.checks``.
"""

from citeloop.checks import *  # noqa: F403
from citeloop.checks import __all__ as _checks_all
from citeloop.grounding import *  # noqa: F403
from citeloop.grounding import __all__ as _grounding_all

__all__ = sorted({*_checks_all, *_grounding_all})
