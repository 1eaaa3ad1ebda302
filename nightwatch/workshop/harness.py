"""The one harness every workshop check runs the participant's code through.

A check cell must always come back with a report, however the answer misbehaves, and within a
stated time. So the whole check runs in a child process (``os.fork``: the child has the notebook's
answer and everything it keeps between calls, and nothing has to be pickled but the report), and
the notebook's own process only watches it:

- every call into the participant's code goes through ``Harness.call``, which tells the watcher the
  call's label as it starts and ends. A call that runs longer than the exercise's ``Budget.per_call``
  is stopped with SIGKILL, which no ``try/except BaseException`` in the answer can swallow, and the
  report names the call. The whole check is stopped the same way after ``Budget.per_check``;
- ``KeyboardInterrupt`` and ``SystemExit`` (``exit()``, ``sys.exit()``) from the answer become
  evidence; a stopped answer ends the check at once (no more nights are played once it has its
  verdict);
- what the answer prints is kept up to a cap, and the start of it shown in the report's notes;
- a part of ``nightwatch`` replaced after import (monkeypatching the checker) fails the check, named;
- where there is no ``os.fork`` (Windows), the check runs in the notebook's process without a time
  limit, and the report says so.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import inspect
import io
import multiprocessing
import os
import signal
import sys
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nightwatch.workshop.report import CheckItem, CheckReport, describe_error, finish, short

PRINT_CAP = 2000  # characters of the answer's printing that are kept
PRINT_SHOWN = 300  # characters of it that the report shows


@dataclass(frozen=True)
class Budget:
    """How long one call into the answer, and one whole check, may take (seconds)."""

    per_call: float = 5.0
    per_check: float = 45.0


class ParticipantError(Exception):
    """A call into the participant's code that did not give a usable result; the message says why."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class Stopped(BaseException):
    """The answer interrupted or exited: the check has its verdict and plays nothing more."""

    def __init__(self, line: str, hint: str) -> None:
        super().__init__(line)
        self.line, self.hint = line, hint


class CappedOutput(io.TextIOBase):
    """Stands in for stdout/stderr during a call: keeps the first ``cap`` characters, counts the rest."""

    def __init__(self, cap: int = PRINT_CAP) -> None:
        self.cap, self.kept, self.total = cap, [], 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.kept.append(text[: max(self.cap - self.total, 0)])
        self.total += len(text)
        return len(text)


class Harness:
    """Calls the participant's code for one check, telling the watcher which call is running."""

    def __init__(self, send: Callable[[tuple], None] | None = None) -> None:
        self.output = CappedOutput()
        self.send = send or (lambda message: None)

    def call(self, function: Callable[..., Any], *args: Any, label: str) -> Any:
        """``function(*args)``; any failure becomes a ``ParticipantError`` that names ``label``."""
        self.send(("call", label))
        try:
            with contextlib.redirect_stdout(self.output), contextlib.redirect_stderr(self.output):
                return function(*args)
        except KeyboardInterrupt:
            raise Stopped(f"{label} の途中で KeyboardInterrupt が起きました",
                          "答えの中で KeyboardInterrupt を投げていないか確かめましょう。") from None
        except SystemExit as error:
            raise Stopped(f"{label} が exit()／sys.exit() を呼びました（code={error.code!r}）",
                          "関数の中では exit せず、return で値を返してください。") from None
        except Exception as error:  # noqa: BLE001 - the answer may raise anything
            raise ParticipantError(f"{label} で例外が出ました: {describe_error(error)}", error) from None
        finally:
            self.send(("done", label))

    def guard(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        """``function`` wrapped so that every call goes through ``call``, labelled with its arguments."""

        @functools.wraps(function)
        def guarded(*args: Any) -> Any:
            shown = ", ".join(short(repr(arg), 24) for arg in args)
            return self.call(function, *args, label=f"{name}({shown})")

        return guarded

    def notes(self) -> list[str]:
        if not self.output.total:
            return []
        shown = short("".join(self.output.kept), PRINT_SHOWN)
        return [f"答えの print の出力（{self.output.total:,} 文字。最初の {min(self.output.total, PRINT_SHOWN)}"
                f" 文字だけ表示）: {shown}"]


RUNAWAY_HINT = ("終わらないループになっていませんか。while の条件がいつか偽になるか、try/except で"
                "止める合図まで握りつぶしていないか確かめましょう。")
SLOW_HINT = "呼び出しの一つひとつが遅すぎます。同じ計算を何度も繰り返していないか、time.sleep が残っていないか確かめましょう。"


def stopped_report(exercise: str, line: str, hint: str, notes: Sequence[str] = ()) -> CheckReport:
    item = CheckItem("答えが時間内に終わり、チェックを最後まで続けられる", False, (f"✗ {line}",), hint)
    return CheckReport(exercise, "failed", (item,), f"⏱ {line}。そこでチェックを終えました。", tuple(notes))


def run_guarded(exercise: str, budget: Budget, judge: Callable[[Harness], CheckReport]) -> CheckReport:
    """``judge(harness)`` in a child process, watched: killed when a call or the check overruns."""
    if not hasattr(os, "fork"):
        report = judge(Harness())
        note = "この環境では時間制限が使えないため、制限なしで実行しました。"
        return CheckReport(exercise, report.status, report.items, report.message, (*report.notes, note))
    reader, writer = multiprocessing.Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:  # the child: judge, send the report, and leave without running the notebook's exit hooks
        try:
            reader.close()
            writer.send(("report", judge(Harness(writer.send))))
        finally:
            os._exit(0)
    writer.close()
    started = time.monotonic()
    label, since = None, started
    try:
        while True:
            deadline = started + budget.per_check if label is None else min(started + budget.per_check,
                                                                              since + budget.per_call)
            if not reader.poll(max(deadline - time.monotonic(), 0)):
                if label is not None and since + budget.per_call <= time.monotonic():
                    line = f"{label} が {budget.per_call:g} 秒たっても終わらなかったので止めました"
                    return stopped_report(exercise, line, RUNAWAY_HINT)
                running = label or "チェック自身の処理"
                line = f"チェック全体が {budget.per_check:g} 秒を超えたので止めました（そのとき動いていたのは {running}）"
                return stopped_report(exercise, line, SLOW_HINT)
            try:
                kind, value = reader.recv()
            except EOFError:
                return stopped_report(exercise, f"チェックが報告を返さずに終わりました（{label or '答えの外'}）",
                                      "答えの中で os._exit やプロセスを止める呼び出しをしていないか確かめましょう。")
            if kind == "report":
                return value
            label, since = (value, time.monotonic()) if kind == "call" else (None, since)
    finally:
        reader.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


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
    budget: Budget = Budget(),
) -> Callable[[Callable[..., CheckReport]], Callable[..., CheckReport]]:
    """Turn ``body(answer, harness, *more)`` into a check cell's function ``check(answer, *more)``.

    Before the body runs: a replaced checker part fails the check; a non-function or the library's
    own function is "まだです"; so is a placeholder that still raises NotImplementedError on
    ``probe()``. The body receives the answer already guarded and runs under ``check.budget``
    (read at each call); it never needs a try/except of its own. Whatever happens, a report comes back."""

    def decorate(body: Callable[..., CheckReport]) -> Callable[..., CheckReport]:
        def judge(answer: Any, more: tuple, harness: Harness) -> CheckReport:
            guarded = harness.guard(answer, name)
            try:
                try:
                    guarded(*probe())
                except ParticipantError as error:
                    if isinstance(error.cause, NotImplementedError):
                        return not_yet(exercise, name, planned, what_to_do)
                report = body(guarded, harness, *more)
            except Stopped as stop:
                return stopped_report(exercise, stop.line, stop.hint, harness.notes())
            except Exception as error:  # noqa: BLE001 - the check cell must always show a report
                item = CheckItem("チェックを最後まで実行する", False,
                                 (f"途中で思いがけないエラーが起きました: {describe_error(error)}",),
                                 "答えのコードが例外を投げていないか確かめてください。直らなければ進行役に声をかけてください。")
                report = CheckReport(exercise, "failed", (item,))
            message = "\n".join(part for part in (answer_source(answer, solution), report.message) if part)
            return CheckReport(exercise, report.status, report.items, message, (*report.notes, *harness.notes()))

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
            module = getattr(answer, "__module__", None) or type(answer).__module__
            if module.startswith("nightwatch"):
                qualname = getattr(answer, "__qualname__", type(answer).__qualname__)
                return CheckReport(exercise, "not_yet", (), f"この答えはライブラリの {module}.{qualname} です。"
                                   f"答えのセルで、自分の {name} を書いてみましょう。")
            return run_guarded(exercise, check.budget, functools.partial(judge, answer, more))

        check.exercise, check.budget = exercise, budget
        return check

    return decorate


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


__all__ = ["Budget", "Harness", "ParticipantError", "exercise_check", "finish", "graded", "replaced_parts", "fingerprint"]
