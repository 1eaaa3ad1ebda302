"""``python -m nightwatch`` as a newcomer meets it: 80 columns, Japanese, and a hint for a missed subcommand."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import subprocess
import sys
from unittest import mock

import pytest

from nightwatch.__main__ import TERMINAL_WIDTH, display_width, main, wrap

PROGRAM = [sys.executable, "-m", "nightwatch"]


@functools.cache
def run(*args: str) -> subprocess.CompletedProcess:
    """One real process per command line, shared by the tests that read its output (each start costs seconds)."""
    # COLUMNS as an 80-column terminal reports it; argparse wraps its help to it
    return subprocess.run(PROGRAM + list(args), capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": str(TERMINAL_WIDTH), "PATH": "", "PYTHONIOENCODING": "utf-8"})


@functools.cache
def in_process(*args: str) -> subprocess.CompletedProcess:
    """The same command line run by ``main`` in this process, for the tests that read only its text: the
    Japanese comparison above is the real process a newcomer starts; help and English need not pay for
    another start each."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with mock.patch.dict(os.environ, {"COLUMNS": str(TERMINAL_WIDTH)}), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as ended:
            code = ended.code if isinstance(ended.code, int) else 1
    return subprocess.CompletedProcess(["python", "-m", "nightwatch", *args], code, out.getvalue(), err.getvalue())


def unwrapped(text: str) -> str:
    """The help text with its wrapping and every space taken out."""
    return re.sub(r"\s", "", text)


def widest(text: str) -> int:
    return max(display_width(line) for line in text.splitlines())


def test_display_width_counts_wide_characters_as_two():
    assert display_width("abc") == 3
    assert display_width("夜警") == 4
    assert display_width("（03:50）") == 9
    assert display_width("—") == 1  # ambiguous width: one column, as terminals and pandas draw it


