"""Exercise 6: the participant's own night job (a mission and a ``Night``, in any language), played
through the three designs on the smallest ceiling the three tiers live in (their largest request plus
a reply reserve, in steps of 128). The spring design must be refused, ``history[-12:]`` must have lost
the mission by ``watchman_test_clock`` and not act on a duty there, the three tiers must act on one and
bring every incident to the morning. "Acted on a duty" is read from the stand-in's record of the call
(``act`` and an instruction duty clause in ``grounding``), never from words the reply shares with the
mission: a reply that repeats the request keeps no duty. A night that cannot show the differences is
refused first, with the reason.
"""

from __future__ import annotations

import math

from nightwatch.lab.compare import make_agent
from nightwatch.memory import MemoryPolicy
from nightwatch.nights import MISSION, Incident, Night, Turn
from nightwatch.standin.reader.contract import outside_contract
from nightwatch.standin.reader.words import analyze, content_lemmas
from nightwatch.workshop.harness import exercise_check
from nightwatch.workshop.report import CheckReport, mark, not_yet, short, verdict
from nightwatch.workshop.stage import NightLog, morning_line, morning_shown, perform, reply_shown

EXERCISE = "演習6「あなたの夜番」"
POLICY = MemoryPolicy(window_size=3, token_threshold=300)
KEEP_LAST = 12  # act 2's trim: the mission is cut once a request would hold more than 12 messages
REPLY_RESERVE = 128
STEP = 128
MIN_TURNS = 12
ITEMS = [  # (what is checked, the hint when it fails)
    ("春の仕立て（無限追記）は、あなたの夜の途中で天井に届いて拒まれる", "往復を増やすか長くして、夜を重くしましょう。"),
    ("一行の手当て（history[-12:]）は、試しの一言のときには銘を失い、務めに基づいて応えない",
     "銘が切り落とされたあとも務めに基づいて応えているのは、その務めの文が窓の会話に残っているからです。"
     "申し送りや出来事の文に、務めの文をそのまま書き写していないか確かめましょう。"),
    ("三層（銘・束ね・窓）は、試しの一言で務めに基づいて応える",
     "試しの一言は、銘の務めが禁じていること・求めていることに触れる頼みにしましょう"
     "（例: 務めに『〜は朝まで誰にも開けないこと』とあれば『〜を開けてください』）。"
     "務めの文と試しの一言で同じ言葉（物の名前と、してはいけない動作）を使うと、代役が二つを結びつけられます。"),
    ("三層の朝の報告に、あなたの夜の出来事がそろう",
     "最後の一言で報告を頼み（例: 『朝です。夜のあいだのことを報告してください。』）、key_facts には"
     "出来事の文にそのまま出てくる語を選びましょう。見回りの決まり文句と似すぎた文は、いつものことと読まれます。"),
]
ACTS = {"refuse": "断りました", "comply": "頼みを引き受けました", "periodic": "定時の務めとして告げました", "report": "報告しました",
        "duties": "務めを挙げました", "follow": "前の頼みを続けました", "recall": "覚えていることを答えました",
        "hesitate": "言いよどみました", "forget": "思い出せませんでした", "acknowledge": "承りました", "silence": "黙っていました"}


def duty_acted_on(call) -> str | None:
    """The duty clause the stand-in's reply at ``call`` acted on, from its record; None if none."""
    record = call.recorded
    if record is None or record.act in ("comply", "follow", "forget", "acknowledge", "silence"):
        return None
    return next((s.quote for s in record.grounding if s.tier == "instruction" and s.duty_kind), None)


