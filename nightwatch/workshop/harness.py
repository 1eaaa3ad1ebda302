"""The one harness every workshop check runs the participant's code through.

A check cell must always come back with a report, within a stated time. So the whole check runs in a
child process (``os.fork``: the child has the notebook's answer; only the report comes back) and the
notebook's process watches it. Every call into the answer goes through ``Harness.call``, which tells
the watcher the call's label as it starts and ends; a call over ``Budget.per_call``, or a check over
``Budget.per_check``, is ended with SIGKILL, which no ``try/except BaseException`` in the answer can
swallow, and the report names the call. A placeholder's NotImplementedError, an interrupt or an
``exit()`` ends the check at once: no more nights are played. What the answer prints is capped and
shown in the notes. Without ``os.fork`` (Windows) the check runs in-process with no time limit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import multiprocessing
import os
import signal
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from nightwatch.workshop.report import CheckItem, CheckReport, describe_error, not_yet, short

PRINT_CAP, PRINT_SHOWN = 2000, 300  # characters of the answer's printing kept, and shown
RUNAWAY_HINT = ("終わらないループになっていませんか。while の条件がいつか偽になるか、try/except で"
                "止める合図まで握りつぶしていないか確かめましょう。")
SLOW_HINT = ("呼び出しの一つひとつが遅すぎます。同じ計算を何度も繰り返していないか、"
             "time.sleep が残っていないか確かめましょう。")
EXIT_HINT = "答えの中で os._exit など、プロセスを止める呼び出しをしていないか確かめましょう。"
UNEXPECTED_HINT = "答えのコードが例外を投げていないか確かめてください。直らなければ進行役に声をかけてください。"


@dataclasses.dataclass(frozen=True)
class Budget:
    """How long one call into the answer, and one whole check, may take (seconds)."""

    per_call: float = 5.0
    per_check: float = 60.0


class ParticipantError(Exception):
    """A call into the participant's code that did not give a usable result; the message says why."""


class NotYet(BaseException):
    """The answer is still the placeholder (it raised NotImplementedError): nothing to judge yet."""


class Stopped(BaseException):
    """The answer interrupted or exited: the check has its verdict and plays nothing more."""

    def __init__(self, line: str, hint: str) -> None:
        super().__init__(line)
        self.line, self.hint = line, hint


class CappedOutput(io.StringIO):
    """Stdout and stderr during a call: keeps the first ``PRINT_CAP`` characters, counts the rest."""

    total = 0

    def write(self, text: str) -> int:
        super().write(text[: max(PRINT_CAP - self.total, 0)])
        self.total += len(text)
        return len(text)


