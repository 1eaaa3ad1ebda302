"""Load on the served stand-in: many clients at once, a long run of requests, and the server's memory.

Starts ``python -m nightwatch serve --port 0`` (the command readers use) on loopback, then:

1. ``--clients`` concurrent one-shot clients (each its own ``AsyncOpenAI`` with ``max_retries=0``,
   so a refused connection counts as a failure instead of being retried away);
2. ``--sequential`` requests one after another, with the server's RSS read before and after;
3. ``--large`` requests of about one megabyte each, RSS read after each half;
4. small requests sent while one ~3.7 MiB request is being read and counted (no lock holds them up);
0. with ``--cold-clients N``, before anything else: N concurrent first requests to the fresh server
   (the table is built once for all of them, not once per worker thread);
6. with ``--hostile N``, after the distinct run: N requests of the shapes that once stopped or
   inflated the server (a ``$ref`` cycle, backtracking patterns, ``minItems`` of 10**8, schemas 300
   deep, ...) from ``--hostile-senders`` threads, while one normal client asks small questions one
   after another: no hostile request may be a 500 or go unanswered, every small one must be answered within a second,
   and the RSS stay within ``--distinct-budget-mb`` of the warm baseline;
7. with ``--chained N``, after the distinct run: N Responses calls chained by ``previous_response_id``,
   a new chain every 40, RSS after each tenth: the bounded store must level off within the budget;
5. with ``--distinct N``, first after the warm-up: N requests whose texts are all different (12 kB, 256 kB and
   1 MB in turn), so no cache ever hits, with the server's RSS after each tenth: the curve must level
   off within ``--distinct-budget-mb`` (64) of the warm baseline, whatever the mix.

Goals (exit status 1 if missed): every request answered, and RSS growth under ``--rss-budget-mb``
over the sequential run and over the second half of the large requests (the first half fills the
server's bounded request log and the allocator's pools; after that memory must stay flat). Everything is bounded: counts are capped and ``--time-limit`` stops the run.

    python benchmarks/load_server.py                     # 500 clients, 10,000 sequential, 50 large
    python benchmarks/load_server.py --clients 100 --sequential 1000 --large 0   # a quick look
    python benchmarks/load_server.py --clients 0 --sequential 0 --large 0 --distinct 1500   # memory only
    python benchmarks/load_server.py --cold-clients 40 --clients 0 --sequential 0 --large 0  # a cold start
    python benchmarks/load_server.py --clients 0 --sequential 0 --large 0 --distinct 12000 --distinct-kb 12 \\
        --context-limit 8192   # distinct chats that are read, not refused as too long
    python benchmarks/load_server.py --clients 0 --sequential 0 --large 0 --hostile 2000   # hostile traffic
    python benchmarks/load_server.py --clients 0 --sequential 0 --large 0 --chained 5000   # the Responses store
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import openai
import psutil

from nightwatch.standin.server import SERVED_REQUEST_LOG_SIZE

ROOT = Path(__file__).resolve().parents[1]
MISSION = "あなたは夜警です。毎正時に館内を巡回し、異常の有無を告げてください。"
MAX_CLIENTS, MAX_SEQUENTIAL, MAX_LARGE, MAX_DISTINCT, MAX_HOSTILE = 2000, 50_000, 500, 20_000, 20_000


def start_server(context_limit: int | None = None) -> tuple[subprocess.Popen, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    limit = [] if context_limit is None else ["--context-limit", str(context_limit)]
    process = subprocess.Popen([sys.executable, "-m", "nightwatch", "serve", "--port", "0", *limit],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
    banner = process.stdout.readline()
    if "http://127.0.0.1:" not in banner:
        process.kill()
        raise SystemExit(f"the server did not start: {banner!r}")
    port = int(banner.split("http://127.0.0.1:")[1].split("/")[0])
    return process, f"http://127.0.0.1:{port}/v1"


def patrol(index: int) -> list[dict[str, str]]:
    hour = "一二三四五"[index % 5]
    return [{"role": "system", "content": MISSION},
            {"role": "user", "content": f"（柱時計が鳴る）{hour}時です。巡回をお願いします。（{index}）"}]


def rss_mb(process: psutil.Process) -> float:
    return process.memory_info().rss / 2**20


async def concurrent_clients(base_url: str, count: int, deadline: float) -> tuple[int, dict[str, int], float]:
    """``count`` clients, each with its own connection, all sent at once; answered and failures by kind."""
    failures: dict[str, int] = {}
    tls = ssl.create_default_context()  # built once: loading CA certificates per client would dominate
    clients = [openai.AsyncOpenAI(api_key="unused", base_url=base_url, max_retries=0, timeout=60,
                                  http_client=httpx2.AsyncClient(verify=tls, timeout=60)) for _ in range(count)]

    async def one(index: int) -> bool:
        try:
            response = await clients[index].chat.completions.create(model="gpt-4o", messages=patrol(index))
            return bool(response.choices[0].message.content)
        except Exception as exc:  # counted, not raised: the point is how many fail and how
            failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
            return False

    started = time.monotonic()
    try:
        results = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(count))),
                                         timeout=max(1.0, deadline - time.monotonic()))
    finally:
        took = time.monotonic() - started
        await asyncio.gather(*(client.close() for client in clients))
    return sum(results), failures, took


def sequential(base_url: str, count: int, deadline: float, content: str | None = None) -> tuple[int, float]:
    """``count`` requests one after another on one kept-alive connection; stops at the deadline.

    A plain HTTP client, not the SDK: this phase measures the server, and the SDK's own work per call
    would only slow the loop down.
    """
    answered, started = 0, time.monotonic()
    with httpx2.Client(base_url=base_url, timeout=60) as client:
        for index in range(count):
            if time.monotonic() > deadline:
                break
            messages = patrol(index) if content is None else [{"role": "user", "content": f"{index}{content}"}]
            try:
                response = client.post("/chat/completions", json={"model": "gpt-4o", "messages": messages})
            except httpx2.HTTPError:
                continue
            if response.status_code == 200:
                answered += bool(response.json()["choices"][0]["message"]["content"])
            else:  # a large request is refused (over the context window) once read and counted in full
                answered += response.json()["error"]["code"] == "context_length_exceeded"
    return answered, time.monotonic() - started


DISTINCT_SIZES_KB = (12, 256, 1024)
"""The mix of distinct requests: many small-large ones, some a quarter megabyte, some a megabyte."""


CHAT_MAX_KB = 64
WARM_CHATS = 5
"""Distinct requests up to this size are conversations (many turns, every one read), larger ones one text."""
PLACES = ("北門", "搬入口", "楽屋口", "西回廊", "舞台袖", "屋根裏", "地下倉庫", "east stair", "loading bay", "attic")
THINGS = ("木箱", "鍵", "灯り", "大太鼓", "衣装", "脚立", "a crate", "the ladder", "a lantern", "the drum")


def distinct_chat(index: int, kilobytes: int) -> list[dict[str, str]]:
    """A conversation of about ``kilobytes`` whose every turn is new: numbered, with places and things
    in an order no other request repeats, in Japanese and English, as a night's turns are."""
    messages, size, turn = [{"role": "system", "content": MISSION}], 0, 0
    while size < kilobytes * 1024:
        place, thing = PLACES[(index + turn) % len(PLACES)], THINGS[(index * 7 + turn) % len(THINGS)]
        if place.isascii():
            text = f"Round {index}-{turn}: at the {place} I found {thing} moved {turn % 5 + 1} steps. Shall I check again?"
        else:
            text = f"{index}の{turn}回目、{place}で{thing}が{turn % 5 + 1}歩ずれていました。もう一度見に行きますか。"
        messages.append({"role": "user" if turn % 2 == 0 else "assistant", "content": text})
        size += len(text.encode())
        turn += 1
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": f"{index}番の見回りを続けてください。"})
    return messages


