"""Live mode is an explicit opt-in; a key alone never switches it on, is never shown, and a failure never crashes it."""

from __future__ import annotations

import base64
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import openai
import pytest

from nightwatch.__main__ import main
from nightwatch.before import NightWatchAgent
from nightwatch.lab.answers import checked_client
from nightwatch.lab.live import LiveModeError, choose_model, live_mode_requested
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.memory.redaction import redact
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin.server import StandInServer
from nightwatch.summarizers import LLMSummarizer
from nightwatch.tokens import estimate_tokens_by_chars

SECRET = "sk-test-0123456789abcdef"


def test_default_is_the_offline_stand_in():
    choice = choose_model({})
    assert not choice.live and choice.standin is not None
    assert "オフライン" in choice.describe()


def test_a_key_alone_does_not_switch_to_live():
    choice = choose_model({"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert not choice.live


@pytest.mark.parametrize("flag", ["0", "", "yes", "true"])
def test_only_the_exact_flag_opts_in(flag):
    assert not live_mode_requested({"NIGHTWATCH_LIVE": flag, "OPENAI_API_KEY": SECRET})


def test_live_mode_uses_the_environment_and_hides_the_key():
    choice = choose_model({"NIGHTWATCH_LIVE": "1", "OPENAI_API_KEY": SECRET,
                           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "NIGHTWATCH_MODEL": "local-model"})
    assert choice.live and choice.model == "local-model"
    assert str(choice.client.base_url).startswith("http://127.0.0.1:9/v1")
    assert SECRET not in choice.describe() and SECRET not in repr(choice)


def test_live_mode_without_credentials_is_refused_clearly():
    with pytest.raises(LiveModeError, match="OPENAI_API_KEY"):
        choose_model({"NIGHTWATCH_LIVE": "1"})


@pytest.mark.parametrize("named", [None, "", "  "])
def test_live_mode_without_a_model_name_is_refused_clearly(named):
    environ = {"NIGHTWATCH_LIVE": "1", "OPENAI_API_KEY": SECRET}
    if named is not None:
        environ["NIGHTWATCH_MODEL"] = named
    with pytest.raises(LiveModeError, match="NIGHTWATCH_MODEL.*2027-01-14") as refused:
        choose_model(environ)
    assert SECRET not in str(refused.value)


def test_the_command_line_says_what_live_mode_lacks_in_one_line(monkeypatch, capsys):
    monkeypatch.setenv("NIGHTWATCH_LIVE", "1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("NIGHTWATCH_MODEL", raising=False)
    with pytest.raises(SystemExit) as stopped:
        main([])
    assert str(stopped.value).startswith("python -m nightwatch: NIGHTWATCH_LIVE=1 needs NIGHTWATCH_MODEL")


# --- live mode when things go wrong: nothing crashes, no key is shown or stored ------------------

LOCAL_KEY = "local-server-passphrase"  # a key of no particular shape, as a local server may use


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def echoing_client(key: str) -> openai.OpenAI:
    """A server that, like some proxies, quotes the request's credentials back in its error text."""
    def handle(request: httpx2.Request) -> httpx2.Response:
        quoted = request.headers["authorization"]
        return httpx2.Response(401, json={"error": {"message": f"Incorrect API key provided: {quoted}",
                                                    "type": "invalid_request_error", "param": None,
                                                    "code": "invalid_api_key"}})
    return openai.OpenAI(api_key=key, base_url="http://echo.invalid/v1", max_retries=0,
                         http_client=httpx2.Client(transport=httpx2.MockTransport(handle)))


@pytest.mark.parametrize("text", [
    f"Incorrect API key provided: {SECRET}",
    f"Bearer {LOCAL_KEY}",
    f"http://user:{LOCAL_KEY}@127.0.0.1:8000/v1",
    f"https://{SECRET}@example.invalid/v1",
])
def test_redact_masks_key_shapes_and_url_credentials(text):
    masked = redact(text)
    assert SECRET not in masked and LOCAL_KEY not in masked and "[REDACTED]" in masked


def test_redact_leaves_ordinary_text_alone():
    assert redact("一時、異常なし。 sk-8 http://127.0.0.1:8000/v1") == "一時、異常なし。 sk-8 http://127.0.0.1:8000/v1"


def test_describe_hides_credentials_written_into_the_url():
    choice = choose_model({"NIGHTWATCH_LIVE": "1", "OPENAI_BASE_URL": f"http://me:{SECRET}@127.0.0.1:9/v1",
                           "NIGHTWATCH_MODEL": "local-model"})
    assert SECRET not in choice.describe() and "127.0.0.1:9" in choice.describe()


def test_a_key_echoed_in_an_error_is_not_stored_in_the_night_table():
    frame = run_night(NightWatchAgent("ヴェスパー", MISSION, client=echoing_client(SECRET)), celebration_eve())
    assert len(frame) == 1 and frame["error"].iloc[0].startswith("401 invalid_api_key")
    assert SECRET not in frame.to_json(force_ascii=False)


def test_a_live_key_of_any_shape_is_masked_once_live_mode_has_it():
    choose_model({"NIGHTWATCH_LIVE": "1", "OPENAI_API_KEY": LOCAL_KEY, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                  "NIGHTWATCH_MODEL": "local-model"})
    frame = run_night(NightWatchAgent("ヴェスパー", MISSION, client=echoing_client(LOCAL_KEY)), celebration_eve())
    assert LOCAL_KEY not in frame.to_json(force_ascii=False)


def test_a_key_echoed_to_the_summarizer_is_not_kept_in_memory_failures():
    memory = ConversationMemory(MISSION, MemoryPolicy(window_size=1, token_threshold=10), estimate_tokens_by_chars,
                                LLMSummarizer(echoing_client(SECRET)))
    for hour in ["一時", "二時", "三時"]:
        memory.add_exchange(f"{hour}です。巡回をお願いします。", f"{hour}、異常なし。")
    assert memory.failures and all("AuthenticationError" in failure.error for failure in memory.failures)
    assert SECRET not in memory.to_json() and SECRET not in repr(memory.failures)


def test_the_cli_reports_a_failed_first_call_instead_of_crashing(monkeypatch, capsys):
    # The SDK still retries each refused connection; only its back-off (seconds of sleep) is skipped.
    monkeypatch.setattr(openai.OpenAI, "_sleep_for_retry", lambda self, **_: None)
    monkeypatch.setenv("NIGHTWATCH_LIVE", "1")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://me:{SECRET}@127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("NIGHTWATCH_MODEL", "local-model")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    main([])
    out = capsys.readouterr().out
    assert out.count("を止めたエラー: APIConnectionError") == 3  # one line per design says what failed
    assert "途中で停止" in out and SECRET not in out


def test_live_mode_cli_against_the_served_stand_in_shows_the_count_gap(monkeypatch, capsys):
    server = StandInServer()
    for name in ("OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "NIGHTWATCH_LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NIGHTWATCH_LIVE", "1")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("NIGHTWATCH_MODEL", "nightwatch-standin")
    with server.running():
        main([])  # the CLI in this process; over HTTP to the served stand-in all the same
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("ライブ: http://127.0.0.1:")
    assert "数え方の差" in out
    # The served stand-in counts with the same tokenizer, so the gap is zero on every design.
    gap = next(line for line in lines if line.startswith("数え方の差（最大）"))
    assert gap.split()[1:] == ["0", "0", "0"]


# --- keys in every place a user might put one -----------------------------------------------------

GATEWAY_KEY = "gw-passphrase-9f8e7d"  # registered nowhere: only the patterns can mask it
BASIC = base64.b64encode(f"watch:{GATEWAY_KEY}".encode()).decode()


@pytest.mark.parametrize("text", [
    f"http://127.0.0.1:8000/v1?api-key={GATEWAY_KEY}",
    f"https://gateway.invalid/v1?api-version=2024-06-01&key={GATEWAY_KEY}&x=1",
    f"https://gateway.invalid/v1?access_token={GATEWAY_KEY}#top",
    f"http://watch:{GATEWAY_KEY}@127.0.0.1:8000/v1?x=1",
    f"Incorrect credentials: Basic {BASIC}",
    f"Authorization: Token {GATEWAY_KEY}",
    f'{{"authorization": "Basic {BASIC}", "model": "m"}}',
    f"headers: {{'api-key': '{GATEWAY_KEY}', 'X-Api-Key': '{GATEWAY_KEY}'}}",
    f"Cookie: session={GATEWAY_KEY}; theme=dark",
])
def test_redact_masks_keys_in_urls_any_authorization_scheme_and_echoed_headers(text):
    masked = redact(text)
    assert GATEWAY_KEY not in masked and BASIC not in masked and "[REDACTED]" in masked


@pytest.mark.parametrize("text", [
    "Basic usage: count the tokens first.", "a token budget of 2048", "http://127.0.0.1:8000/v1?api-version=2",
    "Basic dGVzdA==",  # base64 of "test": not user:password
])
def test_redact_leaves_words_that_only_look_like_credentials_alone(text):
    assert redact(text) == text


def test_a_key_in_the_base_urls_query_is_not_shown_by_the_description():
    choice = choose_model({"NIGHTWATCH_LIVE": "1", "OPENAI_BASE_URL": f"http://127.0.0.1:9/v1?api-key={GATEWAY_KEY}",
                           "NIGHTWATCH_MODEL": "local-model"})
    assert GATEWAY_KEY not in choice.describe() and "api-key=[REDACTED]" in choice.describe()


# --- a malformed answer is one clear line, never a traceback ---------------------------------------

MALFORMED = {
    "an HTML proxy page": (b"<html><body>Sign in to the proxy</body></html>", "text/html"),
    "JSON cut short": (b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "mess', "application/json"),
    "no choices": (b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}',
                   "application/json"),
    "null": (b"null", "application/json"),
}


def answering(body: bytes, content_type: str) -> openai.OpenAI:
    """A live client whose endpoint answers every call 200 with ``body``."""
    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": content_type})
    return checked_client(openai.OpenAI(api_key=LOCAL_KEY, base_url="http://proxy.invalid/v1", max_retries=0,
                                        http_client=httpx2.Client(transport=httpx2.MockTransport(handle))))


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_answer_becomes_one_line_in_the_night_table(kind):
    frame = run_night(NightWatchAgent("ヴェスパー", MISSION, client=answering(*MALFORMED[kind])), celebration_eve())
    assert len(frame) == 1
    error = frame["error"].iloc[0]
    assert error.startswith("MalformedAnswer: the server's answer is ") and "\n" not in error
    assert f"it sent 200 {MALFORMED[kind][1]}, {len(MALFORMED[kind][0])} bytes" in error


def test_a_well_formed_answer_passes_the_check_unchanged(standin):
    reply = checked_client(standin.client()).chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "一時です。"}])
    assert reply.choices[0].message.content


class HTMLPage(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = MALFORMED["an HTML proxy page"][0]
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_the_cli_finishes_its_table_when_every_answer_is_an_html_page(monkeypatch, capsys):
    server = ThreadingHTTPServer(("127.0.0.1", 0), HTMLPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("NIGHTWATCH_LIVE", "1")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1?api-key={GATEWAY_KEY}")
    monkeypatch.setenv("NIGHTWATCH_MODEL", "local-model")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:
        main([])
    finally:
        server.shutdown()
        thread.join()
    out = capsys.readouterr().out
    unwrapped = " ".join(out.split())  # the CLI wraps its lines at 80 columns
    assert unwrapped.count("を止めたエラー: MalformedAnswer: the server's answer is not a chat completion") == 3
    assert out.count("途中で停止") == 3 and GATEWAY_KEY not in out