@pytest.mark.parametrize("text", [
    "a" * 200,
    "春の仕立てを止めたエラー: 400 context_length_exceeded: Input tokens exceed the configured limit.",
    "祝賀前夜を三つの仕立てで一晩ずつ走らせ、比較表を出します。" * 4,
])
def test_wrap_keeps_every_line_within_the_width_and_loses_nothing(text):
    lines = wrap(text, 40, indent="  ")
    assert all(display_width(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")


def test_wrap_does_not_start_a_line_with_a_closing_bracket():
    lines = wrap("既定ではオフラインの代役モデルが答えます（数秒）。" * 5, 30, indent="")
    assert not any(line.startswith(("）", "。", "、")) for line in lines)


def test_the_comparison_fits_an_80_column_terminal():
    result = run()
    assert result.returncode == 0, result.stderr
    assert widest(result.stdout) <= TERMINAL_WIDTH
    lines = result.stdout.splitlines()
    header = next(line for line in lines if "春の仕立て" in line and "三層" in line)
    assert header.split() == ["春の仕立て", "一行の手当て", "三層"]
    # the error that stopped the spring design is shown whole, wrapped, not cut
    stop = result.stdout[result.stdout.index("春の仕立てを止めたエラー"):]
    joined = " ".join(part.strip() for part in stop.splitlines())
    sent = int(re.search(r"Your messages resulted in (\d+) tokens\.", joined)[1])  # the message's last sentence, whole
    assert sent > 2048 and f"最大リクエスト          {sent}" in result.stdout  # the same count the table shows


def test_the_table_columns_line_up_in_terminal_columns():
    lines = run().stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["春の仕立て"])
    table = lines[start : start + 7]
    assert len({display_width(line) for line in table}) == 1  # every row ends in the same column


def test_python_m_nightwatch_prints_the_comparison():
    result = run()  # the same process as the layout tests above
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "オフライン" in lines[0]
    assert "祝賀前夜" in lines[1] and "2048" in lines[1]
    # the designs are columns (春の仕立て, 一行の手当て, 三層), the measures rows
    header = next(line for line in lines if line.split()[:3] == ["春の仕立て", "一行の手当て", "三層"])
    rows = {line.split()[0]: line.split()[1:] for line in lines[lines.index(header) + 1 :] if len(line.split()) == 4}
    assert rows["夜明けまで"] == ["途中で停止", "夜明けまで", "夜明けまで"]
    assert rows["03:50の楽屋口"] == ["夜警のまま", "夜警でない", "夜警のまま"]
    assert rows["朝の報告"] == ["0/3", "0/3", "3/3"]


@pytest.mark.parametrize("argv", [["--help"], ["serve", "--help"]])
def test_help_fits_80_columns_shows_defaults_and_is_plain_japanese_text(argv):
    result = in_process(*argv)
    assert result.returncode == 0
    assert widest(result.stdout) <= TERMINAL_WIDTH
    assert result.stdout.startswith("使い方: python -m nightwatch")
    assert "オプション:" in result.stdout and "このヘルプを表示して終了します" in result.stdout
    assert "``" not in result.stdout and "usage:" not in result.stdout and "show this help" not in result.stdout
    assert "既定:2048）" in unwrapped(result.stdout)


def test_serve_help_shows_the_default_port_and_the_same_metavar_for_the_same_option():
    serve = in_process("serve", "--help").stdout
    top = in_process("--help").stdout
    assert "既定:\u00a08000" in serve  # a number is never parted from its label at a line break
    assert "--port PORT" in serve and "（既定:8000）" in unwrapped(serve)
    assert "--context-limit TOKENS" in serve and "--context-limit TOKENS" in top
    assert "SERVE_LIMIT" not in serve


@pytest.mark.parametrize("argv", [["--port", "8000"], ["--port=8000"], ["--context-limit", "4096", "--port", "8000"]])
def test_a_forgotten_serve_is_named_with_the_command_to_type(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--port は serve サブコマンドのオプションです" in error
    assert "\n    python -m nightwatch serve " + " ".join(argv) + "\n" in error  # on a line of its own, to copy
    assert "invalid choice" not in error
    assert max(display_width(line) for line in error.splitlines()) <= TERMINAL_WIDTH


def test_an_abbreviated_option_of_the_comparison_is_not_taken_for_a_forgotten_serve():
    from nightwatch.__main__ import build_parser, forgotten_subcommand

    assert forgotten_subcommand(["--context", "4096"], *build_parser()) is None
    assert forgotten_subcommand(["--po", "8000"], *build_parser()) is not None


@pytest.mark.parametrize(("argv", "says"), [
    (["8000"], "「8000」というサブコマンドはありません（使えるのは serve）"),
    (["--context-limit", "abc"], "--context-limit: トークン数は正の整数で指定してください（「abc」が指定されました）"),
    (["--context-limit", "-5"], "--context-limit: トークン数は正の整数"),
    (["--context-limit"], "--context-limit: 値を一つ続けてください"),
    (["--bogus"], "認識できない引数です: --bogus"),
    (["serve", "--port", "http"], "--port: ポートは 0 から 65535 までの整数"),
])
def test_argparse_errors_are_japanese_and_name_the_option_as_typed(capsys, argv, says):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert unwrapped(says) in unwrapped(error)
    assert error.startswith("使い方: ") and "error:" not in error and "usage:" not in error
    assert max(display_width(line) for line in error.splitlines()) <= TERMINAL_WIDTH


def test_lang_en_prints_the_table_and_the_help_in_english():
    result = in_process("--lang", "en")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Offline")
    header = next(line for line in lines if "spring design" in line and "three tiers" in line)
    rows = {line[:21].strip(): line[21:].split("  ") for line in lines[lines.index(header) + 1:] if line[:1].isalpha()}
    assert "morning report" in rows and "stage door at 03:50" in rows
    assert widest(result.stdout) <= TERMINAL_WIDTH
    assert not any("\u3040" <= char <= "\u30ff" for line in lines[2:9] for char in line)  # no kana in the table
    helped = in_process("--lang", "en", "--help")
    assert helped.stdout.startswith("usage: python -m nightwatch") and "show this help" in helped.stdout


def test_progress_goes_to_stderr_before_each_wait_and_stdout_stays_the_table():
    result = run()
    said = result.stderr.splitlines()
    assert said[0].startswith("代役を準備しています")
    assert [line for line in said if line.endswith("で一晩を走らせています…")] == [
        "春の仕立てで一晩を走らせています…", "一行の手当てで一晩を走らせています…", "三層で一晩を走らせています…"]
    assert "走らせています" not in result.stdout


def test_the_english_section_maps_every_label_the_table_prints():
    from pathlib import Path

    from nightwatch.__main__ import WORDS

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    labels = ["before", "trimmed", "three_tier", "dawn", "stopped", "door", "watchman", "not_watchman", "not_judged",
              "report", "largest", "sent", "calls", "gap", "ratio"]
    rows = [line for line in readme.splitlines() if line.startswith("| ")]
    for label in labels:
        ja, en = (WORDS[lang][label].replace("{clock}", "03:50") for lang in ("ja", "en"))
        assert any(line.startswith(f"| {ja} | {en} |") for line in rows), label
