"""Author-year citations (APA / Harvard / Chicago author-date).

Read in parentheses or brackets:
``(Smith et al., 2020; Doe 2019)``, ``(Walker, 2008, p. 34)`` (locators are dropped),
``(Smith and Jones 2019)``, ``(Smith & Jones, 2019)``, ``(Doe 2019, 2020a)``,
``(see e.g. van der Berg, 2018)``, ``[Smith 2020]``; and narrative forms
``Smith et al. (2020)``, ``Smith's (2020)``, ``according to Smith (2020)`` and
``Smith (2020) found`` (a reporting verb follows). A single capitalized word before a
parenthesized year without such a cue (``Inception (2010) is a film``) is a title or
a product as often as an author, so it is not read. Years are 1500-2099 with an
optional letter (``2020a``); the pair keeps the year as an ``int`` (the letter is
dropped). An author is one to twelve words: capitalized names, initials, particles
(``van``, ``de``, ...), ``and``/``&``/``et al.``; ``et al`` is written ``et al.``.
Months, seasons and words such as ``Since`` or ``Published`` are not authors, so
``(March 2020)`` and ``(since 2019)`` are not citations. Nor are products and releases
named with a year: a single word from a short product list (``Windows``, ``Office``,
``Python``, ``Java``, ``Excel``, ``Linux``, ...: ``(Windows 2000)``), an author ending
in a release word (``Version``, ``Release``, ``Edition``, ``Model``, ``Series``,
``Update``, ``Server``, ``Studio``, ...: ``(Visual Studio 2019)``), or ending in a
product word without a comma before the year (``(Microsoft Office 2019)``; the
corporate author ``(Cabinet Office, 2020)`` is read). Acronyms stay authors:
``(WHO, 2020)``, ``(IBM 2019)``.
"""

from __future__ import annotations

import re
import unicodedata

from citeloop.checks.citation_spans import (
    AUTHOR_YEAR,
    BRACKET,
    CitationSpan,
    is_locator,
    numeric_ranges,
    word_set,
)
from citeloop.text import normalize_text

# --- author-year -----------------------------------------------------------------------

# Two or more years, and nothing else, in parentheses: "(2000; 2002; 2003)". Each
# repetition needs a separator and a year, so matching is linear.
_YEAR_LIST = re.compile(
    r"\([ \t]*(?:1[5-9][0-9]{2}|20[0-9]{2})[a-z]?"
    r"(?:[ \t]*[,;][ \t]*(?:1[5-9][0-9]{2}|20[0-9]{2})[a-z]?)+[ \t]*\)"
)
_PARENS = re.compile(r"\(([^()]{1,500})\)")
_YEAR = re.compile(r"(?<![\w./\-])(1[5-9][0-9]{2}|20[0-9]{2})[a-z]?(?![\w/\-])")
_PREFIXES = (
    "see also",
    "see, e.g.,",
    "see e.g.",
    "see",
    "also",
    "e.g.,",
    "e.g.",
    "eg,",
    "eg",
    "cf.",
    "cf",
    "i.e.,",
    "i.e.",
    "for example,",
    "for example",
    "for instance,",
    "for instance",
    "as cited in",
    "cited in",
    "quoted in",
    "as reviewed in",
    "reviewed in",
    "discussed in",
    "adapted from",
    "data from",
    "based on",
    "according to",
    "compare",
    "but see",
    "contra",
    "following",
    "after",
    "in",
    "by",
)
_PARTICLES = word_set(
    "van von de der den del della dei des di da du la le ter ten dos das do zu al el bin "
    "ibn st. mac d' l'"
)
_CONNECTORS = frozenset(("and", "&", "et", "al.", "al", "y", "und"))
# Lower-case words allowed between the capitalized words of an organisation's name.
_ORG_WORDS = frozenset(("of", "for", "the", "on", "in"))
_NOT_AUTHORS = word_set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec spring summer fall autumn winter "
    "monday tuesday wednesday thursday friday saturday sunday "
    "since in by from until till before after during circa ca est published released "
    "updated accessed retrieved founded established copyright version revised edition ed "
    "eds vol volume no fig figure table page pp year years fy ad bc bce ce usd eur gbp "
    "early late mid around about approx approximately born died see also cf e.g i.e "
    "as at to a an this that these those our we it its there here"
)
# Products and releases named with a year: (Windows 2000), (Office 2019), (Visual Studio
# 2019). Such a word alone is not an author; a release word never ends one; a product
# word ends one only before a comma (the APA form of a corporate author: Cabinet Office,
# 2020), so (Microsoft Office 2019) is not read.
_PRODUCTS = word_set(
    "windows office python java javascript excel word powerpoint outlook access android "
    "ubuntu debian fedora linux macos chrome chromium firefox safari matlab iphone ipad "
    "xbox playstation photoshop sql mysql postgresql postgres node django"
)
_RELEASES = word_set(
    "version release edition model series update server studio pro professional enterprise ultimate"
)
_MAX_AUTHOR_WORDS = 12
_REPORTING_VERBS = word_set(
    "found finds find show showed shows shown argue argued argues report reported reports "
    "note noted notes suggest suggested suggests demonstrate demonstrated demonstrates "
    "propose proposed proposes describe described describes observe observed observes "
    "conclude concluded concludes claim claimed claims state stated states write wrote "
    "writes explain explained explains introduce introduced introduces present presented "
    "presents develop developed develops define defined defines estimate estimated "
    "estimates measure measured measures discuss discussed discusses identify identified "
    "identifies examine examined examines investigate investigated investigates analyze "
    "analyzed analyzes analyse analysed analyses point pointed points emphasize emphasized "
    "emphasizes highlight highlighted highlights reviewed reviews review surveyed surveys "
    "compared compares tested tests studied studies recommend recommended recommends "
    "observe coined coins established establishes confirmed confirms"
)
_BRIDGE_WORDS = frozenset(("also", "further", "later", "first", "similarly", "recently"))
_NARRATIVE_LEAD = ("according to", "as noted by", "as shown by", "as argued by", "following")
_NARRATIVE_WINDOW = 120


