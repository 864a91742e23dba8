"""Recent results by key: a bounded, thread-safe memo, the most recently used kept.

The runs of one compiled graph reuse results through it (:mod:`citeloop.nodes.recent`),
and so do the contexts of one injector (:mod:`citeloop.knowledge.reuse`); runs under way
at the same time (``batch``, ``abatch``, a server) share it under a lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Recent(Generic[Value]):
    """At most ``size`` values by key; putting one more drops the least recently used.

    Args:
        size: How many values are kept, >= 1.

    Raises:
        ValueError: ``size`` is below 1.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        self.size = size
        self._values: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Value | None:
        """The value kept for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Value) -> None:
        """Keep ``value`` for ``key``, as the most recently used."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            if len(self._values) > self.size:
                self._values.popitem(last=False)

    def __len__(self) -> int:
        return len(self._values)
