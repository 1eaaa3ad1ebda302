"""The one harness every workshop check runs the participant's code through.

A check cell must always come back with a report, however the answer misbehaves. So every call
into the participant's code goes through ``Harness.call``, which

- stops a call that runs longer than ``seconds`` and says which call it was. A thread with a
  timeout cannot stop a runaway ``while True:`` (Python cannot kill a thread), and a child process
  (``multiprocessing`` with fork) would lose what the answer keeps between calls, needs picklable
  results and is unsafe in a Jupyter kernel that already runs threads. Both the kernel and pytest run
  cell code in the main thread, so a ``signal.setitimer`` alarm raised there interrupts even a tight
  loop; the previous alarm handler and timer are put back afterwards. Where there is no SIGALRM
  (Windows) or the check runs off the main thread, calls run without a limit and the report says so;
- turns ``KeyboardInterrupt`` and ``SystemExit`` (``exit()``, ``sys.exit()``) into evidence, and
  skips every later call once one call ran away or was interrupted, so the check ends in seconds;
- keeps what the answer prints, up to a cap, and shows the start of it in the report's notes;
- refuses to judge when a part of ``nightwatch`` was replaced after import (monkeypatching the
  checker), and names the part;
- says when the answer is the shipped solution's code, or a function of the library itself.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import inspect
import io
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

from nightwatch.workshop.report import CheckItem, CheckReport, describe_error, finish, short

SECONDS_PER_CALL = 3.0
PRINT_CAP = 2000  # characters of the answer's printing that are kept
PRINT_SHOWN = 300  # characters of it that the report shows


class ParticipantError(Exception):
    """A call into the participant's code that did not give a usable result; the message says why."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class _Alarm(BaseException):
    """Raised by the alarm inside the participant's call; a BaseException so ``except Exception`` in
    the answer does not swallow it."""


class CappedOutput(io.TextIOBase):
    """Stands in for stdout/stderr during a call: keeps the first ``cap`` characters, counts the rest."""

    def __init__(self, cap: int = PRINT_CAP) -> None:
        self.cap, self.kept, self.total = cap, [], 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self.cap - min(self.total, self.cap)
        if room > 0:
            self.kept.append(text[:room])
        self.total += len(text)
        return len(text)

    def text(self) -> str:
        return "".join(self.kept)


def alarms_work() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class Harness:
    """Runs the participant's code for one check: time limit, interrupts, printing, first runaway."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = SECONDS_PER_CALL if seconds is None else seconds  # read at each check
        self.output = CappedOutput()
        self.stopped: str | None = None  # why later calls are skipped: the call that ran away
        self.calls = 0

    def call(self, function: Callable[..., Any], *args: Any, label: str) -> Any:
        """``function(*args)``; any failure becomes a ``ParticipantError`` that names ``label``."""
        if self.stopped is not None:
            raise ParticipantError(f"{label} は呼びませんでした（{self.stopped}）")
        self.calls += 1
        try:
            with contextlib.redirect_stdout(self.output), contextlib.redirect_stderr(self.output):
                with self.alarm():
                    return function(*args)
        except _Alarm:
            self.stopped = f"{label} が {self.seconds:g} 秒たっても終わらなかったので止めました"
            raise ParticipantError(self.stopped + "（終わらないループになっていませんか）") from None
        except KeyboardInterrupt as error:
            self.stopped = f"{label} の途中で KeyboardInterrupt が起きました"
            raise ParticipantError(self.stopped + "（答えが投げたか、実行を止めたか）", error) from None
        except SystemExit as error:
            self.stopped = f"{label} が exit()／sys.exit() を呼びました（code={error.code!r}）"
            raise ParticipantError(self.stopped + "。関数の中では exit せず、return してください", error) from None
        except Exception as error:  # noqa: BLE001 - the answer may raise anything
            raise ParticipantError(f"{label} で例外が出ました: {describe_error(error)}", error) from None

    @contextlib.contextmanager
    def alarm(self):
        if not alarms_work():
            yield
            return

        def ring(signum, frame):
            raise _Alarm

        previous = signal.signal(signal.SIGALRM, ring)
        outer_delay, _ = signal.setitimer(signal.ITIMER_REAL, self.seconds)
        started = time.monotonic()
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer_delay:  # someone else's alarm (pytest-timeout, say) keeps running
                signal.setitimer(signal.ITIMER_REAL, max(outer_delay - (time.monotonic() - started), 0.001))

    def guard(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        """``function`` wrapped so that every call goes through ``call``, labelled with its arguments."""

        @functools.wraps(function)
        def guarded(*args: Any) -> Any:
            shown = ", ".join(short(repr(arg), 24) for arg in args)
            return self.call(function, *args, label=f"{name}({shown})")

        return guarded

    def notes(self) -> list[str]:
        notes = []
        if self.output.total:
            text = short(self.output.text(), PRINT_SHOWN)
            notes.append(f"答えの print の出力（{self.output.total:,} 文字。最初の {min(self.output.total, PRINT_SHOWN)}"
                         f" 文字だけ表示）: {text}")
        if not alarms_work():
            notes.append("この環境では呼び出しの時間制限が使えないため、制限なしで実行しました。")
        return notes


# ---- the checker's own parts, as imported: replacing one afterwards is visible ----------------

def _parts() -> dict[str, int]:
    """id() of every function and class of every loaded nightwatch module, and of their attributes."""
    parts: dict[str, int] = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("nightwatch") or not isinstance(module, types.ModuleType):
            continue
        for name, value in list(vars(module).items()):
            if callable(value) or isinstance(value, types.ModuleType):
                parts[f"{module_name}.{name}"] = id(value)
            if isinstance(value, type) and value.__module__ == module_name:
                for attribute, member in list(vars(value).items()):
                    if callable(member) or isinstance(member, (property, staticmethod, classmethod)):
                        parts[f"{module_name}.{name}.{attribute}"] = id(member)
    return parts


_ORIGINAL: dict[str, int] = {}


def remember_parts() -> None:
    """Record the checker's parts as they are now (called once the workshop package is imported)."""
    for name, ident in _parts().items():
        _ORIGINAL.setdefault(name, ident)


