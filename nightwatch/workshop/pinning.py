"""Exercise 2: pin the mission while trimming, and see what pinning alone still cannot keep.

The participant writes ``pin_and_trim(history, keep_last)``: from ``[mission, user, assistant, ...,
user]`` keep the mission first, exactly once, and the newest ``keep_last`` other messages in order.
The check tries it on histories of many lengths and several ``keep_last`` (not only the story's 12),
then puts it inside act 2's agent and plays unseen nights to the stand-in: the mission must head
every request, the request must stay small, and the watchman must still refuse the stage door.

What it then shows, ungraded: the morning report still misses the incidents that were trimmed away.
Pinning saves the root; it does not keep what falls out of the window.
"""

from __future__ import annotations

from nightwatch import before
from nightwatch.lab.compare import guarded_the_door
from nightwatch.nights import MISSION, Night
from nightwatch.standin import StandInModel
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, condensed, describe_error, finish, graded, short
from nightwatch.workshop.stage import NightLog, play_night, reported
from nightwatch.workshop.stage import facts_text, turn_of, unseen_night

EXERCISE = "演習2「銘をピン留めして切り詰める」"
MISSION_MESSAGE = {"role": "system", "content": MISSION}
PLANNED = [
    "銘（務めの system メッセージ）が、いつも先頭にちょうど一つある",
    "銘のほかに、直近 keep_last 件を順番どおり残す（今の問いが最後）",
    "一晩じゅう、リクエストが keep_last + 1 件を超えて膨らまない",
    "楽屋口の試験で夜警のまま（扉を開けず、銘の禁止の務めを引いて断る）",
]
# (exchanges already in the history, keep_last): short histories, the boundary, long ones.
UNIT_CASES = [(1, 12), (5, 12), (6, 12), (20, 12), (20, 7), (3, 4), (30, 15), (9, 5)]
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
    for message in value:
        if not (isinstance(message, dict) and isinstance(message.get("role"), str)
                and isinstance(message.get("content"), str)):
            return f"role と content を持つ dict でない要素があります: {short(repr(message))}"
    return None


def sample_history(exchanges: int) -> list[dict[str, str]]:
    """The mission, ``exchanges`` round trips of patrol talk, and the current question."""
    history = [dict(MISSION_MESSAGE)]
    for number in range(1, exchanges + 1):
        history.append({"role": "user", "content": f"{number}回目の話しかけです。"})
        history.append({"role": "assistant", "content": f"{number}回目、承知いたしました。"})
    history.append({"role": "user", "content": f"{exchanges + 1}回目の話しかけ（今の問い）です。"})
    return history


def mission_problem(messages: list[dict[str, str]]) -> str | None:
    pinned = sum(message == MISSION_MESSAGE for message in messages)
    if pinned == 0:
        first = messages[0] if messages else {"role": "（空）", "content": ""}
        return f"銘がどこにもありません（先頭は {first['role']}『{short(first['content'], 20)}』）"
    if pinned > 1:
        return f"銘が {pinned} 回入っています（二重になっています）"
    if messages[0] != MISSION_MESSAGE:
        return f"銘はありますが先頭ではありません（先頭は {messages[0]['role']}）"
    return None


def unit_checks(trim) -> tuple[list[str], list[str]]:
    """Evidence lines for items 1 and 2 from the synthetic histories."""
    pinned_lines, recent_lines = [], []
    for exchanges, keep_last in UNIT_CASES:
        history = sample_history(exchanges)
        case = f"history {len(history)} 件・keep_last={keep_last}"
        try:
            result = trim([dict(m) for m in history], keep_last)
        except Exception as error:  # noqa: BLE001
            pinned_lines.append(f"✗ {case}: {describe_error(error)}")
            recent_lines.append(pinned_lines[-1])
            continue
        problem = message_list_problem(result)
        if problem:
            pinned_lines.append(f"✗ {case}: {problem}")
            recent_lines.append(pinned_lines[-1])
            continue
        problem = mission_problem(result)
        pinned_lines.append(f"✗ {case}: {problem}" if problem else f"✓ {case}: 先頭に銘が一つ")
        expected = history[1:][-keep_last:]
        kept = [m for m in result if m != MISSION_MESSAGE]
        if kept == expected:
            recent_lines.append(f"✓ {case}: 会話 {len(kept)} 件を順番どおり")
        elif not kept or kept[-1] != history[-1]:
            recent_lines.append(f"✗ {case}: 最後が今の問いではありません")
        elif len(kept) != len(expected):
            recent_lines.append(f"✗ {case}: 会話を {len(kept)} 件残しました（{len(expected)} 件のはず）")
        else:
            recent_lines.append(f"✗ {case}: 件数は {len(kept)} 件で合っていますが、直近の会話と中身か順番が違います")
    return pinned_lines, recent_lines


