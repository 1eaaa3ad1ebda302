"""Exercise 2: pin the mission while trimming, and see what pinning alone still cannot keep.

The participant writes ``pin_and_trim(history, keep_last)``: from ``[mission, user, assistant, ...,
user]`` keep the mission first, exactly once, and the newest ``keep_last`` other messages in order.
The check tries it on histories of many lengths and several ``keep_last``, judging the result by its
properties (the mission first and once; the newest messages in order, as many as asked, the question
last), never by building the expected list itself; then it puts it inside act
2's agent on unseen nights: the mission must head every request, the request must stay small, and
the watchman must still refuse the stage door (read from the stand-in's record). Ungraded, it shows
that the morning report still misses what was trimmed away: pinning keeps the root, not the night.
"""

from __future__ import annotations

from nightwatch import before
from nightwatch.lab.compare import guarded_the_door
from nightwatch.nights import MISSION
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, condensed, mark, short, verdict
from nightwatch.workshop.stage import morning_line, perform, reply_shown, unseen_night

EXERCISE = "演習2「銘をピン留めして古いほうから切る」"
MISSION_MESSAGE = {"role": "system", "content": MISSION}
ITEMS = [  # (what is checked, the hint when it fails)
    ("銘（務めの system メッセージ）が、いつも先頭にちょうど一つある",
     "銘が欠けているか、二重になっています。history[0] が銘です。根拠の行の history の件数を見てください。"
     "短い history では、後ろから取った範囲に銘そのものが入ることがあります。"),
    ("銘のほかに、直近 keep_last 件を順番どおり残す（今の問いが最後）",
     "残した会話の件数か順番が、頼まれたものと違います。根拠の行で、keep_last と残した件数を見比べましょう。"
     "数えるのは銘を除いた会話だけで、件数を決めるのは引数の keep_last です（12 を直接書いていませんか）。"),
    ("一晩じゅう、リクエストが keep_last + 1 件を超えて膨らまない",
     "銘を守るために切るのをやめると、第1幕と同じくリクエストが膨らみ続けます。"),
    ("楽屋口の試験で夜警のまま（扉を開けず、銘の禁止の務めを引いて断る）",
     "務めは system メッセージからしか読まれません。楽屋口の試験のリクエストに銘が入っているか確かめましょう。"),
]
# (exchanges so far, keep_last)
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
    bad = next((m for m in value if not (isinstance(m, dict) and isinstance(m.get("role"), str)
                                         and isinstance(m.get("content"), str))), None)
    return None if bad is None else f"role と content を持つ dict でない要素があります: {short(repr(bad))}"


def mission_problem(messages: list[dict[str, str]]) -> str | None:
    """What is wrong with the mission in a request: absent, twice, or not first; None if pinned."""
    pinned = sum(message == MISSION_MESSAGE for message in messages)
    if pinned == 0:
        first = messages[0] if messages else {"role": "（空）", "content": ""}
        return f"銘がどこにもありません（先頭は {first['role']}『{short(first['content'], 20)}』）"
    if pinned > 1:
        return f"銘が {pinned} 回入っています（二重になっています）"
    return None if messages[0] == MISSION_MESSAGE else f"銘はありますが先頭ではありません（先頭は {messages[0]['role']}）"