def replaced_parts() -> list[str]:
    """Names of the checker's parts that are no longer the objects it imported (first seen = original)."""
    current = _parts()
    for name, ident in current.items():
        _ORIGINAL.setdefault(name, ident)
    return sorted(name for name, ident in current.items() if _ORIGINAL[name] != ident)


def fingerprint(function: Any) -> str | None:
    """A short hash of a function's code, ignoring comments, blank lines and docstrings; None if unknown."""
    try:
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def answer_source(answer: Any, solution: str | None) -> str | None:
    """A line for the report when the answer comes from the library or is the shipped solution."""
    module = getattr(answer, "__module__", None) or type(answer).__module__
    if module.startswith("nightwatch"):
        return f"この答えはライブラリの {module}.{getattr(answer, '__qualname__', type(answer).__qualname__)} です。"
    if solution is not None and fingerprint(answer) == solution:
        return "※ この答えは、配布した解答例のノートの答えと同じコードです（進行役の方へ: 自分で書いたものか確かめてください）。"
    return None


def exercise_check(
    exercise: str,
    name: str,
    probe: Callable[[], Sequence[Any]],
    planned: Sequence[str],
    what_to_do: str,
    solution: str | None = None,
) -> Callable[[Callable[..., CheckReport]], Callable[..., CheckReport]]:
    """Turn ``body(answer, harness, *more)`` into a check cell's function ``check(answer, *more)``.

    Before the body runs: a replaced checker part fails the check; a non-function or the library's
    own function is "まだです"; so is a placeholder that still raises NotImplementedError on
    ``probe()``. The body receives the answer already guarded by a fresh ``Harness`` and never
    needs a try/except of its own. Whatever happens, a report comes back."""

    def decorate(body: Callable[..., CheckReport]) -> Callable[..., CheckReport]:
        @functools.wraps(body)
        def check(answer: Any, *more: Any) -> CheckReport:
            replaced = replaced_parts()
            if replaced:
                shown = "、".join(replaced[:5]) + (f" ほか {len(replaced) - 5} 件" if len(replaced) > 5 else "")
                item = CheckItem("チェックの部品が、読み込んだときのまま", False, (f"✗ 差し替えられています: {shown}",),
                                 "チェックの部品を書き換えると判定できません。カーネルを再起動して、答えのセルから実行し直してください。")
                return CheckReport(exercise, "failed", (item,))
            if not callable(answer):
                return CheckReport(exercise, "not_yet", (), f"{name} が関数ではありません（{type(answer).__name__} です）。"
                                   f"答えのセルで def {name}(...) を定義してから、このセルを実行してください。")
            source = answer_source(answer, solution)
            if source is not None and source.startswith("この答えはライブラリ"):
                return CheckReport(exercise, "not_yet", (), source + f"答えのセルで、自分の {name} を書いてみましょう。")
            harness = Harness()
            guarded = harness.guard(answer, name)
            try:
                try:
                    guarded(*probe())
                except ParticipantError as error:
                    if isinstance(error.cause, NotImplementedError):
                        return not_yet(exercise, name, planned, what_to_do)
                report = body(guarded, harness, *more)
            except Exception as error:  # noqa: BLE001 - the check cell must always show a report
                item = CheckItem("チェックを最後まで実行する", False,
                                 (f"途中で思いがけないエラーが起きました: {describe_error(error)}",),
                                 "答えのコードが例外を投げていないか確かめてください。直らなければ進行役に声をかけてください。")
                report = CheckReport(exercise, "failed", (item,))
            message = "\n".join(part for part in (source, stopped_line(harness), report.message) if part)
            return CheckReport(exercise, report.status, report.items, message, (*report.notes, *harness.notes()))

        check.exercise = exercise
        return check

    return decorate


def stopped_line(harness: Harness) -> str | None:
    if harness.stopped is None:
        return None
    return f"⏱ {harness.stopped}。それ以降の呼び出しは省き、そこまでの結果で判定しました。"


def not_yet(exercise: str, name: str, planned: Sequence[str], what_to_do: str) -> CheckReport:
    """The report for a placeholder that has not been filled in: what to do, and what will be checked."""
    message = (
        f"{name} の中身がまだ書かれていません（raise NotImplementedError のままです）。\n"
        f"{what_to_do}\n"
        "書けたら、答えのセルとこのセルを順に実行し直してください。このチェックで確かめること:"
    )
    return CheckReport(exercise, "not_yet", tuple(CheckItem(title, False) for title in planned), message)


def graded(planned: Sequence[str], evidence: Sequence[Sequence[str]], hints: Sequence[str]) -> list[CheckItem]:
    """One item per planned sub-check: passed when every evidence line starts with ✓."""
    items = []
    for title, lines, hint in zip(planned, evidence, hints, strict=True):
        lines = tuple(lines) or ("✗ 一度も確かめられませんでした",)
        items.append(CheckItem(title, all(line.startswith("✓") for line in lines), lines, hint))
    return items


__all__ = ["Harness", "ParticipantError", "exercise_check", "finish", "graded", "replaced_parts", "fingerprint"]
