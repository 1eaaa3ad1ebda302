"""One memory budget for what a served stand-in keeps: every bounded cache draws on one shared byte
budget (so twenty caches cannot each keep their own megabytes), and the served request log is
bounded in bytes as well as in entries. The RSS itself is measured in ``benchmarks/load_server.py``."""

from __future__ import annotations

import json
import sys

import httpx2

from nightwatch.standin.server import StandInServer
from nightwatch.tokens.bounded_cache import BoundedCache

SHARED_BUDGET = 24 * 2**20  # nightwatch.tokens.bounded_cache.SHARED_CACHE_BYTES
SERVED_LOG_BUDGET = 8 * 2**20  # nightwatch.standin.server.SERVED_REQUEST_LOG_BYTES


def test_caches_together_hold_no_more_than_the_shared_budget():
    caches = [BoundedCache(lambda text: text.upper(), max_entries=1000, max_bytes=SHARED_BUDGET,
                           max_entry_bytes=SHARED_BUDGET) for _ in range(2)]
    for index in range(20):
        for number, cache in enumerate(caches):
            cache(f"{index}:{number}:" + "x" * 2**20)
    held = sum(sys.getsizeof(result) for cache in caches for result, _ in cache._entries.values())
    assert held <= SHARED_BUDGET
    assert all(cache.info().currsize > 0 for cache in caches)  # each still keeps its most recent


def test_the_served_request_log_is_bounded_in_bytes():
    server = StandInServer(port=0)
    try:
        for index in range(16):
            # 600,000 characters a request, in short pieces: one unbroken run of a single character is the
            # slowest text tiktoken can be given, and the log's bound is about bytes, not about that.
            body = {"model": "gpt-4o", "messages": [{"role": "user", "content": f"{index}" + "夜 " * 300_000}]}
            server.standin.handle(httpx2.Request("POST", "http://standin/v1/chat/completions",
                                                 content=json.dumps(body).encode()))
        kept = list(server.standin.requests)
        assert sum(sys.getsizeof(message["content"]) for request in kept for message in request.messages) \
            <= SERVED_LOG_BUDGET
        assert kept and kept[-1].messages[0]["content"].startswith("15")  # the newest is always kept
    finally:
        server.socket.close()
