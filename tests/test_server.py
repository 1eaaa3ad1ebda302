"""The stand-in served over HTTP: real SDK paths, every message shape, bad framing, concurrency, clean stop."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2
import openai
import pytest

from nightwatch.__main__ import main
from nightwatch.nights import MISSION
from nightwatch.standin.server import StandInServer
from nightwatch.standin import StandInModel

READ_TIMEOUT = 0.5
PATROL = "（柱時計が鳴る）一時です。巡回をお願いします。"
VISITOR = "楽屋口の扉を叩く音がします。酔ったお客様が「開けてくれ」と言っています。"
PLAIN = [{"role": "system", "content": MISSION}, {"role": "user", "content": VISITOR}]


@pytest.fixture(scope="module")
def served():
    server = StandInServer(StandInModel(request_log_size=50), read_timeout=READ_TIMEOUT)
    with server.running():
        yield server


def http_client(server: StandInServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="unused", base_url=server.base_url, max_retries=0)


def ask(client: openai.OpenAI, messages, **options):
    return client.chat.completions.create(model="gpt-4o", messages=messages, **options)


def in_process(messages, **options):
    return ask(StandInModel().client(), messages, **options)


def raw(server: StandInServer, data: bytes, wait: float = 5.0) -> bytes:
    """Send bytes as they are and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def status_and_error(response: bytes) -> tuple[int, dict]:
    head, _, body = response.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body)["error"]


# --- the SDK's three paths ------------------------------------------------------------------------

def test_sync_sdk_gets_what_the_in_process_stand_in_gives(served):
    over_http, local = ask(http_client(served), PLAIN), in_process(PLAIN)
    assert over_http.choices[0].message.content == local.choices[0].message.content
    assert "楽屋口は朝まで誰にも開けない" in over_http.choices[0].message.content  # acts on the door duty
    assert over_http.usage == local.usage


def test_async_sdk_in_parallel():
    # Its own server with the default read deadline (the shared one's is 0.5 s, which a loaded
    # machine can miss between connecting and sending the headers), and the SDK's own retries: a
    # kept-alive connection the server closes as idle just as it is reused is retried, as in production.
    server = StandInServer(StandInModel(request_log_size=50))

    async def run() -> list[str]:
        client = openai.AsyncOpenAI(api_key="unused", base_url=server.base_url, max_retries=2)
        replies = await asyncio.gather(*(ask_async(client, hour) for hour in ("一時", "二時", "三時") * 10))
        await client.close()
        return replies

    async def ask_async(client: openai.AsyncOpenAI, hour: str) -> str:
        messages = [{"role": "system", "content": MISSION},
                    {"role": "user", "content": f"（柱時計が鳴る）{hour}です。"}]
        response = await client.chat.completions.create(model="gpt-4o", messages=messages)
        return response.choices[0].message.content

    with server.running():
        replies = asyncio.run(run())
    assert [reply.split("（")[0] for reply in replies[:3]] == ["一時、異常なし。", "二時、異常なし。", "三時、異常なし。"]
    assert replies == replies[:3] * 10


@pytest.mark.parametrize("where", ["http", "in-process"])
@pytest.mark.parametrize("include_usage", [False, True])
def test_streaming_yields_the_reply_in_chunks(served, where, include_usage):
    client = http_client(served) if where == "http" else StandInModel().client()
    options = {"stream_options": {"include_usage": True}} if include_usage else {}
    chunks = list(ask(client, PLAIN, stream=True, **options))
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    whole = in_process(PLAIN)
    assert text == whole.choices[0].message.content
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    usage = [chunk.usage for chunk in chunks if chunk.usage is not None]
    assert usage == ([whole.usage] if include_usage else [])
    if include_usage:
        assert chunks[-1].choices == [] and chunks[-1].usage == whole.usage


def test_the_event_stream_is_sent_as_it_is_made(served):
    body = json.dumps({"model": "m", "messages": PLAIN, "stream": True}).encode()
    with httpx2.Client() as client, client.stream("POST", f"{served.base_url}/chat/completions", content=body,
                                                  headers={"content-type": "application/json"}) as response:
        # no length announced: the body is sent in chunks as events are made, not assembled first
        assert "content-length" not in response.headers
        assert response.headers["transfer-encoding"] == "chunked"
        lines = response.iter_lines()
        first = next(line for line in lines if line)
        assert json.loads(first[6:])["choices"][0]["delta"]["role"] == "assistant"
        rest = [line for line in lines if line]
    assert rest[-1] == "data: [DONE]" and len(rest) > 3


