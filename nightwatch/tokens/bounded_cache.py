"""A cache of results keyed by text, bounded in bytes as well as in entries.

``functools.lru_cache(maxsize=n)`` bounds the number of entries, not their size: a served stand-in
that counts thousands of distinct one-megabyte requests would keep gigabytes of text before its
8,192 entries were full. Here every entry is charged what it holds (the key's text and the result,
measured with ``sys.getsizeof``); the oldest entries go when the total passes ``max_bytes``, and a
single entry larger than ``max_entry_bytes`` is computed but never kept (it would push out
everything else for a text that is rarely asked about twice).

Safe to share between threads: the bookkeeping is done under a lock, the work itself outside it
(two threads that miss on the same text both compute it; the answer is the same).

>>> cache = BoundedCache(len, max_entries=2, max_bytes=10_000)
>>> cache("夜警"), cache("夜警"), cache.info().hits
(2, 2, 1)
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, TypeVar

Result = TypeVar("Result")


class CacheInfo(NamedTuple):
    """``functools``' four figures, and the bytes held against the byte budget."""

    hits: int
    misses: int
    maxsize: int
    currsize: int
    bytes: int
    max_bytes: int


def deep_size(value: Any) -> int:
    """Bytes of ``value``, and of its items if it is a tuple, frozenset or list (one level is enough
    for the results cached here: counts, sentences and feature sets)."""
    size = sys.getsizeof(value)
    if isinstance(value, (tuple, frozenset, list, set)):
        size += sum(sys.getsizeof(item) for item in value)
    return size


class BoundedCache(Generic[Result]):
    """``function(*key)`` memoized, least recently used first out, within entries and bytes."""

    def __init__(self, function: Callable[..., Result], max_entries: int, max_bytes: int,
                 max_entry_bytes: int | None = None) -> None:
        if max_entries <= 0 or max_bytes <= 0:
            raise ValueError("a bounded cache needs room for at least one entry and one byte")
        self.function = function
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_bytes // 16 if max_entry_bytes is None else max_entry_bytes
        self._entries: OrderedDict[Hashable, tuple[Result, int]] = OrderedDict()
        self._bytes = self._hits = self._misses = 0
        self._lock = threading.Lock()
        self.__doc__ = function.__doc__
        self.__wrapped__ = function

    def __call__(self, *key: Hashable) -> Result:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self._hits += 1
                return found[0]
            self._misses += 1
        result = self.function(*key)
        cost = deep_size(result) + sum(deep_size(part) for part in key)
        if cost <= self.max_entry_bytes:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = (result, cost)
                    self._bytes += cost
                while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                    self._bytes -= self._entries.popitem(last=False)[1][1]
        return result

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, self.max_entries, len(self._entries), self._bytes,
                             self.max_bytes)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = self._hits = self._misses = 0

    # The names ``functools.lru_cache`` gives the same two operations, so callers need not care which.
    cache_info = info
    cache_clear = clear


def bounded_cache(max_entries: int, max_bytes: int,
                  max_entry_bytes: int | None = None) -> Callable[[Callable[..., Result]], BoundedCache[Result]]:
    """Decorator form: ``@bounded_cache(8192, 8 * 2**20)``."""
    return lambda function: BoundedCache(function, max_entries, max_bytes, max_entry_bytes)
