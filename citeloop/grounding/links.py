"""Web addresses and e-mail addresses in prose: text that is spelled like code, but no code.

An answer that says "see https://docs.python.org/3/library/sqlite3.html" or "ask
ops_team@example.com" names no code: without this, ``docs.python.org``, ``sqlite3``,
``ops_team`` and ``example.com`` read as dotted and snake_case names the context lacks,
a correct answer fails, and every retry asks the model for them again.

:func:`without_links` blanks such addresses out of a text (each character a space, so
positions do not move) before its names are read:

- a URL: a scheme of the web, of files or of version control and ``://``
  (RFC 3986 §3: ``https://``, ``ftp://``, ``git://``, ``file://``, ...) or a ``www.``
  host, up to white space, a quote, a backtick, an angle bracket, or a closing bracket
  (the end of a Markdown link ``[docs](https://...)``), trailing punctuation left out;
- an e-mail address: ``local@domain`` with a dot in the domain (RFC 5321 §4.5.3.1
  limits the local part to 64 characters and the domain to 255; longer runs are no
  address).

:func:`is_host_name` tells a bare host name (``docs.python.org``, ``example.com``)
from a dotted name of code by its last label: a generic top-level domain that no
Python code base writes as an attribute (``com``, ``org``, ``edu``, ``gov``), or a
documentation host (``github.io``, ``readthedocs.io``).

Scanning is linear: a URL is found from each ``://`` (a scheme at most five letters
back) or ``www.``, and ends at the first stopping character after it; an address is
grown from each ``@`` at most 64 characters back and 255 forward.
"""

from __future__ import annotations

import re

from citeloop.text import is_word_char

_SCHEMES = frozenset({"http", "https", "ftp", "sftp", "ssh", "file", "git", "ws", "wss", "svn"})
_LONGEST_SCHEME = max(len(scheme) for scheme in _SCHEMES)
_URL_STOP = re.compile(r"[\s<>\"'`)\]}|]")
_TRAILING = ".,;:!?*_"
"""Punctuation that ends a sentence or closes emphasis after an address, not part of it."""
_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_DOMAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
_MAX_LOCAL = 64
_MAX_DOMAIN = 255
_TOP_LEVEL = frozenset({"com", "org", "edu", "gov"})
_DOC_HOSTS = frozenset({("github", "io"), ("gitlab", "io"), ("readthedocs", "io")})


def without_links(text: str) -> str:
    """``text`` with each URL and e-mail address replaced by as many spaces.

    Example:
        >>> without_links("See https://a.org/x_y. Or mail me@a.org!")
        'See                  . Or mail         !'
    """
    spans = _urls(text) + _addresses(text)
    if not spans:
        return text
    pieces, position = [], 0
    for start, end in sorted(spans):
        start = max(start, position)
        if end <= start:
            continue
        pieces += [text[position:start], " " * (end - start)]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def is_host_name(parts: list[str]) -> bool:
    """Whether a dotted name's ``parts`` spell a host name rather than code:
    ``["docs", "python", "org"]`` yes, ``["self", "net"]`` no.

    Example:
        >>> is_host_name(["example", "com"]), is_host_name(["astropy", "io"])
        (True, False)
    """
    last = parts[-1]
    if last in _TOP_LEVEL:
        return True
    return len(parts) > 2 and (parts[-2], last) in _DOC_HOSTS


def _urls(text: str) -> list[tuple[int, int]]:
    spans = []
    for start, after in _url_starts(text):
        if spans and start < spans[-1][1]:
            continue  # inside the last one (``https://www.x.org``)
        stop = _URL_STOP.search(text, after)
        end = stop.start() if stop else len(text)
        while end > after and text[end - 1] in _TRAILING:
            end -= 1
        spans.append((start, max(end, after)))
    return spans


def _url_starts(text: str) -> list[tuple[int, int]]:
    """``(start, end of the scheme or www.)`` of each URL, in order: a scheme of
    :data:`_SCHEMES` before ``://``, or ``www.``, neither inside a longer word. Found
    with ``str.find`` (a regex tried at every word would cost more than the rest of the
    scan)."""
    starts = []
    at = text.find("://")
    while at >= 0:
        start = at
        while start > 0 and at - start < _LONGEST_SCHEME and text[start - 1].isalpha():
            start -= 1
        if text[start:at].lower() in _SCHEMES and not _after_word(text, start):
            starts.append((start, at + 3))
        at = text.find("://", at + 3)
    if "www." in text or "WWW." in text:
        lower = text.lower()
        at = lower.find("www.")
        while at >= 0:
            if not _after_word(text, at):
                starts.append((at, at + 4))
            at = lower.find("www.", at + 4)
    return sorted(starts)


def _after_word(text: str, start: int) -> bool:
    return start > 0 and is_word_char(text[start - 1])


def _addresses(text: str) -> list[tuple[int, int]]:
    spans = []
    at = text.find("@")
    while at >= 0:
        start = at
        while start > 0 and at - start < _MAX_LOCAL and text[start - 1] in _LOCAL:
            start -= 1
        end = at + 1
        while end < len(text) and end - at <= _MAX_DOMAIN and text[end] in _DOMAIN:
            end += 1
        longer = (start > 0 and text[start - 1] in _LOCAL) or (
            end < len(text) and text[end] in _DOMAIN
        )
        while end > at + 1 and text[end - 1] in _TRAILING:
            end -= 1
        domain = text[at + 1 : end]
        if start < at and not longer and "." in domain and all(domain.split(".")):
            spans.append((start, end))
        at = text.find("@", max(end, at + 1))
    return spans
