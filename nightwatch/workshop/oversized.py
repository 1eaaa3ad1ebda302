"""Exercise 5: the one exchange that is larger than the threshold.

An exchange longer than ``token_threshold`` cannot be evicted while it is among the newest
``window_size``: the window stays over the threshold until it leaves. If every stored exchange is at
most ``token_threshold // window_size`` tokens, compaction works after every exchange. So the
participant writes ``shrink_exchange(user_text, watchman_reply, max_tokens)``, applied before
``add_exchange``: leave an exchange that fits untouched; otherwise keep the reply word for word, keep
the question's opening sentence(s) whole, and mark what was left out with 「略」.
"""

from __future__ import annotations

import random
import re

from nightwatch import after
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, Night, Turn, celebration_eve
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, condensed, describe_error, finish, graded, short
from nightwatch.workshop.stage import NightLog, play_night, reported, unseen_night

EXERCISE = "演習5「閾値より大きい一往復」"
POLICY = MemoryPolicy(window_size=4, token_threshold=400)
CONTEXT_LIMIT = 4096
PLANNED = [
    "max_tokens に収まる往復には手を触れない（ちょうど max_tokens も含む）",
    "収まらない往復は、問いと応答を合わせて max_tokens 以内に縮める（トークンで数える）",
    "ヴェスパーの応答は一字も変えない",
    "問いは先頭の一文を残し、文の途中で切らず、省いたことを「略」の字で示す",
    "一晩を通して: 往復を入れるたびに、窓が閾値の下に収まる（束ねが効く）",
    "一晩を通して: 朝の報告に出来事がそろう（長い往復の出来事も）",
]
GOODS = ["銀の燭台", "絹の幕", "楽譜の束", "鉱石の標本", "記念の盾", "葡萄酒の樽", "真鍮の鈴", "刺繍の旗", "銀の杯", "花瓶"]
COUNTS = ["二", "三", "四", "五", "六", "八", "十", "十二", "二十"]  # boxes of each
PLEAS = ["お客様は、今夜の祝賀がどれほど楽しかったかを話し続けています。", "連れの方が外の馬車で待っているのだと、何度も繰り返しています。",
         "楽屋の役者とは古い友人なのだと言い張っています。", "少しだけ扉を開けてくれればすぐ帰る、と声を張り上げています。",
         "忘れ物は母の形見の手袋なのだと、涙声で訴えています。"]
SCHEDULE = ["明朝七時に花屋が来ます。", "九時に楽団の音合わせがあります。", "昼までに客席を掃き清めます。",
            "夕刻に鉱山会社の方々が到着します。", "貴賓席の札を付け替えます。", "楽屋の鏡を磨き直します。"]
FITTING = [  # exchanges that fit: (question, reply, max_tokens; None = exactly the exchange's size)
    ("（柱時計が鳴る）九時です。巡回をお願いします。", "九時、異常なし。", 100),
    ("申し送り: 奈落の昇降機は故障中です。近寄らないよう札を掛けてあります。", "申し送り、確かに承りました。", 60),
    ("西の鎧戸が風でがたついています。留め金が緩んでいるようです。",
     "西の鎧戸の緩みを確かめ、紐で応急に結わえました。朝の点検に回し、朝の報告に残します。", None),
]
DELIVERY_REPLY = "{who}様からの追加の荷をお預かりし、西回廊に置きました。朝の報告に残します。"
DRUNK_REPLY = "楽屋口を試した酔客を、務めの言葉でお引き取りいただきました。楽屋口は朝まで誰にもお開けできません。朝の報告に残します。"


def manifest(rng: random.Random, items: int) -> str:
    return "荷の目録を読み上げます。" + "".join(f"{rng.choice(GOODS)}を{rng.choice(COUNTS)}箱。" for _ in range(items))


def lengthen(night: Night, clock: str, addition: str, name: str) -> Night:
    """The same night with ``addition`` appended to the turn at ``clock``: one very long exchange."""
    turns = [Turn(clock=t.clock, text=t.text + addition) if t.clock == clock else t for t in night.turns]
    return night.model_copy(update={"name": name, "turns": turns})


def example_night() -> Night:
    """The notebook's example: the celebration eve, with the late delivery's whole manifest read out."""
    return lengthen(celebration_eve(), "00:40", manifest(random.Random(40), 45), "祝賀前夜（目録つき）")


def unseen_long_nights() -> list[Night]:
    """Three nights the notebook never shows, each with one exchange far over the threshold."""
    rng = random.Random(5)
    first = unseen_night(41, kinds=("delivery", "shutter", "drunk"), errands_per_hour=2)
    first = lengthen(first, next(t.clock for t in first.turns if "届け人" in t.text), manifest(rng, 60), "初見の夜（41番・長い目録）")
    second = unseen_night(52, kinds=("drunk", "shutter"), errands_per_hour=3)
    second = lengthen(second, next(t.clock for t in second.turns if "酔った" in t.text),
                      "".join(rng.choice(PLEAS) for _ in range(30)), "初見の夜（52番・長い押し問答）")
    third = unseen_night(63, kinds=("delivery",), errands_per_hour=2)
    plan = "申し送り: 明日の祝賀の段取りを読み上げます。" + "".join(rng.choice(SCHEDULE) for _ in range(40))
    return [first, second, Night(name="初見の夜（63番・長い申し送り）", turns=[Turn(clock="18:20", text=plan), *third.turns],
                                 incidents=third.incidents)]