def _is_name_word(word: str) -> bool:
    """A capitalized name or initial: ``Smith``, ``O'Neil``, ``García-Márquez``, ``J.``."""
    if not word[:1].isupper():
        return False
    return all(
        char.isalpha() or char in "-'’." or unicodedata.category(char).startswith("M")
        for char in word
    )


def _strip_prefixes(lead: str) -> str:
    changed = True
    while changed and lead:
        changed = False
        lowered = lead.lower()
        for prefix in _PREFIXES:
            if lowered.startswith(prefix) and (
                len(lowered) == len(prefix) or not lowered[len(prefix)].isalnum()
            ):
                lead = lead[len(prefix) :].lstrip(" ,:")
                changed = True
                break
    return lead


def _author_name(lead: str, comma: bool = False) -> str | None:
    """The author named by ``lead`` (the text before a year), or ``None``.

    ``comma``: a comma separates ``lead`` from the year (``Cabinet Office, 2020``).
    """
    words = _strip_prefixes(" ".join(lead.split())).rstrip(" ,:").split()
    if not 1 <= len(words) <= _MAX_AUTHOR_WORDS:
        return None
    final = words[-1].rstrip(",.").lower()
    if final in _RELEASES or (final in _PRODUCTS and (len(words) == 1 or not comma)):
        return None  # (Windows 2000), (Visual Studio 2019), (Microsoft Office 2019)
    names = 0
    for index, written in enumerate(words):
        word = written.rstrip(",")
        lowered = word.lower()
        if lowered == "the" and index == 0:
            continue  # (The Guardian, 2020); "The" alone names nothing
        if _is_name_word(word):
            if lowered.rstrip(".") in _NOT_AUTHORS:
                return None  # (March 2020), (Since 2019), (Published 2021)
            names += 1
        elif lowered in _CONNECTORS:
            if index == 0 or (lowered in ("al", "al.") and words[index - 1].lower() != "et"):
                return None
        elif lowered in _PARTICLES:
            if index == len(words) - 1:
                return None
        elif lowered in _ORG_WORDS:
            if (index == 0 and lowered != "the") or index == len(words) - 1:
                return None
        else:
            return None
    last = words[-1].rstrip(",").lower()
    if not names or last in ("and", "&", "et") or last in _ORG_WORDS:
        return None
    return _tidy_author(words)


def _tidy_author(words: list[str]) -> str:
    author = " ".join(words).rstrip(",")
    if author.endswith(" et al"):
        author += "."
    return normalize_text(author)


