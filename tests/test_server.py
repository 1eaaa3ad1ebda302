"""The stand-in over HTTP: same outcomes as in-process, OpenAI-style errors, concurrency, clean stop."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from nightwatch.compare import compare_designs
from nightwatch.nights import MISSION, celebration_eve
from nightwatch import persona


@pytest.fixture(scope="module")
def server():
    process = subprocess.Popen(
        [sys.executable, "-m", "nightwatch", "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    banner = process.stdout.readline()
    port = int(banner.split("http://127.0.0.1:")[1].split("/")[0])
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


def http_client(port: int) -> openai.OpenAI:
    return openai.OpenAI(api_key="unused", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)


def raw(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    status, payload = response.status, json.loads(response.read())
    connection.close()
    return status, payload


def test_a_whole_night_over_the_network_matches_in_process(server):
    _, port = server
    night = celebration_eve()
    over_http, _ = compare_designs(night, client_factory=lambda: http_client(port))
    in_process, _ = compare_designs(night)
    assert over_http.drop(columns="context_limit").equals(in_process.drop(columns="context_limit"))


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1/chat/completions", b"{broken", 400),
        ("POST", "/v1/chat/completions", b'{"model": "gpt-4o"}', 400),
        ("POST", "/v1/chat/completions", b'{"model": "gpt-4o", "messages": "hello"}', 400),
        ("POST", "/v1/chat/completions", b'{"model": "gpt-4o", "messages": [{"role": "user", "content": 3}]}', 400),
        ("POST", "/v1/chat/completions", b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "a"}], "max_tokens": "x"}', 400),
        ("GET", "/v1/nowhere", None, 404),
    ],
)
def test_malformed_requests_get_openai_style_errors(server, method, path, body, status):
    process, port = server
    code, payload = raw(port, method, path, body)
    assert code == status
    assert set(payload["error"]) >= {"message", "type", "param", "code"}
    assert process.poll() is None  # the server is still up


def test_models_route(server):
    _, port = server
    assert http_client(port).models.list().data[0].id == "nightwatch-standin"


def test_200_concurrent_requests_get_correct_answers(server):
    _, port = server
    client = http_client(port)
    hours = ["一時", "二時", "三時", "四時", "五時"]

    def patrol(index: int) -> tuple[str, str]:
        messages = [{"role": "system", "content": MISSION},
                    {"role": "user", "content": f"（柱時計が鳴る）{hours[index % 5]}です。巡回をお願いします。{index}"}]
        reply = client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content
        return reply, persona.answer(messages)

    with ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(patrol, range(200)))
    assert len(results) == 200
    assert all(reply == expected for reply, expected in results)


def test_ctrl_c_stops_the_server_cleanly():
    process = subprocess.Popen(
        [sys.executable, "-m", "nightwatch", "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    process.stdout.readline()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert "止めました" in out and "Traceback" not in err


def test_live_mode_cli_against_the_served_stand_in_shows_the_count_gap(server):
    _, port = server
    environment = {"NIGHTWATCH_LIVE": "1", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
                   "NIGHTWATCH_MODEL": "nightwatch-standin", "PATH": ""}
    result = subprocess.run([sys.executable, "-m", "nightwatch"], capture_output=True, text=True,
                            env=environment, check=True, timeout=120)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ライブ: http://127.0.0.1:")
    assert "数え方の差" in result.stdout
    # The served stand-in counts with the same tokenizer, so the gap is zero on every design.
    for line in lines[-3:]:
        assert line.split()[-1] == "0"