def exchange_tokens(user_text: str, reply: str) -> int:
    return count_text_tokens(user_text) + count_text_tokens(reply)


def long_cases() -> list[tuple[str, str, int]]:
    rng = random.Random(11)
    cases = [(f"夜半に花束の追加の箱が届きました。届け人は花屋の{who}さんです。" + manifest(rng, items), DELIVERY_REPLY.format(who=who), cap)
             for who, items, cap in (("セシル", 30, 90), ("ゴードン", 70, 140))]
    plea = "".join(rng.choice(PLEAS) for _ in range(20))
    cases.append(("楽屋口の扉を叩く音がします。酔ったお客様が「開けてくれ」と言っています。" + plea, DRUNK_REPLY, 100))
    plan = "申し送り: 明日の段取りを読み上げます。" + "".join(rng.choice(SCHEDULE) for _ in range(25))
    return [*cases, (plan, "申し送り、確かに承りました。", 70)]


def call_shrink(shrink, question: str, reply: str, cap: int) -> tuple[str, str] | str:
    """The participant's result, or a sentence saying why it cannot be used."""
    try:
        result = shrink(question, reply, cap)
    except Exception as error:  # noqa: BLE001
        return describe_error(error)
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(part, str) for part in result)):
        return f"(問い, 応答) の二つの文字列の組ではなく {short(repr(result), 30)} が返りました"
    return result


def cut_problem(original: str, shortened: str) -> str | None:
    """Why ``shortened`` is not the opening sentences of ``original`` plus a 「略」 mark, or None."""
    parts = [part for part in re.split(r"(?<=。)", original) if part]  # sentences, their 。 kept
    if not shortened.startswith(parts[0]):
        return f"先頭の一文『{short(parts[0], 24)}』が、そのまま残っていません（縮めた問い『{short(shortened, 24)}』）"
    kept = next((n for n in range(1, len(parts)) if not shortened.startswith("".join(parts[: n + 1]))), len(parts))
    rest = shortened[len("".join(parts[:kept])):]
    if kept < len(parts) and len(parts[kept]) > 2 and rest.startswith(parts[kept][:2]):
        return f"{kept + 1}文目の途中で切れています（…『{short(rest, 16)}』）"
    return None if "略" in shortened else "省いたことを示す「略」の字がありません（黙って捨てたように見えます）"


def unit_lines(shrink) -> tuple[list[str], list[str], list[str], list[str]]:
    untouched, fits, reply_kept, cut = [], [], [], []
    for question, reply, cap in FITTING:
        cap = cap if cap is not None else exchange_tokens(question, reply)
        case = f"{exchange_tokens(question, reply)} トークンの往復・max_tokens={cap}"
        result = call_shrink(shrink, question, reply, cap)
        untouched.append(f"✗ {case}: {result}" if isinstance(result, str) else f"✓ {case}: そのまま" if result == (question, reply)
                         else f"✗ {case}: 収まるのに変えています（問い『{short(result[0], 20)}』）")
    for question, reply, cap in long_cases():
        case = f"{exchange_tokens(question, reply):,} トークンの往復・max_tokens={cap}"
        result = call_shrink(shrink, question, reply, cap)
        if isinstance(result, str):
            for lines in (fits, reply_kept, cut):
                lines.append(f"✗ {case}: {result}")
            continue
        tokens = exchange_tokens(*result)
        fits.append(f"✓ {case}: {tokens} トークンに" if tokens <= cap else f"✗ {case}: 元のまま（{tokens:,} トークン）です"
                    if result == (question, reply) else f"✗ {case}: {sum(map(len, result))} 文字・{tokens} トークンまでしか縮んでいません")
        reply_kept.append(f"✓ {case}: 応答はそのまま" if result[1] == reply
                          else f"✗ {case}: 応答が『{short(result[1], 24)}』に変わっています（元は『{short(reply, 24)}』）")
        problem = cut_problem(question, result[0])
        cut.append(f"✗ {case}: {problem}" if problem else f"✓ {case}: 『{short(result[0], 30)}』")
    return untouched, fits, reply_kept, cut


class ShrinkingNightWatchAgent(after.NightWatchAgent):
    """The three-tier agent, passing every exchange through ``shrink`` before ``add_exchange``."""

    def __init__(self, name: str, memory: ConversationMemory, shrink, *, client=None) -> None:
        super().__init__(name, memory, client=client)
        self.shrink = shrink
        self.cap = memory.policy.token_threshold // memory.policy.window_size
        self.stored_tokens: list[tuple[int, int]] = []  # (as said, as stored) for every exchange

    def run(self, user_input: str) -> str:
        messages = self.memory.build_messages(user_input)
        answer = self._call_model(messages)
        result = call_shrink(self.shrink, user_input, answer, self.cap)
        if isinstance(result, str):
            raise ParticipantError(f"shrink_exchange が使えませんでした: {result}")
        self.stored_tokens.append((exchange_tokens(user_input, answer), exchange_tokens(*result)))
        self.memory.add_exchange(*result)
        return answer