class Harness:
    """Calls the participant's code for one check, telling the watcher which call is running."""

    def __init__(self, send: Callable[[tuple], None] = lambda message: None) -> None:
        self.output, self.send = CappedOutput(), send

    def call(self, function: Callable[..., Any], *args: Any, label: str) -> Any:
        """``function(*args)``; a failure is a ``ParticipantError`` naming ``label``, an exit ``Stopped``."""
        self.send(("call", label))
        try:
            with contextlib.redirect_stdout(self.output), contextlib.redirect_stderr(self.output):
                return function(*args)
        except NotImplementedError:
            raise NotYet from None
        except KeyboardInterrupt:
            raise Stopped(f"{label} の途中で KeyboardInterrupt が起きました",
                          "答えの中で KeyboardInterrupt を投げていないか確かめましょう。") from None
        except SystemExit as error:
            raise Stopped(f"{label} が exit()／sys.exit() を呼びました（code={error.code!r}）",
                          "関数の中では exit せず、return で値を返してください。") from None
        except Exception as error:  # noqa: BLE001 - the answer may raise anything
            raise ParticipantError(f"{label} で例外が出ました: {describe_error(error)}") from None
        finally:
            self.send(("done", label))

    def guard(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        """``function`` wrapped so that every call goes through ``call``, labelled with its arguments."""
        return functools.wraps(function)(lambda *args: self.call(
            function, *args, label=f"{name}({', '.join(short(repr(arg), 24) for arg in args)})"))

    def notes(self) -> tuple[str, ...]:
        total, shown = self.output.total, short(self.output.getvalue(), PRINT_SHOWN)
        return (f"答えの print の出力（{total:,} 文字。最初の {min(total, PRINT_SHOWN)} 文字だけ表示）: {shown}",
                ) if total else ()


def failed(exercise: str, title: str, line: str, hint: str, message: str = "",
           notes: Sequence[str] = ()) -> CheckReport:
    """A check that could not judge the answer's items: one failed item saying why."""
    return CheckReport(exercise, "failed", (CheckItem(title, False, (line,), hint),), message, tuple(notes))


def stopped(exercise: str, line: str, hint: str, notes: Sequence[str] = ()) -> CheckReport:
    return failed(exercise, "答えが時間内に終わり、チェックを最後まで続けられる", f"✗ {line}", hint,
                  f"⏱ {line}。そこでチェックを終えました。", notes)


def run_guarded(exercise: str, budget: Budget, judge: Callable[[Harness], CheckReport]) -> CheckReport:
    """``judge(harness)`` in a child process, watched: killed when a call or the whole check overruns."""
    if not hasattr(os, "fork"):
        report = judge(Harness())
        return dataclasses.replace(report, notes=(*report.notes, "この環境では時間制限が使えないため、制限なしで実行しました。"))
    reader, writer = multiprocessing.Pipe(duplex=False)
    with warnings.catch_warnings():  # Python 3.12+ warns about fork in a process with threads (a kernel has
        warnings.simplefilter("ignore", DeprecationWarning)  # some); the child touches none of their locks
        pid = os.fork()
    if pid == 0:  # the child: judge, send the report, leave without the notebook's exit hooks
        try:
            reader.close()
            writer.send(("report", judge(Harness(writer.send))))
        finally:
            os._exit(0)
    writer.close()
    started = since = time.monotonic()
    label = None
    try:
        while True:
            call_ends = since + budget.per_call if label is not None else float("inf")
            if not reader.poll(max(min(started + budget.per_check, call_ends) - time.monotonic(), 0)):
                if call_ends <= time.monotonic():
                    return stopped(exercise, f"{label} が {budget.per_call:g} 秒たっても終わらなかったので止めました",
                                   RUNAWAY_HINT)
                return stopped(exercise, f"チェック全体が {budget.per_check:g} 秒を超えたので止めました"
                               f"（そのとき動いていたのは {label or 'チェック自身の処理'}）", SLOW_HINT)
            try:
                kind, value = reader.recv()
            except EOFError:
                return stopped(exercise, f"チェックが報告を返さずに終わりました（{label or '答えの外'}）", EXIT_HINT)
            if kind == "report":
                return value
            label, since = (value, time.monotonic()) if kind == "call" else (None, since)
    finally:
        reader.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def exercise_check(exercise: str, name: str, items: Sequence[tuple[str, str]], what_to_do: str,
                   budget: Budget = Budget()) -> Callable[[Callable[..., CheckReport]], Callable]:
    """Turn ``body(answer, *more)`` into a check cell's function ``check(answer, *more)``.

    The body gets the answer already guarded, runs under ``check.budget`` and needs no try/except:
    a placeholder still raising NotImplementedError is "まだです", with the list of ``items``. What
    cannot be judged at all (not a function, or the library's own) is "まだです" before anything runs."""

    def decorate(body: Callable[..., CheckReport]) -> Callable[..., CheckReport]:
        def judge(answer: Any, more: tuple, harness: Harness) -> CheckReport:
            try:
                report = body(harness.guard(answer, name), *more)
            except NotYet:
                return not_yet(exercise, items, f"{name} の中身がまだ書かれていません（raise NotImplementedError"
                               f" のままです）。\n{what_to_do}\n書けたら、答えのセルとこのセルを順に実行し直してください。"
                               "このチェックで確かめること:")
            except Stopped as stop:
                return stopped(exercise, stop.line, stop.hint, harness.notes())
            except Exception as error:  # noqa: BLE001 - the check cell must always show a report
                report = failed(exercise, "チェックを最後まで実行する",
                                f"途中で思いがけないエラーが起きました: {describe_error(error)}", UNEXPECTED_HINT)
            return dataclasses.replace(report, notes=(*report.notes, *harness.notes()))

        @functools.wraps(body)
        def check(answer: Any, *more: Any) -> CheckReport:
            module = getattr(answer, "__module__", None) or type(answer).__module__
            if not callable(answer):
                return CheckReport(exercise, "not_yet", (), f"{name} が関数ではありません（{type(answer).__name__}"
                                   f" です）。答えのセルで def {name}(...) を定義してから、このセルを実行してください。")
            if module.startswith("nightwatch"):
                qualname = getattr(answer, "__qualname__", type(answer).__qualname__)
                return CheckReport(exercise, "not_yet", (), f"この答えはライブラリの {module}.{qualname} です。"
                                   f"答えのセルで、自分の {name} を書いてみましょう。")
            return run_guarded(exercise, check.budget, functools.partial(judge, answer, more))

        check.exercise, check.budget = exercise, budget
        return check

    return decorate
