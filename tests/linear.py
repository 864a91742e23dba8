"""A check that a scan of text takes linear time, for the tests of scanners."""

from __future__ import annotations

import time
from collections.abc import Callable


def scans_linearly(scan: Callable[[str], object], unit: str, chars: int) -> bool:
    """Whether ``scan`` of ``unit`` repeated to 4x ``chars`` characters takes less than
    10x its time on ``chars`` (and half a second): 4x the text takes about 4x the time,
    where a rescan from each start would take 16x."""

    def seconds(text: str) -> float:
        started = time.perf_counter()
        scan(text)
        return time.perf_counter() - started

    size = max(1, chars // len(unit))
    short, long = seconds(unit * size), seconds(unit * 4 * size)
    return long < 10 * short + 0.5