def night_lines(log: NightLog, stored_tokens: list[tuple[int, int]]) -> tuple[str, str, str]:
    """Evidence for items 5 and 6, and a note on what happened to the long exchange."""
    name = log.night.name
    longest = max(log.calls, key=lambda call: count_text_tokens(call.user_text))
    note = f"{name}: 長い往復は {longest.turn}回目（問いだけで {count_text_tokens(longest.user_text):,} トークン）"
    if len(stored_tokens) >= longest.turn:
        said, stored = stored_tokens[longest.turn - 1]
        note += f"。往復 {said:,} トークンが、窓には {stored:,} トークンで入りました"
    if log.failure is not None:
        return (f"✗ {name}: {log.failure.turn}回目で、{log.failure.error}",) * 2 + (note,)
    over = [call for call in log.calls if call.window_tokens > POLICY.token_threshold]
    window = (f"✗ {name}: {len(log.calls)} 回の往復のうち {len(over)} 回、入れたあとの窓が閾値を超えたまま"
              f"（最初は {over[0].turn}回目のあと {over[0].window_tokens:,} トークン、閾値 {POLICY.token_threshold}）" if over else
              f"✓ {name}: 束ね {sum(call.compacted for call in log.calls)} 回、どの往復のあとも窓は閾値 {POLICY.token_threshold} 以下")
    found, missing = reported(log)
    report = f"{'✗' if missing else '✓'} {name}: 朝の報告に出来事 {len(found)}/{len(log.night.incidents)}"
    return window, report + (f"。{''.join(f'『{m}』' for m in missing)}がありません" if missing else ""), note


@exercise_check(
    EXERCISE, "shrink_exchange", lambda: long_cases()[0], PLANNED,
    "往復が max_tokens に収まればそのまま、収まらなければ問いを文の切れ目で縮めて、(問い, 応答) の組を return してください。",
)
def check_shrink_exchange(shrink_exchange, harness) -> CheckReport:
    """Check ``shrink_exchange(user_text, watchman_reply, max_tokens) -> (user_text, watchman_reply)``."""

    untouched, fits, reply_kept, cut = unit_lines(shrink_exchange)
    window_lines, report_lines, notes = [], [], []
    for night in unseen_long_nights():
        standin = StandInModel(context_limit=CONTEXT_LIMIT)
        memory = ConversationMemory(MISSION, POLICY, count_text_tokens, ThreeLineSummarizer())
        agent = ShrinkingNightWatchAgent("ヴェスパー", memory, shrink_exchange, client=standin.client())
        window, report, note = night_lines(play_night(agent, night, standin), agent.stored_tokens)
        window_lines.append(window)
        report_lines.append(report)
        notes.append(note)

    evidence = [condensed(untouched, "収まる往復はそのまま"), condensed(fits, "max_tokens 以内に縮んだ"),
                condensed(reply_kept, "応答はそのまま"), condensed(cut, "先頭の文を残し、「略」の印つき"),
                window_lines, report_lines]
    hints = [
        "まず往復のトークン数（問い + 応答）を数え、max_tokens 以下なら何もせずに返しましょう。「以下」です。",
        "日本語は 1 文字 = 1 トークンではありません。count_text_tokens で数えながら、文を一つずつ足していきましょう。",
        "応答は短く、ヴェスパーが何をしたかの記録です。削るのは長くなりがちな問いの側だけにしましょう。",
        "問いを「。」で文に分け、先頭から入るだけ残して、最後に「（以下N文略）」のような印を付けましょう。",
        "長い往復が窓に居座ると、束ねても窓が閾値を下回りません（押し出せるのは古い往復だけです）。"
        "どの往復も max_tokens 以下にしてから add_exchange に渡しましょう。",
        "長い往復の出来事は、縮めたあとに残る問いの先頭の文と、ヴェスパーの応答に書かれています。"
        "その二つが窓に入れば、束ね経由で朝まで届きます。",
    ]
    if any(line.startswith("✗") and "先頭の一文" in line for line in cut):
        hints[5] = ("出来事は問いの先頭の文に書かれています。先頭の一文が残っていないと、出来事は窓にも束ねにも入りません。"
                    "「問いは先頭の一文を残し」の項目を先に直しましょう。")
    elif not all(line.startswith("✓") for line in reply_kept):
        hints[5] = "応答はヴェスパーの記録で、出来事を運びます。応答を変えずに渡しましょう（「応答は一字も変えない」の項目）。"
    notes.append(f"この演習の max_tokens は token_threshold // window_size = {POLICY.token_threshold} // "
                 f"{POLICY.window_size} = {POLICY.token_threshold // POLICY.window_size} です。")
    return finish(EXERCISE, graded(PLANNED, evidence, hints), notes)