def distinct_large(base_url: str, count: int, deadline: float, memory: psutil.Process,
                   samples: int = 10, sizes_kb: tuple[int, ...] = DISTINCT_SIZES_KB) -> tuple[int, list[tuple[int, float]]]:
    """``count`` requests whose texts are all different (no cache can hit), sizes cycling through
    ``DISTINCT_SIZES_KB``; the server's RSS after every ``count // samples`` of them.

    Each body is a run of numbered lines, so two requests never share a message text."""
    answered, curve = 0, []
    step = max(1, count // samples)
    with httpx2.Client(base_url=base_url, timeout=120) as client:
        for index in range(count):
            if time.monotonic() > deadline:
                break
            kilobytes = sizes_kb[index % len(sizes_kb)]
            if kilobytes <= CHAT_MAX_KB:
                messages = distinct_chat(index, kilobytes)
            else:
                line = f"{index}番目の目録、木箱{{}}。"
                text = "".join(line.format(box) for box in range(kilobytes * 1024 // 40))
                messages = [{"role": "system", "content": MISSION}, {"role": "user", "content": text}]
            response = client.post("/chat/completions", json={"model": "gpt-4o", "messages": messages})
            answered += response.status_code == 200 or response.json()["error"]["code"] == "context_length_exceeded"
            if (index + 1) % step == 0:
                curve.append((index + 1, rss_mb(memory)))
    return answered, curve


CHAIN_LENGTH = 40


def chained_responses(base_url: str, count: int, deadline: float, memory: psutil.Process,
                      samples: int = 10) -> tuple[int, list[tuple[int, float]]]:
    """``count`` Responses calls, chained by ``previous_response_id`` in chains of ``CHAIN_LENGTH`` (then
    a new chain), every input new; the server's RSS after every tenth. The store keeps each response's
    own items and a link, bounded in bytes, so the curve must level off."""
    answered, curve, previous = 0, [], None
    step = max(1, count // samples)
    with httpx2.Client(base_url=base_url, timeout=120) as client:
        for index in range(count):
            if time.monotonic() > deadline:
                break
            body = {"model": "gpt-4o", "instructions": MISSION, "truncation": "auto",
                    "input": f"{index}番目の見回りです。木箱{index}号と、{index % 97}番の扉を確かめました。"}
            if previous is not None and index % CHAIN_LENGTH:
                body["previous_response_id"] = previous
            response = client.post("/responses", json=body)
            answered += response.status_code == 200
            previous = response.json().get("id") if response.status_code == 200 else None
            if (index + 1) % step == 0:
                curve.append((index + 1, rss_mb(memory)))
    return answered, curve


def hostile_bodies() -> list[tuple[str, dict]]:
    """The request shapes that once stopped, froze or inflated the server, each a few hundred bytes."""
    ask = [{"role": "user", "content": "北門の扉を確かめてください。"}]

    def tool(parameters: dict, content: str = "北門の扉を確かめてください。", choice: object = "required") -> dict:
        return {"model": "gpt-4o", "messages": [{"role": "user", "content": content}], "tool_choice": choice,
                "tools": [{"type": "function", "function": {"name": "check_door", "description": "扉を確かめる",
                                                            "parameters": parameters}}]}

    def reply(schema: object) -> dict:
        return {"model": "gpt-4o", "messages": ask,
                "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": schema}}}

    def one(schema: object) -> dict:
        return {"type": "object", "properties": {"door": schema}, "required": ["door"]}

    deep: dict = {"type": "string"}
    for _ in range(300):
        deep = one(deep)
    return [
        ("$ref cycle", reply({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})),
        ("backtracking pattern", tool(one({"type": "string", "pattern": "^(a+)+$"}), f"扉「{'a' * 40}!」")),
        ("re-hard pattern", tool(one({"type": "string", "pattern": "(x+x+)+y"}), f"扉「{'x' * 5000}」")),
        ("minItems 10**6", reply({"type": "array", "minItems": 10**6, "items": {"type": "string"}})),
        ("minItems 10**8", reply({"type": "array", "minItems": 10**8, "items": {"type": "string"}})),
        ("schema 300 deep", reply(deep)),
        ("tool parameters 300 deep", tool(deep)),
        ("400-digit integer", tool(one({"type": "integer"}), "扉 " + "7" * 400)),
        ("enum []", tool(one({"enum": []}))),
        ("items true", tool(one({"type": "array", "items": True}))),
        ("tool_choice.function a string", tool(one({"type": "string"}),
                                               choice={"type": "function", "function": "check_door"})),
        ("fan-out $ref", reply({"$defs": {"n": {"type": "object", "properties": {
            key: {"$ref": "#/$defs/n"} for key in "abcdefghijklmnop"}}}, "$ref": "#/$defs/n"})),
    ]


def hostile_mix(base_url: str, count: int, senders: int, deadline: float, memory: psutil.Process,
                warm: float) -> dict[str, object]:
    """``count`` hostile requests from ``senders`` threads while one normal client asks small questions
    one after another; the normal client's latencies, the hostile answers by status, the RSS curve."""
    shapes = hostile_bodies()
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    sent = iter(range(count))

    def hostile() -> None:
        with httpx2.Client(base_url=base_url, timeout=30) as client:
            while time.monotonic() < deadline:
                with lock:
                    index = next(sent, None)
                if index is None:
                    return
                name, body = shapes[index % len(shapes)]
                try:
                    status = str(client.post("/chat/completions", json=body).status_code)
                except httpx2.HTTPError as failed:
                    status = type(failed).__name__
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1

    threads = [threading.Thread(target=hostile) for _ in range(senders)]
    for thread in threads:
        thread.start()
    waits, unanswered, curve = [], 0, []
    with httpx2.Client(base_url=base_url, timeout=30) as client:
        while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline:
            started = time.monotonic()
            try:
                answered = client.post("/chat/completions", json={"model": "gpt-4o",
                                                                  "messages": patrol(len(waits))}).is_success
            except httpx2.HTTPError:
                answered = False
            waits.append(time.monotonic() - started)
            unanswered += not answered
            if len(waits) % 20 == 0:
                curve.append(rss_mb(memory) - warm)
    for thread in threads:
        thread.join()
    waits.sort()
    return {"statuses": statuses, "normal": len(waits), "unanswered": unanswered,
            "median": waits[len(waits) // 2] if waits else 0.0,
            "p99": waits[int(len(waits) * 0.99)] if waits else 0.0, "slowest": waits[-1] if waits else 0.0,
            "rss_peak": max(curve, default=rss_mb(memory) - warm), "rss_end": rss_mb(memory) - warm}


def small_beside_big(base_url: str, deadline: float) -> tuple[int, float, float, float]:
    """Small requests sent one after another while one ~3.7 MiB request is being read and counted.

    Returns how many small ones were answered meanwhile, their slowest and median time, and the big
    one's time. With a lock around the model, every small one would wait for the big one.
    """
    big = {"model": "gpt-4o", "messages": [{"role": "user", "content": "夜" * 1_300_000}]}
    took_big: list[float] = []

    def send_big() -> None:
        started = time.monotonic()
        httpx2.post(f"{base_url}/chat/completions", json=big, timeout=120)
        took_big.append(time.monotonic() - started)

    sender = threading.Thread(target=send_big)
    sender.start()
    time.sleep(0.3)  # let the big body get under way
    waits = []
    with httpx2.Client(base_url=base_url, timeout=60) as client:
        while sender.is_alive() and time.monotonic() < deadline:
            started = time.monotonic()
            if client.post("/chat/completions", json={"model": "gpt-4o", "messages": patrol(len(waits))}).is_success:
                waits.append(time.monotonic() - started)
    sender.join()
    waits.sort()
    return len(waits), waits[-1] if waits else 0.0, waits[len(waits) // 2] if waits else 0.0, took_big[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--sequential", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=50, help="requests of about 1 MB each")
    parser.add_argument("--distinct", type=int, default=0,
                        help=f"distinct large requests ({'/'.join(map(str, DISTINCT_SIZES_KB))} kB in turn)")
    parser.add_argument("--distinct-budget-mb", type=float, default=64.0,
                        help="RSS above the warm baseline the distinct requests may take (default: %(default)s)")
    parser.add_argument("--distinct-kb", type=int, default=0,
                        help="all distinct requests of this many kB (default: the mix above)")
    parser.add_argument("--context-limit", type=int, default=None,
                        help="the served stand-in's window (default: its own); 8192 lets 12 kB chats be read, "
                             "not refused as too long")
    parser.add_argument("--chained", type=int, default=0,
                        help=f"Responses calls chained by previous_response_id, {CHAIN_LENGTH} to a chain")
    parser.add_argument("--hostile", type=int, default=0,
                        help="hostile requests (the shapes of hostile_bodies) mixed with one normal client")
    parser.add_argument("--hostile-senders", type=int, default=4, help="threads sending the hostile requests")
    parser.add_argument("--cold-clients", type=int, default=0,
                        help="concurrent first requests to the fresh server, before any warm-up")
    parser.add_argument("--rss-budget-mb", type=float, default=10.0)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds for the whole run")
    args = parser.parse_args()
    if not (0 <= args.clients <= MAX_CLIENTS and 0 <= args.sequential <= MAX_SEQUENTIAL
            and 0 <= args.large <= MAX_LARGE and 0 <= args.distinct <= MAX_DISTINCT
            and 0 <= args.hostile <= MAX_HOSTILE and 1 <= args.hostile_senders <= 64
            and 0 <= args.chained <= MAX_DISTINCT
            and 0 <= args.distinct_kb <= 1024):
        parser.error(f"bounds: clients 0..{MAX_CLIENTS}, sequential 0..{MAX_SEQUENTIAL}, large 0..{MAX_LARGE}, "
                     f"distinct 0..{MAX_DISTINCT} (distinct-kb 0..1024), hostile 0..{MAX_HOSTILE} (senders 1..64)")
    deadline = time.monotonic() + args.time_limit

    server, base_url = start_server(args.context_limit)
    try:
        memory = psutil.Process(server.pid)
        cold_answered = args.cold_clients
        if args.cold_clients:  # the first clients of a fresh server arrive together: one table build for all
            started_rss = rss_mb(memory)
            cold_answered, cold_failures, cold_took = asyncio.run(
                concurrent_clients(base_url, args.cold_clients, deadline))
            print(f"{args.cold_clients} concurrent first requests to a fresh server: {cold_answered} answered in "
                  f"{cold_took:.1f} s; failures {cold_failures or 'none'}; RSS {started_rss:.0f} -> "
                  f"{rss_mb(memory):.0f} MB")
        sequential(base_url, 200, deadline)  # warm up: tokenizer loaded, thread pool started
        with httpx2.Client(base_url=base_url, timeout=60) as client:  # and both languages' lexicons loaded
            for index in range(WARM_CHATS):  # (English lemmas and parts of speech are read on first use)
                client.post("/chat/completions", json={"model": "gpt-4o", "messages": distinct_chat(-1 - index, 2)})
        warm = rss_mb(memory)

        distinct_done, curve = 0, []
        if args.distinct:  # first, so that the warm baseline is the one the bound is measured from
            sizes = (args.distinct_kb,) if args.distinct_kb else DISTINCT_SIZES_KB
            distinct_done, curve = distinct_large(base_url, args.distinct, deadline, memory, sizes_kb=sizes)
            shown = ", ".join(f"{sent}: {rss - warm:+.0f}" for sent, rss in curve)
            print(f"{args.distinct} distinct requests ({'/'.join(map(str, sizes))} kB in turn): "
                  f"{distinct_done} answered; RSS above the warm {warm:.0f} MB after each tenth (MB): {shown}")

        chained_done, chained_curve = 0, []
        if args.chained:  # the Responses store, filled and evicted oldest first
            chained_done, chained_curve = chained_responses(base_url, args.chained, deadline, memory)
            shown = ", ".join(f"{sent}: {rss - warm:+.0f}" for sent, rss in chained_curve)
            print(f"{args.chained} chained Responses calls: {chained_done} answered; RSS above the warm "
                  f"{warm:.0f} MB after each tenth (MB): {shown}")

        hostile: dict[str, object] = {}
        if args.hostile:  # after the distinct run: the same warm baseline, the caches already full
            hostile = hostile_mix(base_url, args.hostile, args.hostile_senders, deadline, memory, warm)
            print(f"{args.hostile} hostile requests from {args.hostile_senders} threads, answered "
                  f"{hostile['statuses']}; meanwhile {hostile['normal']} small requests, {hostile['unanswered']} "
                  f"unanswered, median {hostile['median'] * 1000:.0f} ms, 99th percentile "
                  f"{hostile['p99'] * 1000:.0f} ms, slowest {hostile['slowest']:.2f} s; RSS above the warm "
                  f"{warm:.0f} MB: peak {hostile['rss_peak']:+.1f}, end {hostile['rss_end']:+.1f} MB")

        answered, failures, took = asyncio.run(concurrent_clients(base_url, args.clients, deadline))
        print(f"{args.clients} concurrent clients: {answered} answered in {took:.1f} s; failures {failures or 'none'}")
        after_burst = rss_mb(memory)

        before = rss_mb(memory)
        done, took = sequential(base_url, args.sequential, deadline)
        after = rss_mb(memory)
        growth = after - before
        print(f"{args.sequential} sequential requests: {done} answered in {took:.1f} s "
              f"({done / max(took, 1e-9):.0f}/s); RSS {before:.1f} -> {after:.1f} MB ({growth:+.1f} MB)")

        large_done, large_growth = 0, 0.0
        if args.large:  # in two halves: the first fills the request log and the allocator, the second shows the slope
            half = args.large // 2
            first, took_first = sequential(base_url, half, deadline, content="夜" * 350_000)
            middle = rss_mb(memory)
            second, took_second = sequential(base_url, args.large - half, deadline, content="夜" * 350_000)
            large_done, large_growth = first + second, rss_mb(memory) - middle
            print(f"{args.large} requests of ~1 MB: {large_done} answered in {took_first + took_second:.1f} s; "
                  f"RSS {after:.1f} -> {middle:.1f} MB after the first {half}, "
                  f"-> {rss_mb(memory):.1f} MB after the rest ({large_growth:+.1f} MB)")
        count, slowest, median, took_big = small_beside_big(base_url, deadline)
        print(f"beside one ~3.7 MiB request ({took_big:.1f} s): {count} small requests answered, "
              f"slowest {slowest:.2f} s, median {median * 1000:.0f} ms")
        print(f"RSS after warm-up {warm:.1f} MB, after the burst {after_burst:.1f} MB, at the end {rss_mb(memory):.1f} MB")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()

    goals = {
        "every first request to the fresh server answered": cold_answered == args.cold_clients,
        "every concurrent client answered": answered == args.clients,
        "every sequential request answered": done == args.sequential,
        "every large request answered": large_done == args.large,
        "small requests answered beside the big one, none waiting as long as it": count > 0 and slowest < took_big,
        f"RSS growth over the sequential run under {args.rss_budget_mb:g} MB": growth < args.rss_budget_mb,
    }
    if args.distinct:
        peak = max((rss for _, rss in curve), default=warm) - warm
        goals["every distinct request answered"] = distinct_done == args.distinct
        goals[f"RSS over the distinct requests at most {args.distinct_budget_mb:g} MB above the warm baseline "
              f"(peak {peak:+.1f} MB)"] = peak <= args.distinct_budget_mb
    if args.chained:
        peak = max((rss for _, rss in chained_curve), default=warm) - warm
        goals["every chained Responses call answered"] = chained_done == args.chained
        goals[f"RSS over the chained calls at most {args.distinct_budget_mb:g} MB above the warm baseline "
              f"(peak {peak:+.1f} MB)"] = peak <= args.distinct_budget_mb
    if args.hostile:
        statuses = hostile["statuses"]
        goals["every hostile request answered, a 400 or (the fan-out, filled once) a 200; none a 500"] = (
            set(statuses) <= {"200", "400"} and sum(statuses.values()) == args.hostile)  # type: ignore[union-attr]
        goals["every small request beside them answered, none slower than 1 s"] = (
            hostile["unanswered"] == 0 and hostile["slowest"] < 1.0)  # type: ignore[operator]
        goals[f"RSS during the hostile mix at most {args.distinct_budget_mb:g} MB above the warm baseline"] = (
            hostile["rss_peak"] <= args.distinct_budget_mb)  # type: ignore[operator]
    if args.large // 2 > SERVED_REQUEST_LOG_SIZE:  # otherwise the log is still filling in the second half
        goals[f"RSS growth over the second half of the large ones under {args.rss_budget_mb:g} MB"] = (
            large_growth < args.rss_budget_mb)
    for goal, met in goals.items():
        print(f"{'ok  ' if met else 'MISS'} {goal}")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