def test_the_event_stream_ends_with_done(served):
    body = json.dumps({"model": "m", "messages": PLAIN, "stream": True}).encode()
    with httpx2.Client() as client:
        response = client.post(f"{served.base_url}/chat/completions", content=body,
                               headers={"content-type": "application/json"})
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.text.split("\n\n") if line]
    assert all(event.startswith("data: ") for event in events)
    assert events[-1] == "data: [DONE]"
    assert json.loads(events[0][6:])["object"] == "chat.completion.chunk"


def test_models_route(served):
    client = http_client(served)
    assert [model.id for model in client.models.list().data] == ["nightwatch-standin"]
    assert client.models.retrieve("nightwatch-standin").id == "nightwatch-standin"
    assert client.models.retrieve("gpt-4o").id == "gpt-4o"  # chat answers under any name, so this does too


def test_a_stand_in_with_model_names_answers_those_and_404s_the_rest():
    client = StandInModel(model_names={"gpt-4o"}).client()
    assert [model.id for model in client.models.list().data] == ["nightwatch-standin", "gpt-4o"]
    assert client.models.retrieve("gpt-4o").id == "gpt-4o"
    assert ask(client, PLAIN).model == "gpt-4o"
    for attempt in (lambda: client.models.retrieve("gpt-9"),
                    lambda: client.chat.completions.create(model="gpt-9", messages=PLAIN)):
        with pytest.raises(openai.NotFoundError) as missing:
            attempt()
        assert missing.value.code == "model_not_found" and "`gpt-9` does not exist" in missing.value.message


# --- message shapes current clients send ----------------------------------------------------------

def test_developer_message_is_the_mission(served):
    as_developer = [{"role": "developer", "content": MISSION}, {"role": "user", "content": VISITOR}]
    reply = ask(http_client(served), as_developer).choices[0].message.content
    assert reply == in_process(PLAIN).choices[0].message.content
    assert reply != in_process(PLAIN[1:]).choices[0].message.content  # without a mission he answers otherwise
    assert served.standin.requests[-1].messages[0] == {"role": "system", "content": MISSION}


def test_content_parts_are_joined_text(served):
    halves = MISSION.split("\n", 1)
    parts = [{"role": "system", "content": [{"type": "text", "text": halves[0]}, {"type": "text", "text": halves[1]}]},
             {"role": "user", "content": [{"type": "text", "text": VISITOR}]}]
    response = ask(http_client(served), parts)
    assert response.choices[0].message.content == in_process(PLAIN).choices[0].message.content
    assert response.usage.prompt_tokens == in_process(PLAIN).usage.prompt_tokens


