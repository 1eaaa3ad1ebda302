"""The reader under many threads, as the served stand-in runs it: the same text is analysed the same
way from every thread, the same request gets the same reply, no wrong analysis is cached, and the
MeCab tagger is built once however many threads arrive first."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx2
import pytest

import nightwatch.standin.reader as reader_package
from nightwatch.standin import StandInModel
from nightwatch.standin.reader import words
from nightwatch.tokens.bounded_cache import BoundedCache

THREADS = 8
TEXTS = [f"{n}番目の扉は閉めないでください。鍵は私が持っています。" for n in range(120)] + [
    "猫が窓の外で鳴いていますが、気にしないで巡回を続けてください。",
    "午前三時に搬入口の灯りが消えていたら、警備室へ知らせてください。",
]


@contextmanager
def eager_thread_switches() -> Iterator[None]:
    """Threads switch as often as the interpreter allows, so a race that can happen does."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def in_threads(work: Callable[[int], None], count: int = THREADS) -> None:
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    with eager_thread_switches():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def clear_reader_caches() -> None:
    """Every bounded cache of the reader and the token counts: the next request is read afresh."""
    import nightwatch.tokens.counting as counting

    modules = [module for name, module in sys.modules.items()
               if name.startswith(reader_package.__name__) and module is not None] + [counting]
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, BoundedCache):
                value.clear()


def test_the_same_text_is_analysed_the_same_way_from_every_thread():
    analyse = words.analyze.__wrapped__  # the analysis itself, past the cache
    expected = [analyse(text) for text in TEXTS]
    wrong: list[str] = []

    def work(index: int) -> None:
        for offset in range(len(TEXTS)):
            position = (offset + index * 7) % len(TEXTS)
            if analyse(TEXTS[position]) != expected[position]:
                wrong.append(TEXTS[position])

    in_threads(work)
    assert wrong == []


def test_no_wrong_analysis_is_left_in_the_cache():
    words.analyze.clear()
    in_threads(lambda index: [words.analyze(text) for text in TEXTS[index::2]])
    analyse = words.analyze.__wrapped__
    assert [words.analyze(text) for text in TEXTS] == [analyse(text) for text in TEXTS]


def test_the_same_request_gets_the_same_reply_from_many_threads():
    standin = StandInModel(context_limit=8192)
    bodies = [json.dumps({"model": "gpt-4o", "messages": [
        {"role": "system", "content": "あなたは夜警です。扉は誰にも開けないでください。"},
        {"role": "user", "content": text}]}).encode() for text in TEXTS[::6]]

    def reply(body: bytes) -> str:
        response = standin.handle(httpx2.Request("POST", "http://standin/v1/chat/completions", content=body))
        assert response.status_code == 200
        return response.json()["choices"][0]["message"]["content"]

    expected = [reply(body) for body in bodies]
    clear_reader_caches()
    replies: dict[int, list[str]] = {}
    in_threads(lambda index: replies.__setitem__(index, [reply(body) for body in bodies]))
    assert all(got == expected for got in replies.values())


def test_the_tagger_is_built_once_however_many_threads_ask_first(monkeypatch):
    built: list[object] = []
    real = words.Tagger

    def counting_tagger(*args: object) -> object:
        time.sleep(0.05)  # a dictionary takes a while to open: the window every first caller falls into
        built.append(object())
        return real(*args)

    monkeypatch.setattr(words, "Tagger", counting_tagger)
    monkeypatch.setattr(words, "_tagger", None)
    in_threads(lambda index: words._tag("扉を閉めてください。"), count=16)
    assert len(built) == 1


@pytest.mark.parametrize("text", TEXTS[-2:])
def test_the_lock_changes_no_analysis(text):
    """One thread, as before: the tokens the reader sees are MeCab's, field for field."""
    [lemmas] = {tuple(word.lemma for word in words.analyze.__wrapped__(text)) for _ in range(3)}
    assert "扉" in lemmas or "猫" in lemmas or "灯り" in lemmas or "搬入" in lemmas
