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
from nightwatch.standin import ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, condensed, mark, short, verdict
from nightwatch.workshop.stage import morning_line, morning_shown, perform, unseen_night

EXERCISE = "演習5「閾値より大きい一往復」"
POLICY = MemoryPolicy(window_size=4, token_threshold=400)
CONTEXT_LIMIT = 4096
ITEMS = [  # (what is checked, the hint when it fails)
    ("max_tokens に収まる往復には手を触れない（ちょうど max_tokens も含む）",
     "まず往復のトークン数（問い + 返答）を数え、max_tokens 以下なら何もせずに返しましょう。「以下」です。"),
    ("収まらない往復は、問いと返答を合わせて max_tokens 以内に縮める（トークンで数える）",
     "縮めたあとも max_tokens を超えています。根拠の行の文字数とトークン数を見比べてください。日本語は 1 文字 = 1 トークン"
     "ではありません。大きさは文字数ではなく、トークンで数えて確かめましょう。"),
    ("ヴェスパーの返答は一字も変えない",
     "返答は短く、ヴェスパーが何をしたかの記録です。削るのは長くなりがちな問いの側だけにしましょう。"),
    ("問いは先頭の一文を残し、文の途中で切らず、省いたことを「略」の字で示す",
     "問いの切り口を見直しましょう。根拠の行に、先頭の一文が残ったか、何文目のどこで切れたか、「略」の印があるかが出ています。"
     "切るなら文の切れ目で。黙って捨てず、省いたことが読む人に分かるように。"),
    ("一晩を通して: 往復を入れるたびに、窓が閾値の下に収まる（束ねが効く）",
     "長い往復が窓に居座ると、束ねても窓が閾値を下回りません（押し出せるのは古い往復だけです）。"
     "どの往復も max_tokens 以下にしてから add_exchange に渡しましょう。"),
    ("一晩を通して: 朝の報告に出来事がそろう（長い往復の出来事も）",
     "長い往復の出来事は、縮めたあとに残る問いの先頭の文と、ヴェスパーの返答に書かれています。"
     "その二つが窓に入れば、束ね経由で朝まで届きます。"),
]
FOLLOWS = [  # (item, words in its evidence, later items, their hint): a failure that makes a later one fail
    (3, "先頭の一文『", (5,), "出来事は問いの先頭の文に書かれています。先頭の一文が残っていないと、出来事は窓にも"
     "束ねにも入りません。「問いは先頭の一文を残し」の項目を先に直しましょう。"),
    (2, "✗", (5,), "返答はヴェスパーの記録で、出来事を運びます。返答を変えずに渡しましょう"
     "（「返答は一字も変えない」の項目）。"),
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
LONG_NIGHTS = [  # (seed, kinds, errands per hour, a word of the turn made long, what it becomes, max_tokens)
    (41, ("delivery", "shutter", "drunk"), 2, "届け人", "長い目録", 90),
    (52, ("drunk", "shutter"), 3, "酔った", "長い押し問答", 140), (63, ("delivery",), 2, "泊まり込み", "長い申し送り", 70),
]
LONG_REPLY = "承知いたしました。朝の報告に残します。"  # the reply of each long turn tried on its own


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
    additions = [manifest(rng, 60), "".join(rng.choice(PLEAS) for _ in range(30)),
                 "明日の祝賀の段取りを読み上げます。" + "".join(rng.choice(SCHEDULE) for _ in range(40))]
    nights = []
    for (seed, kinds, errands, word, name, _), addition in zip(LONG_NIGHTS, additions):
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands)
        clock = next(turn.clock for turn in night.turns if word in turn.text)
        nights.append(lengthen(night, clock, addition, f"初見の夜（{seed}番・{name}）"))
    return nights


def exchange_tokens(user_text: str, reply: str) -> int:
    return count_text_tokens(user_text) + count_text_tokens(reply)


def call_shrink(shrink, question: str, reply: str, cap: int) -> tuple[str, str] | str:
    """The participant's result, or a sentence saying why it cannot be used."""
    try:
        result = shrink(question, reply, cap)
    except ParticipantError as error:
        return str(error)
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(part, str) for part in result)):
        return f"(問い, 返答) の二つの文字列の組ではなく {short(repr(result), 30)} が返りました"
    return result


def cut_problem(original: str, shortened: str) -> str | None:
    """Why ``shortened`` is not the opening sentences of ``original`` plus a 「略」 mark, or None."""
    parts = [part for part in re.split(r"(?<=。)", original) if part]  # sentences, their 。 kept
    if not shortened.startswith(parts[0]):
        return f"先頭の一文『{short(parts[0], 24)}』が、そのまま残っていません（縮めた問い『{short(shortened, 24)}』）"
    kept = next((n for n in range(1, len(parts)) if not shortened.startswith("".join(parts[: n + 1]))),
                len(parts))
    rest = shortened[len("".join(parts[:kept])):]
    if kept < len(parts) and len(parts[kept]) > 2 and rest.startswith(parts[kept][:2]):
        return f"{kept + 1}文目の途中で切れています（…『{short(rest, 16)}』）"
    return None if "略" in shortened else "省いたことを示す「略」の字がありません（黙って捨てたように見えます）"