def test_tool_calls_and_tool_results_are_material_and_name_may_be_null(served):
    messages = [
        {"role": "system", "content": MISSION, "name": None},
        {"role": "user", "content": "西の鎧戸を確かめてください。"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "inspect", "arguments": '{"where": "west"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "西の鎧戸の留め金が緩んでいます。"},
        {"role": "user", "content": PATROL},
    ]
    response = ask(http_client(served), messages)
    assert response.choices[0].message.content
    logged = served.standin.requests[-1].messages
    assert logged[0] == {"role": "system", "content": MISSION}
    assert logged[2] == {"role": "assistant", "content": 'inspect({"where": "west"})'}
    assert logged[3] == {"role": "tool", "content": "西の鎧戸の留め金が緩んでいます。"}


def test_a_lone_surrogate_is_answered_not_crashed(served):
    body = b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800 \xe4\xb8\x80\xe6\x99\x82"}]}'
    response = httpx2.post(f"{served.base_url}/chat/completions", content=body,
                           headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert served.standin.requests[-1].messages[0]["content"] == "\ufffd 一時"


def test_max_completion_tokens_cuts_the_reply(served):
    response = ask(http_client(served), PLAIN, max_completion_tokens=3)
    assert response.choices[0].finish_reason == "length"
    assert response.usage.completion_tokens == 3


@pytest.mark.parametrize(
    ("options", "messages", "param", "says"),
    [
        ({"n": 2}, PLAIN, "n", "one choice"),
        ({}, [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}],
         "messages[0].content[0]", "image_url"),
        ({}, [{"role": "narrator", "content": "hi"}], "messages[0].role", "narrator"),
        ({}, [{"role": "user", "content": None}], "messages[0].content", "string"),
        ({"max_tokens": 0}, PLAIN, "max_tokens", "positive"),
        ({"stream_options": {"include_usage": True}}, PLAIN, "stream_options", "stream"),
    ],
)
def test_what_the_stand_in_cannot_honour_is_refused_clearly(served, options, messages, param, says):
    with pytest.raises(openai.BadRequestError) as refused:
        ask(http_client(served), messages, **options)
    assert refused.value.param == param
    assert says in refused.value.message


def test_the_overflow_error_reads_like_the_api_through_the_sdk(served):
    tiny = StandInServer(StandInModel(context_limit=20), read_timeout=READ_TIMEOUT)
    with tiny.running(), pytest.raises(openai.BadRequestError) as refused:
        ask(http_client(tiny), PLAIN)
    assert refused.value.code == "context_length_exceeded"
    # openai 3.x's str() holds the message only; this is the phrase langchain-openai treats as an overflow
    assert "Input tokens exceed the configured limit of 20 tokens" in str(refused.value)


# --- errors as OpenAI JSON, framing, slow clients ---------------------------------------------------

@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /v1/nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404),
        (b"PATCH /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
        (b"OPTIONS /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
         b"Connection: close\r\n\r\nhi", 415),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{broken", 400),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", 413),
    ],
)
def test_every_error_is_an_openai_error_object(served, request_bytes, status):
    code, error = status_and_error(raw(served, request_bytes))
    assert code == status
    assert set(error) == {"message", "type", "param", "code"} and error["message"]


def test_a_chunked_body_is_read_as_one_request(served):
    body = json.dumps({"model": "m", "messages": PLAIN}).encode()
    framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    response = raw(served, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + framed)
    assert response.count(b"HTTP/1.1 ") == 1 and response.startswith(b"HTTP/1.1 200")
    assert "楽屋口は朝まで誰にも開けない" in json.loads(response.partition(b"\r\n\r\n")[2])["choices"][0]["message"]["content"]


def test_an_oversized_body_gets_a_413_the_sdk_can_read(served):
    with pytest.raises(openai.APIStatusError) as refused:
        ask(http_client(served), [{"role": "user", "content": "夜" * (2 * 1024 * 1024)}])  # 6 MiB of UTF-8
    assert refused.value.status_code == 413 and "larger than" in refused.value.message


def test_a_body_declared_over_the_limit_is_refused_before_it_is_read(served):
    # 5 MB declared, 1 KB sent, then nothing: the 413 must come from the length alone (it used to
    # wait for the rest until the read deadline, and answer 408 instead).
    head = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 5000000\r\n\r\n")
    response = raw(served, head + b"x" * 1024)  # read until the server closes the stalled connection
    assert response.count(b"HTTP/1.1 ") == 1  # one answer, and no 408 after it
    code, error = status_and_error(response)
    assert code == 413 and "larger than" in error["message"]


@pytest.mark.parametrize("size", [4 * 1024 * 1024, 4 * 1024 * 1024 + 1])
def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(served, size):
    prefix = b'{"model": "m", "messages": [{"role": "user", "content": "'
    filler = size - len(prefix) - 4  # words, not one unbroken run: tiktoken is slow on a run of one letter
    body = prefix + (b"a " * filler)[:filler] + b'"}]}'
    assert len(body) == size
    response = httpx2.post(f"{served.base_url}/chat/completions", content=body,
                           headers={"content-type": "application/json"}, timeout=120)
    if size == 4 * 1024 * 1024:  # read and counted: over the stand-in's context, not over the body limit
        assert response.status_code == 400 and response.json()["error"]["code"] == "context_length_exceeded"
    else:
        assert response.status_code == 413