def run_lines(log: NightLog, keep_last: int) -> tuple[str, str, str]:
    """Evidence for items 1, 3 and 4 from one night played to the pinned agent."""
    where = f"{log.night.name}・keep_last={keep_last}"
    broken = next(((call, mission_problem(call.messages)) for call in log.calls
                   if call.messages and mission_problem(call.messages)), None)
    if broken:
        pinned = f"✗ {where}: {broken[0].turn}回目のリクエストで{broken[1]}"
    else:
        pinned = f"✓ {where}: {len(log.calls)} 回のリクエストすべてで先頭に銘が一つ"

    sizes = [(len(call.messages), call) for call in log.calls if call.messages]
    if sizes:
        count, biggest = max(sizes, key=lambda pair: pair[0])
        tokens = f"・{biggest.prompt_tokens:,} トークン" if biggest.prompt_tokens else ""
        within = count <= keep_last + 1 and log.survived
        size = f"{'✓' if within else '✗'} {where}: いちばん大きいリクエストは {biggest.turn}回目の {count} 件{tokens}"
        size += f"（{keep_last + 1} 件まで）"
    else:
        size = f"✗ {where}: リクエストを一度も送れませんでした"
    if log.failure is not None:
        size += f"。{log.failure.turn}回目で、{log.failure.error}"
        if not sizes:
            pinned = f"✗ {where}: {log.failure.turn}回目で、{log.failure.error}"

    test = log.at_clock(log.night.watchman_test_clock or "")
    if test is None or test.reply is None:
        watchman = f"✗ {where}: {log.night.watchman_test_clock} の楽屋口の試験まで届きませんでした"
    else:
        ok = test.recorded is not None and guarded_the_door(test.recorded)
        watchman = f"{'✓' if ok else '✗'} {where}: {test.clock} の楽屋口で『{short(test.reply, 36)}』"
    return pinned, size, watchman


def lost_incidents_note(log: NightLog, keep_last: int) -> str:
    night: Night = log.night
    if not log.survived:
        return f"{night.name}: 朝まで届かなかったので、朝の報告はありません。"
    found, missing = reported(log)
    note = f"{night.name}・keep_last={keep_last}: 朝の報告に出来事 {len(found)}/{len(night.incidents)}。"
    for incident in night.incidents:
        if incident.label in missing:
            note += (f"『{facts_text(incident)}』（{incident.label}）は {turn_of(night, incident)}回目の"
                     "往復で、06:00 のリクエストには残っていません。")
    if missing:
        note += "銘は守れても、直近の外へ切り落とした夜は戻りません。それが第3幕の束ねの出番です。"
    return note


@exercise_check(
    EXERCISE, "pin_and_trim", lambda: (sample_history(8), 12), PLANNED,
    "history[0] の銘を必ず先頭に残し、残りから直近 keep_last 件を取り出したリストを return してください。",
)
def check_pinned_trim(pin_and_trim, harness) -> CheckReport:
    """Check ``pin_and_trim(history, keep_last) -> list[dict]``."""
    unit_pinned, unit_recent = unit_checks(pin_and_trim)
    pinned_lines, size_lines, watchman_lines, notes = [], [], [], []
    for seed, kinds, errands, keep_last in RUNS:
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands)
        standin = StandInModel()
        agent = PinnedTrimAgent("ヴェスパー", MISSION, pin_and_trim, keep_last, client=standin.client())
        log = play_night(agent, night, standin)
        pinned, size, watchman = run_lines(log, keep_last)
        pinned_lines.append(pinned)
        size_lines.append(size)
        watchman_lines.append(watchman)
        notes.append(lost_incidents_note(log, keep_last))

    pinned_lines = list(condensed(unit_pinned, "いろいろな長さの history で、先頭に銘が一つ")) + pinned_lines
    evidence = [pinned_lines, condensed(unit_recent, "いろいろな長さの history と keep_last で、直近の会話を順番どおり"),
                size_lines, watchman_lines]
    hints = [
        "history[0] が銘です。短い history では history[-keep_last:] に銘そのものが"
        "含まれることも思い出してください。銘は「それ以外」と分けて扱うと二重になりません。",
        "銘を除いた history[1:] から、後ろの keep_last 件を取りましょう。12 を直接書かず、"
        "引数の keep_last を使ってください。",
        "銘を守るために切り詰めをやめると、第1幕と同じくリクエストが膨らみ続けます。",
        "務めは system メッセージからしか読まれません。楽屋口の試験のリクエストに銘が入っているか確かめましょう。",
    ]
    return finish(EXERCISE, graded(PLANNED, evidence, hints), notes)
