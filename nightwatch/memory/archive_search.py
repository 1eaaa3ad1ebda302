"""Searching the archive: the exchanges that left the window, ranked by likeness to a query.

The archive (chapter 6) keeps every evicted exchange whole, tool results included. ``search`` ranks
them with BM25 over character bigrams: bigrams need no word splitter, so Japanese (written without
spaces) and English are searched the same way, and the core stays free of the stand-in's analyzer.
It is lexical and plain: a query shares characters with what it finds, or it finds nothing.

This is act 3's retrieval, Anne's way: choose by likeness to a question. It suits a detail someone
asks about; it cannot keep a duty that nobody asks for (chapter 9 runs both).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nightwatch.memory.records import Exchange

K1 = 1.2
B = 0.75
SPACE_AND_PUNCTUATION = re.compile(r"[\s、。，．,.!?！？「」『』（）()：:;；・/／\-]+")


def bigrams(text: str) -> Counter[str]:
    """Character bigrams of each run of text between spaces and punctuation, case folded."""
    grams: Counter[str] = Counter()
    for run in SPACE_AND_PUNCTUATION.split(text.casefold()):
        if len(run) == 1:
            grams[run] += 1
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return grams


def exchange_text(exchange: Exchange) -> str:
    """What an archived exchange says: the question, what the tools found, the reply."""
    found = [step.content for step in exchange.steps if step.role == "tool"]
    return "\n".join([exchange.user_text, *found, exchange.watchman_reply])


@dataclass(frozen=True)
class Hit:
    """One archived exchange and how well it matched."""

    position: int  # its place in the archive, oldest first
    score: float
    text: str


def rank(texts: Sequence[str], query: str, limit: int = 3) -> list[tuple[int, float]]:
    """(position, score) of the ``limit`` texts most like ``query`` (score > 0), best first, ties oldest first."""
    if type(limit) is not int or limit <= 0:
        raise ValueError(f"limit must be a positive int, got {limit!r}")
    documents = [bigrams(text) for text in texts]
    if not documents:
        return []
    average = sum(sum(d.values()) for d in documents) / len(documents) or 1.0
    wanted = set(bigrams(query))
    frequency = Counter(gram for d in documents for gram in wanted if gram in d)
    scored = []
    for position, document in enumerate(documents):
        length = sum(document.values())
        score = 0.0
        for gram in wanted & document.keys():
            idf = math.log(1 + (len(documents) - frequency[gram] + 0.5) / (frequency[gram] + 0.5))
            tf = document[gram]
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        if score > 0:
            scored.append((position, score))
    return sorted(scored, key=lambda hit: (-hit[1], hit[0]))[:limit]


def search(archive: Sequence[Exchange], query: str, limit: int = 3) -> list[Hit]:
    """The ``limit`` archived exchanges most like ``query``, best first."""
    texts = [exchange_text(exchange) for exchange in archive]
    return [Hit(position, score, texts[position]) for position, score in rank(texts, query, limit)]


NOTHING_FOUND = {"ja": "書庫に、それらしい記録は見つかりませんでした。", "en": "Nothing like that is in the archive."}


def archive_tool(memory: object, limit: int = 1) -> Callable[[str], str]:
    """``search_archive(query)``: the memory's archive offered to the agent as a tool."""
    from nightwatch.memory.clearing import mission_language

    lang = mission_language(getattr(memory, "mission", ""))

    def search_archive(query: str) -> str:
        """書庫（窓から押し出された夜のやりとり）から、問いに似た記録を探して返す。覚えていない出来事を思い出したいときに使う。

        Args:
            query: 探したい出来事を表す言葉
        """
        hits = search(getattr(memory, "archive"), query, limit)
        return "\n".join(hit.text for hit in hits) if hits else NOTHING_FOUND[lang]

    return search_archive