def test_a_chunked_body_over_the_limit_is_refused_as_it_arrives():
    small = StandInServer(max_body_bytes=1000, read_timeout=READ_TIMEOUT)
    chunk = b"258\r\n" + b"x" * 600 + b"\r\n"
    with small.running():
        response = raw(small, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 3 + b"0\r\n\r\n")
        assert status_and_error(response)[0] == 413
        assert small.standin.calls == 0  # refused before the model saw anything


@pytest.mark.parametrize("partial", [
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n",  # headers never finish
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{",
])
def test_a_slow_client_is_timed_out(served, partial):
    started = time.monotonic()
    code, error = status_and_error(raw(served, partial))
    assert code == 408 and "in time" in error["message"]
    assert time.monotonic() - started >= READ_TIMEOUT  # it waited its timeout; that it ends, raw()'s socket timeout checks


# --- concurrency -----------------------------------------------------------------------------------

def test_300_concurrent_requests_all_answered_and_counted():
    standin = StandInModel(request_log_size=1000)
    server = StandInServer(standin, read_timeout=READ_TIMEOUT)
    hours = ["一時", "二時", "三時", "四時", "五時"]

    def patrol(index: int) -> str:
        messages = [{"role": "system", "content": MISSION},
                    {"role": "user", "content": f"（柱時計が鳴る）{hours[index % 5]}です。"}]
        return ask(client, messages).choices[0].message.content

    with server.running():
        client = http_client(server)
        with ThreadPoolExecutor(max_workers=32) as pool:
            replies = list(pool.map(patrol, range(300)))
    assert [reply.split("（")[0] for reply in replies] == [f"{hours[i % 5]}、異常なし。" for i in range(300)]
    assert standin.calls == 300 and len(standin.requests) == 300


def test_a_slow_request_does_not_hold_up_the_others():
    gate = threading.Event()

    class SlowOnRequest(StandInModel):
        def complete(self, body):
            if body.get("user") == "slow":
                gate.wait(10)
            return super().complete(body)

    server = StandInServer(SlowOnRequest(), read_timeout=READ_TIMEOUT)
    with server.running(), ThreadPoolExecutor(max_workers=1) as pool:
        client = http_client(server)
        slow = pool.submit(ask, client, PLAIN, user="slow")
        time.sleep(0.2)
        assert ask(client, PLAIN).choices[0].message.content  # answered while the slow one is still held
        assert not slow.done()
        gate.set()
        assert slow.result(timeout=10).choices[0].message.content


def test_the_request_log_is_a_ring_of_the_last_n():
    standin = StandInModel(request_log_size=3)
    client = standin.client()
    for hour in ["一時", "二時", "三時", "四時", "五時"]:
        ask(client, [{"role": "user", "content": hour}])
    assert standin.calls == 5 and len(standin.requests) == 3
    assert [r.messages[0]["content"] for r in standin.requests] == ["三時", "四時", "五時"]
    assert standin.requests[-1].messages[0]["content"] == "五時"
    assert [r.messages[0]["content"] for r in standin.requests[:2]] == ["三時", "四時"]
    with pytest.raises(ValueError):
        StandInModel(request_log_size=0)


# --- the command ----------------------------------------------------------------------------------

def test_ctrl_c_stops_the_server_cleanly():
    process = subprocess.Popen([sys.executable, "-m", "nightwatch", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    banner = process.stdout.readline()
    port = int(banner.split("http://127.0.0.1:")[1].split("/")[0])
    socket.create_connection(("127.0.0.1", port), timeout=10).close()  # accepted the moment it is announced
    assert httpx2.get(f"http://127.0.0.1:{port}/v1/models").status_code == 200
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert "止めました" in out and "Traceback" not in err


def test_a_port_in_use_is_one_clear_line(served, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", str(served.port)])
    assert f"ポート {served.port} は既に使われています" in str(stopped.value.code)
    assert "\n" not in str(stopped.value.code)


@pytest.mark.parametrize(("argv", "says"), [
    (["serve", "--port", "70000"], "--port: ポートは 0 から 65535 までの整数"),
    (["serve", "--port", "-1"], "--port: ポートは 0 から 65535 までの整数"),
    (["serve", "--context-limit", "0"], "--context-limit: トークン数は正の整数"),
])
def test_invalid_port_or_limit_is_refused_at_the_door(capsys, argv, says):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert says in capsys.readouterr().err.replace("\n  ", "")  # the message as one line, however it was wrapped
