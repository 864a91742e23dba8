"""Terminal-safe output: control characters from indexed files, answers, thread ids and
tasks are shown escaped, never sent raw to a terminal.

A control character in printed text is a command to the terminal: ``ESC ] 52`` (OSC 52)
writes the clipboard, ``ESC [ 2 J`` clears the screen, a carriage return overwrites the
line, and bidirectional overrides reorder what is shown (CVE-2021-42574, "Trojan
Source"). :func:`escape_controls` writes each such character as a Python escape
(``\\x1b``, ``\\u202e``); newlines and tabs are kept, a ``\\r\\n`` line end becomes
``\\n``. :func:`escape_json` escapes the same characters inside JSON text as ``\\u``
escapes, which decode to the same data. :func:`safe_output` installs both on
``sys.stdout`` and ``sys.stderr`` for the command line.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["escape_controls", "escape_json", "raw_stream", "safe_output"]

_CONTROLS = (
    [c for c in range(0x20) if c not in (0x09, 0x0A)]  # C0 controls but tab and newline
    + list(range(0x7F, 0xA0))  # DEL and the C1 controls (0x9B is a one-byte CSI)
    + [0x061C, 0x200E, 0x200F, 0x2028, 0x2029]  # marks and line/paragraph separators
    + list(range(0x202A, 0x202F))  # bidirectional embeddings and overrides
    + list(range(0x2066, 0x206A))  # bidirectional isolates
)
_ESCAPES = {code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROLS}
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in _CONTROLS}


def escape_controls(text: str) -> str:
    """``text`` with its control characters written as escapes, in one linear pass.

    Args:
        text: Any text to show on a terminal.

    Returns:
        The text with C0 controls (but tab and newline), DEL, C1 controls, bidirectional
        controls and U+2028/U+2029 written as ``\\xNN`` or ``\\uNNNN``; ``\\r\\n`` becomes
        ``\\n``.

    Example:
        >>> escape_controls("title\\x1b]52;c;ZXZpbA==\\x07")
        'title\\\\x1b]52;c;ZXZpbA==\\\\x07'
    """
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text.translate(_ESCAPES)


def escape_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters that
    :func:`escape_controls` escapes written as ``\\uNNNN``: the same JSON value.

    JSON escapes C0 controls itself; the others can only occur inside strings, where a
    ``\\u`` escape means the same character (RFC 8259, section 7).
    """
    return text.translate(_JSON_ESCAPES)


class _EscapingStream:
    """A text stream that writes through to ``raw`` with :func:`escape_controls`."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(escape_controls(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self.raw, name)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under :func:`safe_output`'s escaping (for a progress bar, which writes
    its own carriage returns), or ``stream`` itself."""
    return stream.raw if isinstance(stream, _EscapingStream) else stream


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """Escape control characters in everything written to ``sys.stdout`` and
    ``sys.stderr`` while the block runs; the streams are restored after it."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = _EscapingStream(stdout)  # type: ignore[assignment]
    sys.stderr = _EscapingStream(stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr
