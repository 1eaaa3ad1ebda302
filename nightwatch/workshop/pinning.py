"""Exercise 2: pin the mission while trimming, and see what pinning alone still cannot keep.

The participant writes ``pin_and_trim(history, keep_last)``: from ``[mission, user, assistant, ...,
user]`` keep the mission first, exactly once, and the newest ``keep_last`` other messages in order.
The check tries it on histories of many lengths and several ``keep_last``, then puts it inside act
2's agent on unseen nights: the mission must head every request, the request must stay small, and
the watchman must still refuse the stage door (read from the stand-in's record). Ungraded, it shows
that the morning report still misses what was trimmed away: pinning keeps the root, not the night.
"""

from __future__ import annotations

from nightwatch import before
from nightwatch.lab.compare import guarded_the_door
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, condensed, describe_error, finish, graded, short
from nightwatch.workshop.stage import NightLog, facts_text, play_night, reported, turn_of, unseen_night

EXERCISE = "演習2「銘をピン留めして切り詰める」"
MISSION_MESSAGE = {"role": "system", "content": MISSION}
PLANNED = [
    "銘（務めの system メッセージ）が、いつも先頭にちょうど一つある",
    "銘のほかに、直近 keep_last 件を順番どおり残す（今の問いが最後）",
    "一晩じゅう、リクエストが keep_last + 1 件を超えて膨らまない",
    "楽屋口の試験で夜警のまま（扉を開けず、銘の禁止の務めを引いて断る）",
]
HINTS = [
    "history[0] が銘です。短い history では history[-keep_last:] に銘そのものが含まれることも思い出してください。"
    "銘は「それ以外」と分けて扱うと二重になりません。",
    "銘を除いた history[1:] から、後ろの keep_last 件を取りましょう。12 を直接書かず、引数の keep_last を使ってください。",
    "銘を守るために切り詰めをやめると、第1幕と同じくリクエストが膨らみ続けます。",
    "務めは system メッセージからしか読まれません。楽屋口の試験のリクエストに銘が入っているか確かめましょう。",
]
UNIT_CASES = [(1, 12), (5, 12), (6, 12), (20, 12), (20, 7), (3, 4), (30, 15), (9, 5)]  # (exchanges so far, keep_last)
RUNS = [(21, ("delivery", "shutter", "drunk"), 2, 12), (34, ("delivery", "drunk"), 3, 8)]


class PinnedTrimAgent(before.NightWatchAgent):
    """Act 2's agent with ``trim(history, keep_last)`` in place of ``history[-keep_last:]``."""

    def __init__(self, name: str, mission: str, trim, keep_last: int = 12, *, client=None) -> None:
        super().__init__(name, mission, client=client)
        self.trim = trim
        self.keep_last = keep_last

    def run(self, user_input: str) -> str:
        self.history.append({"role": "user", "content": user_input})
        trimmed = self.trim([dict(m) for m in self.history], self.keep_last)
        problem = message_list_problem(trimmed)
        if problem:
            raise ParticipantError(f"pin_and_trim の返り値が使えません: {problem}")
        self.history = [dict(m) for m in trimmed]
        answer = self._call_model(self.history)
        self.history.append({"role": "assistant", "content": answer})
        return answer


def message_list_problem(value) -> str | None:
    """Why ``value`` cannot be sent as chat messages, or None if it can."""
    if not isinstance(value, list):
        return f"list ではなく {type(value).__name__} です（return を書き忘れていませんか）"
    bad = next((m for m in value if not (isinstance(m, dict) and isinstance(m.get("role"), str)
                                         and isinstance(m.get("content"), str))), None)
    return None if bad is None else f"role と content を持つ dict でない要素があります: {short(repr(bad))}"


def sample_history(exchanges: int) -> list[dict[str, str]]:
    """The mission, ``exchanges`` round trips of patrol talk, and the current question."""
    talk = [{"role": role, "content": f"{n}回目{text}"} for n in range(1, exchanges + 1)
            for role, text in (("user", "の話しかけです。"), ("assistant", "、承知いたしました。"))]
    return [dict(MISSION_MESSAGE), *talk, {"role": "user", "content": f"{exchanges + 1}回目の話しかけ（今の問い）です。"}]


def mission_problem(messages: list[dict[str, str]]) -> str | None:
    pinned = sum(message == MISSION_MESSAGE for message in messages)
    if pinned == 0:
        first = messages[0] if messages else {"role": "（空）", "content": ""}
        return f"銘がどこにもありません（先頭は {first['role']}『{short(first['content'], 20)}』）"
    if pinned > 1:
        return f"銘が {pinned} 回入っています（二重になっています）"
    return None if messages[0] == MISSION_MESSAGE else f"銘はありますが先頭ではありません（先頭は {messages[0]['role']}）"


def unit_checks(trim) -> tuple[list[str], list[str]]:
    """Evidence lines for items 1 and 2 from the synthetic histories."""
    pinned_lines, recent_lines = [], []
    for exchanges, keep_last in UNIT_CASES:
        history = sample_history(exchanges)
        case = f"history {len(history)} 件・keep_last={keep_last}"
        try:
            result = trim([dict(m) for m in history], keep_last)
            problem = message_list_problem(result)
        except Exception as error:  # noqa: BLE001
            problem = describe_error(error)
        if problem:
            pinned_lines.append(f"✗ {case}: {problem}")
            recent_lines.append(pinned_lines[-1])
            continue
        problem = mission_problem(result)
        pinned_lines.append(f"✗ {case}: {problem}" if problem else f"✓ {case}: 先頭に銘が一つ")
        expected, kept = history[1:][-keep_last:], [m for m in result if m != MISSION_MESSAGE]
        recent_lines.append(
            f"✓ {case}: 会話 {len(kept)} 件を順番どおり" if kept == expected else
            f"✗ {case}: 最後が今の問いではありません" if not kept or kept[-1] != history[-1] else
            f"✗ {case}: 会話を {len(kept)} 件残しました（{len(expected)} 件のはず）" if len(kept) != len(expected) else
            f"✗ {case}: 件数は {len(kept)} 件で合っていますが、直近の会話と中身か順番が違います")
    return pinned_lines, recent_lines


def run_lines(log: NightLog, keep_last: int) -> tuple[str, str, str, str]:
    """Evidence for items 1, 3 and 4 from one night played to the pinned agent, and the ungraded note."""
    where, night = f"{log.night.name}・keep_last={keep_last}", log.night
    broken = next(((call, mission_problem(call.messages)) for call in log.calls
                   if call.messages and mission_problem(call.messages)), None)
    pinned = (f"✗ {where}: {broken[0].turn}回目のリクエストで{broken[1]}" if broken
              else f"✓ {where}: {len(log.calls)} 回のリクエストすべてで先頭に銘が一つ")
    sent = [call for call in log.calls if call.messages]
    if sent:
        biggest = max(sent, key=lambda call: len(call.messages))
        tokens = f"・{biggest.prompt_tokens:,} トークン" if biggest.prompt_tokens else ""
        within = len(biggest.messages) <= keep_last + 1 and log.survived
        size = (f"{'✓' if within else '✗'} {where}: いちばん大きいリクエストは {biggest.turn}回目の {len(biggest.messages)} 件"
                f"{tokens}（{keep_last + 1} 件まで）")
    else:
        size = f"✗ {where}: リクエストを一度も送れませんでした"
    if log.failure is not None:
        size += f"。{log.failure.turn}回目で、{log.failure.error}"
        pinned = pinned if sent else f"✗ {where}: {log.failure.turn}回目で、{log.failure.error}"
    test = log.at_clock(night.watchman_test_clock or "")
    if test is None or test.reply is None:
        watchman = f"✗ {where}: {night.watchman_test_clock} の楽屋口の試験まで届きませんでした"
    else:
        ok = test.recorded is not None and guarded_the_door(test.recorded)
        watchman = f"{'✓' if ok else '✗'} {where}: {test.clock} の楽屋口で『{short(test.reply, 36)}』"
    if not log.survived:
        return pinned, size, watchman, f"{night.name}: 朝まで届かなかったので、朝の報告はありません。"
    found, missing = reported(log)
    note = f"{where}: 朝の報告に出来事 {len(found)}/{len(night.incidents)}。" + "".join(
        f"『{facts_text(i)}』（{i.label}）は {turn_of(night, i)}回目の往復で、06:00 のリクエストには残っていません。"
        for i in night.incidents if i.label in missing)
    return pinned, size, watchman, note + ("銘は守れても、直近の外へ切り落とした夜は戻りません。それが第3幕の束ねの出番です。" if missing else "")


@exercise_check(
    EXERCISE, "pin_and_trim", lambda: (sample_history(8), 12), PLANNED,
    "history[0] の銘を必ず先頭に残し、残りから直近 keep_last 件を取り出したリストを return してください。",
)
def check_pinned_trim(pin_and_trim, harness) -> CheckReport:
    """Check ``pin_and_trim(history, keep_last) -> list[dict]``."""
    unit_pinned, unit_recent = unit_checks(pin_and_trim)
    runs = []
    for seed, kinds, errands, keep_last in RUNS:
        standin = StandInModel()
        agent = PinnedTrimAgent("ヴェスパー", MISSION, pin_and_trim, keep_last, client=standin.client())
        runs.append(run_lines(play_night(agent, unseen_night(seed, kinds=kinds, errands_per_hour=errands), standin), keep_last))
    pinned, size, watchman, notes = (list(lines) for lines in zip(*runs))
    evidence = [[*condensed(unit_pinned, "いろいろな長さの history で、先頭に銘が一つ"), *pinned],
                condensed(unit_recent, "いろいろな長さの history と keep_last で、直近の会話を順番どおり"), size, watchman]
    return finish(EXERCISE, graded(PLANNED, evidence, HINTS), notes)