def unit_lines(trim, exchanges: int, keep_last: int) -> tuple[str, str]:
    """Evidence for items 1 and 2 from one history of ``exchanges`` round trips and the question."""
    talk = [{"role": role, "content": f"{n}回目{text}"} for n in range(1, exchanges + 1)
            for role, text in (("user", "の話しかけです。"), ("assistant", "、承知いたしました。"))]
    history = [MISSION_MESSAGE, *talk, {"role": "user", "content": f"{exchanges + 1}回目の話しかけ（今の問い）です。"}]
    case = f"history {len(history)} 件・keep_last={keep_last}"
    try:
        result = trim([dict(m) for m in history], keep_last)
        problem = message_list_problem(result)
    except ParticipantError as error:
        problem = str(error)
    if problem:
        return (mark(False, case, problem),) * 2
    kept, conversation = [m for m in result if m != MISSION_MESSAGE], len(history) - 1
    wanted = min(keep_last, conversation)
    newest = len(kept) <= conversation and all(kept[-back] == history[-back] for back in range(1, len(kept) + 1))
    recent = ("最後が今の問いではありません" if not kept or kept[-1] != history[-1] else
              f"会話を {len(kept)} 件残しました（{wanted} 件のはず）" if len(kept) != wanted else
              f"件数は {len(kept)} 件で合っていますが、直近の会話と中身か順番が違います")
    ok = newest and len(kept) == wanted
    return (mark(not mission_problem(result), case, mission_problem(result) or "先頭に銘が一つ"),
            mark(ok, case, f"会話 {len(kept)} 件を順番どおり" if ok else recent))


def night_lines(trim, seed: int, kinds: tuple[str, ...], errands: int, keep_last: int) -> tuple[str, ...]:
    """Evidence for items 1, 3 and 4 from one night played to the pinned agent, and the ungraded note:
    the morning report still misses what was trimmed away."""
    night = unseen_night(seed, kinds=kinds, errands_per_hour=errands)
    log = perform(night, lambda client: PinnedTrimAgent("ヴェスパー", MISSION, trim, keep_last, client=client))
    where = f"{night.name}・keep_last={keep_last}"
    sent = [call for call in log.calls if call.messages]
    if not sent:
        return (mark(False, where, log.stop),) * 3 + (f"{where}: {log.stop}", ())
    broken = next((call for call in sent if mission_problem(call.messages)), None)
    pinned = mark(broken is None, where, f"{broken.turn}回目のリクエストで{mission_problem(broken.messages)}" if broken
                  else f"{len(log.calls)} 回のリクエストすべてで先頭に銘が一つ")
    biggest = max(sent, key=lambda call: len(call.messages))
    size = mark(len(biggest.messages) <= keep_last + 1 and log.survived, where,
                f"いちばん大きいリクエストは {biggest.turn}回目の {len(biggest.messages)} 件・"
                f"{biggest.prompt_tokens:,} トークン（{keep_last + 1} 件まで）"
                + (f"。{log.stop}" if log.failure else ""))
    test = log.at_clock(night.watchman_test_clock)
    reached = test is not None and test.reply is not None
    watchman = mark(reached and guarded_the_door(test.recorded), where,
                    f"{test.clock} の楽屋口で『{short(test.reply, 36)}』" if reached
                    else f"{night.watchman_test_clock} の楽屋口の試験まで届きませんでした")
    morning = morning_line(log, where)
    lost = "。銘は守れても、直近の外へ切り落とした夜は戻りません。それが第3幕の束ねの出番です。"
    door = reply_shown(test if reached else None, f"{where}: {night.watchman_test_clock} の楽屋口での返答（代役の返答そのまま）")
    kept = broken is None  # only a night that kept its mission can be told what pinning alone does not keep
    return pinned, size, watchman, morning[2:] + (lost if kept and log.survived and morning.startswith("✗") else ""), door


@exercise_check(
    EXERCISE, "pin_and_trim", ITEMS,
    "history[0] の銘を必ず先頭に残し、残りから直近 keep_last 件を取り出したリストを return してください。",
)
def check_pinned_trim(pin_and_trim) -> CheckReport:
    """Check ``pin_and_trim(history, keep_last) -> list[dict]``."""
    unit_pinned, unit_recent = zip(*(unit_lines(pin_and_trim, *case) for case in UNIT_CASES))
    pinned, size, watchman, notes, doors = zip(*(night_lines(pin_and_trim, *run) for run in RUNS))
    evidence = [[*condensed(unit_pinned, "いろいろな長さの history で、先頭に銘が一つ"), *pinned],
                condensed(unit_recent, "いろいろな長さの history と keep_last で、直近の会話を順番どおり"), size, watchman]
    return verdict(EXERCISE, ITEMS, evidence, notes, judged=[(), (), (), sum(doors, ())])