def _year_pairs(content: str, narrative: str | None = None) -> list[tuple[str, int]]:
    """The (author, year) pairs of a citation's content (``Smith, 2020; Doe 2019``).

    ``narrative`` is the author written before the parenthesis (``Smith et al. (2020)``);
    it names a year that opens the content. A bare year cites the last author named,
    across ``;`` too: ``Miller (2000; 2002; 2003)`` and ``(Smith 2019; 2020)`` cite
    every year.
    """
    pairs: list[tuple[str, int]] = []
    author: str | None = narrative
    for group in content.split(";"):
        position = 0
        for match in _YEAR.finditer(group):
            raw = group[position : match.start()]
            lead = raw.strip(" \t\n,:")
            comma = raw.rstrip(" \t\n").endswith(",")
            position = match.end()
            if not lead:
                pass  # a bare year cites the author before it: (Smith 2019; 2020)
            elif lead.lower() in ("and", "&") and author is not None:
                pass  # (Smith 2019 and 2020)
            else:
                author = _author_name(lead, comma)
                if author is None and is_locator(lead):
                    break  # (Walker, 2008, p. 1234): the rest of the group is a locator
            if author is not None:
                pairs.append((author, int(match.group(1))))
    return pairs


def _year_first(content: str) -> bool:
    """Whether ``content`` opens with a year (``2020``, ``2020a, p. 5``)."""
    match = _YEAR.search(content)
    return match is not None and not content[: match.start()].strip()


def _narrative_author(text: str, position: int) -> str | None:
    """The author written right before the parenthesis at ``position``, if cued.

    ``Smith et al. (2020)`` always counts; ``Smith's (2020)``, ``according to Smith
    (2020)``, ``Smith (2020) found`` (a reporting verb follows) and ``Miller (2000;
    2002)`` (a list of years: a work has one) count; other names before a single year
    are as often titles (``Inception (2010)``) and do not.
    """
    words = text[max(0, position - _NARRATIVE_WINDOW) : position].split()
    if not words:
        return None
    cued = False
    index = len(words) - 1
    collected: list[str] = []
    if words[index] in ("al.", "al") and index and words[index - 1] == "et":
        collected = ["et", "al."]
        index -= 2
        cued = True
    if index < 0:
        return None
    last = words[index]
    for suffix in ("'s", "’s"):
        if last.endswith(suffix) and not collected:
            last, cued = last[: -len(suffix)], True
    if not _is_name_word(last) or last.lower().rstrip(".") in _NOT_AUTHORS:
        return None
    collected.insert(0, last)
    index -= 1
    while index >= 0 and words[index].lower() in _PARTICLES:
        collected.insert(0, words[index])
        index -= 1
    if index >= 1 and words[index].lower() in ("and", "&"):
        # Smith and Jones (2020); Smith, Jones, and Lee (2020)
        collected.insert(0, words[index])
        index -= 1
        while index >= 0:
            word = words[index]
            bare = word.rstrip(",")
            if not _is_name_word(bare) or bare.lower().rstrip(".") in _NOT_AUTHORS:
                break
            collected.insert(0, word)
            index -= 1
            if index < 0 or not words[index].endswith(","):
                break
        if collected[0].lower() in ("and", "&"):
            return None
    preceding = " ".join(words[max(0, index - 2) : index + 1]).lower()
    if preceding.endswith(_NARRATIVE_LEAD):
        cued = True
    if not cued and _YEAR_LIST.match(text, position) is not None:
        cued = last.lower() not in _PRODUCTS  # Miller (2000; 2002): titles have one year
    if not cued:
        following = text[position : position + _NARRATIVE_WINDOW + 40]
        close = following.find(")")
        after = following[close + 1 :].split()[:2] if close != -1 else []
        after = [word.strip(",.;:").lower() for word in after]
        if after and after[0] in _BRIDGE_WORDS:
            after = after[1:]
        cued = bool(after) and after[0] in _REPORTING_VERBS
    return _tidy_author(collected) if cued else None


def author_year_spans(text: str, masked: str) -> list[CitationSpan]:
    """The author-year citations of ``text`` (``masked`` is ``text`` with its code blanked out)."""
    spans: list[CitationSpan] = []
    for pattern in (_PARENS, BRACKET):
        for match in pattern.finditer(masked):
            content = match.group(1)
            if _YEAR.search(content) is None or "@" in content:
                continue
            start, end = match.span()
            if pattern is BRACKET and (
                numeric_ranges(content) is not None or masked[start - 1 : start] == "!"
            ):
                continue
            narrative = None
            if pattern is _PARENS and _year_first(content):
                narrative = _narrative_author(masked, start)
                if narrative is None:
                    continue
            pairs = _year_pairs(content, narrative)
            if pairs:
                spans.append(CitationSpan(AUTHOR_YEAR, start, end, text[start:end], tuple(pairs)))
    return spans
