"""A cache of results keyed by text, bounded in bytes as well as in entries.

``functools.lru_cache(maxsize=n)`` bounds the number of entries, not their size: a served stand-in
that counts thousands of distinct one-megabyte requests would keep gigabytes of text before its
8,192 entries were full. Here every entry is charged what it holds (the key's text and the result,
measured with ``sys.getsizeof``); the oldest entries go when the total passes ``max_bytes``, and a
single entry larger than ``max_entry_bytes`` is computed but never kept (it would push out
everything else for a text that is rarely asked about twice).

Every cache in the process also draws on one shared budget, ``SHARED_CACHE_BYTES``: the reader
keeps some twenty caches, and their own budgets together were larger than a served stand-in should
hold. When the caches together pass it, the least recently used entry of any cache goes first. The
size of a result is measured a few levels deep (a tuple of words and the words' strings), sampling
long sequences, so that what is charged is near what is held.

Safe to share between threads: the bookkeeping is done under one lock, the work itself outside it
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


SHARED_CACHE_BYTES = 24 * 2**20
"""What every bounded cache of the process may hold together (a served stand-in's largest keep)."""
SAMPLE_ITEMS = 64
ENTRY_OVERHEAD_BYTES = 320
"""What keeping one entry costs beyond its key and result: its places in the cache's and the shared
order (two ordered-dict links and their key tuples) and the (result, cost) pair; measured with
tracemalloc on a served stand-in's caches, where it came to about 300 bytes an entry."""


def deep_size(value: Any, levels: int = 3) -> int:
    """Bytes of ``value`` and of what it holds, ``levels`` deep: items of tuples, lists and sets, keys and
    values of dicts, the fields of an object. A long sequence is charged from a sample of its items."""
    size = sys.getsizeof(value)
    if levels == 0:
        return size
    if isinstance(value, (tuple, list, frozenset, set)):
        items = value if isinstance(value, (tuple, list)) else tuple(value)
        sample = items[:SAMPLE_ITEMS]
        if sample:
            size += sum(deep_size(item, levels - 1) for item in sample) * len(items) // len(sample)
    elif isinstance(value, dict):
        size += sum(deep_size(key, levels - 1) + deep_size(item, levels - 1) for key, item in value.items())
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        size += deep_size(vars(value), levels - 1)
    return size


class _SharedBudget:
    """The one budget all caches draw on: every entry of every cache, oldest first, and their bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.order: OrderedDict[tuple[BoundedCache[Any], Hashable], None] = OrderedDict()
        self.lock = threading.Lock()

    def make_room(self) -> None:
        """Drop the least recently used entries of any cache until the total fits (lock held)."""
        while self.bytes > self.max_bytes and self.order:
            (cache, key), _ = self.order.popitem(last=False)
            cache._forget(key, shared=False)


SHARED = _SharedBudget(SHARED_CACHE_BYTES)


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
        self._lock = SHARED.lock  # one lock for every cache: the shared budget's order spans them all
        self.__doc__ = function.__doc__
        self.__wrapped__ = function

    def __call__(self, *key: Hashable) -> Result:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                SHARED.order.move_to_end((self, key))
                self._hits += 1
                return found[0]
            self._misses += 1
        result = self.function(*key)
        cost = deep_size(result) + sum(deep_size(part) for part in key) + ENTRY_OVERHEAD_BYTES
        if cost <= self.max_entry_bytes:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = (result, cost)
                    self._bytes += cost
                    SHARED.order[(self, key)] = None
                    SHARED.bytes += cost
                while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                    self._forget(next(iter(self._entries)))
                SHARED.make_room()
        return result

    def _forget(self, key: Hashable, shared: bool = True) -> None:
        """Drop one entry (the lock held); ``shared``: from the shared order too."""
        _, cost = self._entries.pop(key)
        self._bytes -= cost
        SHARED.bytes -= cost
        if shared:
            del SHARED.order[(self, key)]

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, self.max_entries, len(self._entries), self._bytes,
                             self.max_bytes)

    def clear(self) -> None:
        with self._lock:
            for key in list(self._entries):
                self._forget(key)
            self._bytes = self._hits = self._misses = 0

    # The names ``functools.lru_cache`` gives the same two operations, so callers need not care which.
    cache_info = info
    cache_clear = clear


def bounded_cache(max_entries: int, max_bytes: int,
                  max_entry_bytes: int | None = None) -> Callable[[Callable[..., Result]], BoundedCache[Result]]:
    """Decorator form: ``@bounded_cache(8192, 8 * 2**20)``."""
    return lambda function: BoundedCache(function, max_entries, max_bytes, max_entry_bytes)