def night_problems(night: Night) -> list[str]:
    """Why this night cannot show the three designs apart, before anything is played."""
    problems, turns, clocks = [], len(night.turns), [turn.clock for turn in night.turns]
    if turns < MIN_TURNS:
        problems.append(f"往復が {turns} しかありません。{MIN_TURNS} 往復以上にしてください"
                        "（一行の手当てが銘を切り落とすのは 7 回目からで、そのあとに試しの一言と朝の報告が要ります）")
    if night.watchman_test_clock not in clocks:
        problems.append("watchman_test_clock に、務めが試される一言の時刻（turns のどれかの clock）を入れてください")
    elif clocks.index(night.watchman_test_clock) + 1 <= KEEP_LAST // 2:
        problems.append(f"試しの一言が {clocks.index(night.watchman_test_clock) + 1} 回目です。その頃はまだ history[-12:] に"
                        f"銘が残っています。{KEEP_LAST // 2 + 1} 回目以降に置いてください")
    if not night.incidents:
        problems.append("incidents が空です。朝の報告に残るべき出来事を Incident(label=..., key_facts=(...)) で挙げてください")
    problems += [f"出来事『{incident.label}』の key_facts の『{fact}』が、夜のどの言葉にもありません"
                 for incident in night.incidents for fact in incident.key_facts
                 if not any(fact in turn.text for turn in night.turns)]
    first = min((n for n, turn in enumerate(night.turns, start=1)
                 if any(i.key_facts[0] in turn.text for i in night.incidents)), default=None)
    if first is not None and first > turns - KEEP_LAST // 2 - 1:
        problems.append(f"出来事がどれも朝の報告に近すぎます（最初の出来事は {first} 回目、朝の報告は {turns} 回目）。"
                        f"少なくとも一つは、朝の報告より {KEEP_LAST // 2 + 1} 往復以上前に起こしてください"
                        "（そうでないと窓に残ったまま朝を迎え、束ねも件数で切る手当ても試せません）")
    return problems


def largest(log: NightLog) -> int:
    return max((call.prompt_tokens or 0 for call in log.calls), default=0)


def ceiling_for(three_tier_peak: int) -> int:
    return math.ceil((three_tier_peak + REPLY_RESERVE) / STEP) * STEP


def play(design: str, night: Night, mission: str, limit: int) -> NightLog:
    return perform(night, lambda client: make_agent(design, client, POLICY, mission=mission), limit)


def test_call(log: NightLog):
    """The call at the test turn, if the night got there and the reply came back."""
    call = log.at_clock(log.night.watchman_test_clock)
    return call if call is not None and call.reply is not None else None


def what_it_did(call) -> str:
    act = call.recorded.act if call.recorded is not None else ""
    return f"返答『{short(call.reply, 50)}』（代役の記録: {ACTS.get(act, act or '記録なし')}）"


def spring_line(log: NightLog, ceiling: int) -> str:
    """Item 1: the spring design is refused by the ceiling before the morning."""
    if log.failure is None:
        return mark(False, "春の仕立て", f"朝まで拒まれませんでした（いちばん大きいリクエスト {largest(log):,} トークン、天井 {ceiling:,}）")
    if "拒まれ" not in log.failure.error:
        return mark(False, "春の仕立て", log.stop)
    passed = (f"{len(log.calls) - 1}回目のリクエスト {log.calls[-2].prompt_tokens:,} トークンまでは通り、"
              if len(log.calls) > 1 else "")
    return mark(True, "春の仕立て", f"{passed}{len(log.calls)}回目で天井 {ceiling:,} を超えて、代役に拒まれました"
                f"（夜は {len(log.night.turns)} 往復）")


def trimmed_line(log: NightLog, mission: str) -> str:
    """Item 2: by the test turn ``history[-12:]`` has cut the mission, and the reply keeps no duty."""
    call = test_call(log)
    if call is None:
        return mark(False, "一行の手当て", f"{log.night.watchman_test_clock} の試しの一言まで届きませんでした")
    where = f"{call.clock}（{call.turn}回目）"
    if any(m["role"] == "system" and m["content"] == mission for m in call.messages):
        return mark(False, "一行の手当て", f"{where}のリクエストに、まだ銘が残っています")
    duty = duty_acted_on(call)
    return mark(duty is None, "一行の手当て", f"{where}のリクエストに銘はなく、{what_it_did(call)}"
                + (f"は務め『{duty}』に基づいています" if duty else ""))


def three_tier_line(log: NightLog) -> str:
    """Item 3: the three tiers' reply at the test turn acts on a duty of the mission."""
    call = test_call(log)
    if call is None:
        return mark(False, "三層", log.stop if log.failure else "試しの一言まで届きませんでした")
    duty = duty_acted_on(call)
    return mark(duty is not None, "三層", f"{call.clock}（{call.turn}回目）の{what_it_did(call)}"
                + (f"は、銘の務め『{duty}』に基づいています" if duty else "。銘のどの務めにも基づいていません")
                + ("" if duty else outside_note(call)))


def as_written(lemmas: tuple[str, ...], text: str) -> str:
    """The words the stand-in read, each as its dictionary form, with the text's own spelling beside one
    the dictionary writes otherwise (撮る is read as 取る: 「取る（撮り）」), so a participant finds it."""
    spelled = {w.lemma.lower(): w.surface for w in analyze(text) if w.surface[:1] != w.lemma[:1]}
    return "・".join(f"{lemma}（{spelled[lemma]}）" if lemma in spelled else lemma for lemma in lemmas) or "（なし）"


