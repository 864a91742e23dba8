"""Secrets kept out of what citeloop prints: passwords of database connection strings.

A PostgreSQL connection string comes in two forms (libpq, "Connection Strings",
https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING):

- a URI, ``postgresql://USER:PASSWORD@HOST:PORT/DB?password=...``;
- key/value pairs, ``host=db user=app password='s3cret'``.

:func:`redact` hides every password either form can carry, however malformed the
string (a bad percent-escape, an unclosed IPv6 bracket, an ``@`` in the password):
whatever lies between ``://`` and the last ``@`` after the user name, and the value of
every ``password=`` parameter. :func:`scrub` also removes those secrets from a
message written by someone else (e.g. a driver that repeats the raw string).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"

# `password = value` in a key/value string or a URI query: the value is a quoted string
# (backslash escapes) or runs to the next blank, `&` or `#`. Each alternative starts with
# a distinct character, so the scan is linear.
_PASSWORD_PARAM = re.compile(
    r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&#]*)", re.IGNORECASE | re.DOTALL
)

# libpq keywords are lower-case words with underscores (`host`, `sslrootcert`,
# `target_session_attrs`, ...; more come with new versions): any `word=` opening counts.
_KEY_VALUE_START = re.compile(r"\s*[A-Za-z_]\w*\s*=")


def is_keyword_dsn(spec: str) -> bool:
    """Whether ``spec`` starts like a libpq key/value connection string
    (``host=... dbname=...``, ``sslrootcert=... password=...``) rather than a file path
    or a URL: it opens with ``keyword=``. A SQLite file of such a name is written
    ``sqlite:PATH``."""
    return _KEY_VALUE_START.match(spec) is not None


def _userinfo_secret(spec: str) -> tuple[int, int] | None:
    """The span of a URI's password (after ``USER:``, up to the last ``@``), if any."""
    start = spec.find("://")
    if start < 0:
        return None
    start += 3
    at = spec.rfind("@", start)  # over-hiding an `@` of the query is safe
    if at < 0:
        return None
    colon = spec.find(":", start, at)
    return (colon + 1, at) if colon >= 0 else None


def redact(spec: str) -> str:
    """``spec`` with every password replaced by ``***`` (safe to print).

    Example:
        >>> redact("postgresql://app:s3cret@db:5432/citeloop")
        'postgresql://app:***@db:5432/citeloop'
        >>> redact("host=db password='a b' dbname=x")
        'host=db password=*** dbname=x'
    """
    span = _userinfo_secret(spec)
    if span is not None:
        spec = spec[: span[0]] + MASK + spec[span[1] :]
    return _PASSWORD_PARAM.sub(lambda match: match.group(1) + MASK, spec)


def secrets_of(spec: str) -> set[str]:
    """The passwords ``spec`` holds, as written, percent-decoded and unquoted."""
    found: set[str] = set()
    span = _userinfo_secret(spec)
    if span is not None:
        found.add(spec[span[0] : span[1]])
    found.update(match.group(2) for match in _PASSWORD_PARAM.finditer(spec))
    variants = set()
    for secret in found:
        variants.update({secret, unquote(secret), secret.strip("'")})
    return {secret for secret in variants if secret}


def scrub(message: str, spec: str) -> str:
    """``message`` with every password of ``spec`` (and any ``password=`` value) hidden.

    Example:
        >>> scrub('invalid dsn: "postgresql://u:pw%zz@h/db"', "postgresql://u:pw%zz@h/db")
        'invalid dsn: "postgresql://u:***@h/db"'
    """
    for secret in sorted(secrets_of(spec), key=len, reverse=True):
        message = message.replace(secret, MASK)
    return redact(message)