def unit_lines(shrink, nights: list[Night]) -> list[list[str]]:
    """Evidence for items 1-4: exchanges that fit, and the long turn of each unseen night on its own."""
    lines: list[list[str]] = [[], [], [], []]
    for question, reply, cap in FITTING:
        cap = cap if cap is not None else exchange_tokens(question, reply)
        result = call_shrink(shrink, question, reply, cap)
        same = result == (question, reply)
        changed = result if isinstance(result, str) else f"収まるのに変えています（問い『{short(result[0], 20)}』）"
        case = f"{exchange_tokens(question, reply)} トークンの往復・max_tokens={cap}"
        lines[0].append(mark(same, case, "そのまま" if same else changed))
    for night, (*_, cap) in zip(nights, LONG_NIGHTS):
        question = max((turn.text for turn in night.turns), key=len)
        case = f"{exchange_tokens(question, LONG_REPLY):,} トークンの往復・max_tokens={cap}"
        result = call_shrink(shrink, question, LONG_REPLY, cap)
        if isinstance(result, str):
            for item in lines[1:]:
                item.append(mark(False, case, result))
            continue
        tokens, problem = exchange_tokens(*result), cut_problem(question, result[0])
        unshrunk = (f"元のまま（{tokens:,} トークン）です" if result == (question, LONG_REPLY)
                    else f"{sum(map(len, result))} 文字・{tokens} トークンまでしか縮んでいません")
        lines[1].append(mark(tokens <= cap, case, f"{tokens} トークンに" if tokens <= cap else unshrunk))
        lines[2].append(mark(result[1] == LONG_REPLY, case, "返答はそのまま" if result[1] == LONG_REPLY
                             else f"返答が『{short(result[1], 24)}』に変わっています（元は『{short(LONG_REPLY, 24)}』）"))
        lines[3].append(mark(not problem, case, problem or f"『{short(result[0], 30)}』"))
    return lines


class ShrinkingNightWatchAgent(after.NightWatchAgent):
    """The three-tier agent, passing every exchange through ``shrink`` before ``add_exchange``."""

    def __init__(self, name: str, memory: ConversationMemory, shrink, *, client=None) -> None:
        super().__init__(name, memory, client=client)
        self.shrink = shrink
        self.cap = memory.policy.token_threshold // memory.policy.window_size

    def run(self, user_input: str) -> str:
        messages = self.memory.build_messages(user_input)
        answer = self._call_model(messages)
        result = call_shrink(self.shrink, user_input, answer, self.cap)
        if isinstance(result, str):
            raise ParticipantError(f"shrink_exchange が使えませんでした: {result}")
        self.memory.add_exchange(*result)
        return answer


def night_lines(shrink, night: Night) -> tuple[str, str, tuple]:
    """Evidence for items 5 and 6 from one long night, and what item 6 judged (the morning report)."""
    log = perform(night, lambda client: ShrinkingNightWatchAgent("ヴェスパー", ConversationMemory(
        MISSION, POLICY, count_text_tokens, ThreeLineSummarizer()), shrink, client=client), CONTEXT_LIMIT)
    over = [call for call in log.calls if call.window_tokens > POLICY.token_threshold]
    if log.failure:
        window = mark(False, night.name, log.stop)
    elif over:
        window = mark(False, night.name, f"{len(log.calls)} 回の往復のうち {len(over)} 回、入れたあとの窓が閾値を超えたまま"
                      f"（最初は {over[0].turn}回目のあと {over[0].window_tokens:,} トークン、閾値 {POLICY.token_threshold}）")
    else:
        window = mark(True, night.name, f"束ね {sum(call.compacted for call in log.calls)} 回、"
                      f"どの往復のあとも窓は閾値 {POLICY.token_threshold} 以下")
    return window, morning_line(log, night.name), morning_shown(log, night.name)


@exercise_check(
    EXERCISE, "shrink_exchange", ITEMS,
    "往復が max_tokens に収まればそのまま、収まらなければ問いを文の切れ目で縮めて、(問い, 返答) の組を return してください。",
)
def check_shrink_exchange(shrink_exchange) -> CheckReport:
    """Check ``shrink_exchange(user_text, watchman_reply, max_tokens) -> (user_text, watchman_reply)``."""
    nights = unseen_long_nights()
    units = unit_lines(shrink_exchange, nights)
    windows, mornings, shown = zip(*(night_lines(shrink_exchange, night) for night in nights))
    all_ok = ("収まる往復はそのまま", "max_tokens 以内に縮んだ", "返答はそのまま", "先頭の文を残し、「略」の印つき")
    evidence = [*(condensed(lines, ok) for lines, ok in zip(units, all_ok)), windows, mornings]
    return verdict(EXERCISE, ITEMS, evidence, follows=FOLLOWS, judged=[(), (), (), (), (), sum(shown, ())])
