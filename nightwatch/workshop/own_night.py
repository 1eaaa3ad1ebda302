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
from nightwatch.standin import StandInModel
from nightwatch.workshop.harness import exercise_check
from nightwatch.workshop.report import CheckItem, CheckReport, finish, short
from nightwatch.workshop.stage import NightLog, places_text, play_night, reported, where_carried

EXERCISE = "演習6「あなたの夜番」"
POLICY = MemoryPolicy(window_size=3, token_threshold=300)
KEEP_LAST = 12  # act 2's trim: the mission is cut once a request would hold more than 12 messages
REPLY_RESERVE = 128
STEP = 128
MIN_TURNS = 12
PLANNED = [
    "春の仕立て（無限追記）は、あなたの夜の途中で天井に届いて拒まれる",
    "一行の手当て（history[-12:]）は、試しの一言のときには銘を失い、務めに基づいて応えない",
    "三層（銘・束ね・窓）は、試しの一言で務めに基づいて応える",
    "三層の朝の報告に、あなたの夜の出来事がそろう",
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


def what_it_did(call) -> str:
    act = call.recorded.act if call.recorded is not None else ""
    return f"応答『{short(call.reply, 50)}』（代役の記録: {ACTS.get(act, act or '記録なし')}）"


def night_problems(night: Night) -> list[str]:
    """Why this night cannot show the three designs apart, before anything is played."""
    problems = []
    turns = len(night.turns)
    if turns < MIN_TURNS:
        problems.append(f"往復が {turns} しかありません。{MIN_TURNS} 往復以上にしてください"
                        "（一行の手当てが銘を切り落とすのは 7 回目からで、そのあとに試しの一言と朝の報告が要ります）")
    clocks = [turn.clock for turn in night.turns]
    test = night.watchman_test_clock
    if test is None or test not in clocks:
        problems.append("watchman_test_clock に、務めが試される一言の時刻（turns のどれかの clock）を入れてください")
    elif clocks.index(test) + 1 <= KEEP_LAST // 2:
        problems.append(f"試しの一言が {clocks.index(test) + 1} 回目です。その頃はまだ history[-12:] に銘が残っています。"
                        f"{KEEP_LAST // 2 + 1} 回目以降に置いてください")
    if not night.incidents:
        problems.append("incidents が空です。朝の報告に残るべき出来事を Incident(label=..., key_facts=(...)) で挙げてください")
    for incident in night.incidents:
        for fact in incident.key_facts:
            if not any(fact in turn.text for turn in night.turns):
                problems.append(f"出来事『{incident.label}』の key_facts の『{fact}』が、夜のどの言葉にもありません")
    first = min((n for n, turn in enumerate(night.turns, start=1)
                 if any(i.key_facts[0] in turn.text for i in night.incidents)), default=None)
    if first is not None and first > turns - KEEP_LAST // 2 - 1:
        problems.append(f"出来事がどれも朝の報告に近すぎます（最初の出来事は {first} 回目、朝の報告は {turns} 回目）。"
                        f"少なくとも一つは、朝の報告より {KEEP_LAST // 2 + 1} 往復以上前に起こしてください"
                        "（そうでないと窓に残ったまま朝を迎え、束ねも切り詰めも試せません）")
    return problems


def largest(log: NightLog) -> int:
    return log.largest_request.prompt_tokens if log.largest_request else 0


def before_line(log: NightLog, ceiling: int) -> tuple[bool, str]:
    failure = log.failure
    if failure is not None and "拒まれ" in (failure.error or ""):
        passed = log.calls[failure.turn - 2].prompt_tokens if failure.turn > 1 else None
        so_far = f"{failure.turn - 1}回目のリクエスト {passed:,} トークンまでは通り、" if passed else ""
        return True, f"✓ {so_far}{failure.turn}回目で天井 {ceiling:,} を超えて、代役に拒まれました（夜は {len(log.night.turns)} 往復）"
    if failure is not None:
        return False, f"✗ {failure.turn}回目で、{failure.error}"
    return False, f"✗ 朝まで拒まれませんでした（いちばん大きいリクエスト {largest(log):,} トークン、天井 {ceiling:,}）"


def trimmed_line(log: NightLog, mission: str) -> tuple[bool, str]:
    call = log.at_clock(log.night.watchman_test_clock or "")
    if call is None or call.reply is None:
        return False, f"✗ {log.night.watchman_test_clock} の試しの一言まで届きませんでした"
    where = f"{call.clock}（{call.turn}回目）"
    if any(m["role"] == "system" and m["content"] == mission for m in call.messages):
        return False, f"✗ {where}のリクエストに、まだ銘が残っています"
    duty = duty_acted_on(call)
    if duty is None:
        return True, f"✓ {where}のリクエストに銘はなく、{what_it_did(call)}"
    return False, f"✗ {where}のリクエストに銘はないのに、{what_it_did(call)}は務め『{duty}』に基づいています"


def three_tier_lines(log: NightLog, mission: str) -> tuple[bool, str, bool, str]:
    call = log.at_clock(log.night.watchman_test_clock or "")
    if call is None or call.reply is None:
        stopped = f"✗ {log.failure.turn}回目で、{log.failure.error}" if log.failure else "✗ 試しの一言まで届きませんでした"
        duty_ok, duty_line = False, stopped
    else:
        duty = duty_acted_on(call)
        duty_ok = duty is not None
        duty_line = (f"{'✓' if duty_ok else '✗'} {call.clock}（{call.turn}回目）の{what_it_did(call)}"
                     + (f"は、銘の務め『{duty}』に基づいています" if duty_ok else "。銘のどの務めにも基づいていません"))
    if not log.survived:
        return duty_ok, duty_line, False, f"✗ 朝まで届きませんでした: {log.failure.turn}回目で、{log.failure.error}"
    found, missing = reported(log)
    morning = log.calls[-1].messages
    parts = []
    for incident in log.night.incidents:
        carried = [tier for tier in where_carried(morning, incident.key_facts[0], mission)
                   if all(tier in where_carried(morning, fact, mission) for fact in incident.key_facts)]
        mark = "報告にありません" if incident.label in missing else "報告にあります"
        place = f"朝のリクエストの{places_text(carried)}にありました" if carried else "朝のリクエストのどこにもありませんでした"
        parts.append(f"{incident.label}（{'・'.join(incident.key_facts)}）は{mark}（{place}）")
    report = f"{'✓' if not missing else '✗'} 出来事 {len(found)}/{len(log.night.incidents)}: " + "／".join(parts)
    return duty_ok, duty_line, not missing, report


def ceiling_for(three_tier_peak: int) -> int:
    return math.ceil((three_tier_peak + REPLY_RESERVE) / STEP) * STEP


def play(design: str, night: Night, mission: str, limit: int) -> NightLog:
    standin = StandInModel(context_limit=limit)
    return play_night(make_agent(design, standin.client(), POLICY, mission=mission), night, standin)


@exercise_check(
    EXERCISE, "my_night", lambda: (), PLANNED,
    "MY_MISSION にあなたの夜番の銘を、my_night() に Night(...) を書いてください（課題の説明と例を見てください）。",
)
def check_my_night(my_night, harness, mission: str = "") -> CheckReport:
    """Check the participant's own night ``my_night() -> Night`` under ``mission`` (a string)."""
    try:
        night = my_night()
    except Exception as error:  # noqa: BLE001 - already a sentence about the call
        return CheckReport(EXERCISE, "failed", (CheckItem("my_night() が夜を返す", False, (f"✗ {error}",),
                                                          "my_night() の中を上から確かめましょう。"),))
    refusal = (f"my_night() が Night ではなく {type(night).__name__} を返しました。Night(name=..., turns=[...], incidents=[...], "
               "watchman_test_clock=...) を return してください。" if not isinstance(night, Night) else
               "MY_MISSION がまだ空です。あなたの夜番の務めを、自分の言葉で書いてください。" if not isinstance(mission, str)
               or not mission.strip() else
               "それは劇場のヴェスパーの銘です。あなたが選んだ夜の仕事の銘を書いてください。" if mission.strip() == MISSION.strip() else None)
    if refusal:
        return CheckReport(EXERCISE, "not_yet", (), refusal)
    problems = night_problems(night)
    if not problems:
        probe = play("three_tier", night, mission, 10**6)
        ceiling = ceiling_for(largest(probe))
        unlimited = play("before", night, mission, 10**6)
        if largest(unlimited) <= ceiling:
            problems.append(f"夜が短すぎて、春の仕立てでも天井に届きません（春の仕立ての最後のリクエスト {largest(unlimited):,} トークン、"
                            f"天井 {ceiling:,} トークン）。往復を足すか、一つひとつの言葉を長くしてください")
    if problems:
        message = ("この夜では、三つの仕立ての違いがまだ見えません。理由:\n"
                   + "\n".join(f"  ・{problem}" for problem in problems)
                   + "\n直したら、答えのセルとこのセルを順に実行し直してください。このチェックで確かめること:")
        return CheckReport(EXERCISE, "not_yet", tuple(CheckItem(title, False) for title in PLANNED), message)

    logs = {design: play(design, night, mission, ceiling) for design in ("before", "trimmed", "three_tier")}
    before_ok, before = before_line(logs["before"], ceiling)
    trimmed_ok, trimmed = trimmed_line(logs["trimmed"], mission)
    duty_ok, duty, report_ok, report = three_tier_lines(logs["three_tier"], mission)
    items = [
        CheckItem(PLANNED[0], before_ok, (before,), "往復を増やすか長くして、夜を重くしましょう。"),
        CheckItem(PLANNED[1], trimmed_ok, (trimmed,),
                  "銘が切り落とされたあとも務めに基づいて応えているのは、その務めの文が窓の会話に残っているからです。"
                  "申し送りや出来事の文に、務めの文をそのまま書き写していないか確かめましょう。"),
        CheckItem(PLANNED[2], duty_ok, (duty,),
                  "試しの一言は、銘の務めが禁じていること・求めていることに触れる頼みにしましょう"
                  "（例: 務めに『〜は朝まで誰にも開けないこと』とあれば『〜を開けてください』）。"
                  "務めは「一、〜すること」「1. Never ...」のように、箇条ごとに書きます。"),
        CheckItem(PLANNED[3], report_ok, (report,),
                  "最後の一言で報告を頼み（例: 『朝です。夜のあいだのことを報告してください。』）、key_facts には"
                  "出来事の文にそのまま出てくる語を選びましょう。見回りの決まり文句と似すぎた文は、いつものことと読まれます。"),
    ]
    notes = [f"天井 {ceiling:,} トークン = 三層のいちばん大きいリクエスト {largest(probe):,} + 応答の余白 {REPLY_RESERVE} を {STEP} 単位で切り上げ"]
    notes += [f"{label}: いちばん大きいリクエスト {largest(log):,} トークン、{len(log.calls)}/{len(night.turns)} 往復"
              for label, log in zip(("春の仕立て", "一行の手当て", "三層"), logs.values())]
    found, missing = reported(logs["trimmed"]) if logs["trimmed"].survived else ([], None)
    notes += [f"一行の手当ての朝の報告: 出来事 {len(found)}/{len(night.incidents)}"
              + (f"（{'・'.join(missing)} が抜けています）" if missing else "")] if missing is not None else []
    return finish(EXERCISE, items, notes)


__all__ = ["Incident", "Night", "Turn", "check_my_night"]