def outside_note(call) -> str:
    """What the stand-in's record says when the ask fell outside its reading contract: the ask's words
    and each prohibition's, none shared, so the participant sees which word the two would need."""
    found = outside_contract(call.recorded.grounding) if call.recorded is not None else None
    if found is None:
        return ""
    rules = "／".join(f"務め『{short(rule, 30)}』の語は {as_written(words, rule)}" for rule, words in found.rules)
    return (f"。代役の記録では、この頼みは読みの約束の外でした: 頼みの語は {as_written(found.ask, call.user_text)}、{rules}。"
            "同じものを同じ語で言うと（務めと頼みのどちらかを書き換えて）、代役は二つを結びつけます")


def words_to_share(ask: str, rule: str) -> tuple[frozenset[str], frozenset[str]]:
    """(shared, missing): the content words (lemmas) the ask shares with a duty clause, and the
    clause's words the ask lacks, by the reader's own public word analysis (``content_lemmas``).

    The check itself reads the stand-in's record of an ask granted outside the reading contract
    (``contract.outside_contract``, in ``outside_note``); this is the same comparison for a
    facilitator's own use."""
    asked, ruled = content_lemmas(ask), content_lemmas(rule)
    return frozenset(asked & ruled), frozenset(ruled - asked)


def refusal(night, mission) -> str | None:
    """Why the answer cannot be played at all: not a Night, or no mission of the participant's own."""
    if not isinstance(night, Night):
        return (f"my_night() が Night ではなく {type(night).__name__} を返しました。Night(name=..., turns=[...], "
                "incidents=[...], watchman_test_clock=...) を return してください。")
    if not isinstance(mission, str) or not mission.strip():
        return "MY_MISSION がまだ空です。あなたの夜番の務めを、自分の言葉で書いてください。"
    return "それは劇場のヴェスパーの銘です。あなたが選んだ夜の仕事の銘を書いてください。" if mission.strip() == MISSION.strip() else None


@exercise_check(
    EXERCISE, "my_night", ITEMS,
    "MY_MISSION にあなたの夜番の銘を、my_night() に Night(...) を書いてください（課題の説明と例を見てください）。",
)
def check_my_night(my_night, mission: str = "") -> CheckReport:
    """Check the participant's own night ``my_night() -> Night`` under ``mission`` (a string)."""
    night = my_night()
    if refused := refusal(night, mission):
        return CheckReport(EXERCISE, "not_yet", (), refused)
    problems = night_problems(night)
    if not problems:
        peak = largest(play("three_tier", night, mission, 10**6))
        ceiling = ceiling_for(peak)
        unlimited = largest(play("before", night, mission, 10**6))
        if unlimited <= ceiling:
            problems.append(f"夜が短すぎて、春の仕立てでも天井に届きません（春の仕立ての最後のリクエスト {unlimited:,} トークン、"
                            f"天井 {ceiling:,} トークン）。往復を足すか、一つひとつの言葉を長くしてください")
    if problems:
        return not_yet(EXERCISE, ITEMS, "この夜では、三つの仕立ての違いがまだ見えません。理由:\n"
                       + "\n".join(f"  ・{problem}" for problem in problems)
                       + "\n直したら、答えのセルとこのセルを順に実行し直してください。このチェックで確かめること:")
    before, trimmed, tiers = (play(design, night, mission, ceiling)
                              for design in ("before", "trimmed", "three_tier"))
    evidence = [[spring_line(before, ceiling)], [trimmed_line(trimmed, mission)], [three_tier_line(tiers)],
                [morning_line(tiers, "三層", mission)]]
    notes = [f"天井 {ceiling:,} トークン = 三層のいちばん大きいリクエスト {peak:,} + 返答の予約 {REPLY_RESERVE} を"
             f" {STEP} 単位で切り上げ"]
    if trimmed.survived:  # what history[-12:] lost by the morning, for the discussion
        notes.append(morning_line(trimmed, "一行の手当て", mission)[2:])
    judged = [(), reply_shown(test_call(trimmed), "一行の手当て: 試しの一言への返答（代役の返答そのまま）"),
              reply_shown(test_call(tiers), "三層: 試しの一言への返答（代役の返答そのまま）"), morning_shown(tiers, "三層", mission)]
    return verdict(EXERCISE, ITEMS, evidence, notes, judged=judged)


__all__ = ["Incident", "Night", "Turn", "check_my_night"]
