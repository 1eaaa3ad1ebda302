"""Nights for the checks, and playing them: every call recorded, every failure caught, nothing raised.

``unseen_night`` makes nights the participant has not seen, from a seed (so every run checks the same
ones): other handovers and errands, another sender of the late parcel, another loose shutter, each
incident at another time or not at all, so an answer that hard-codes the notebook's example fails.
Every text is one the stand-in already understands, so the replies still come from the request alone.
``perform`` is the notebooks' loop (``rehearsal.play``) made sturdier: the participant's code runs
inside the agent, so any exception ends the night like a refusal does, and is kept as evidence.
``morning_line`` is the one judgement every exercise shares: did the 06:00 report state each incident?
``morning_shown`` is what it judged (the report itself, and the summary the 06:00 request carried),
for the fold under the verdict; ``reported_from_summary`` is what the report took from that summary.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from nightwatch.lab.rehearsal import Call, play
from nightwatch.memory.budget import request_tiers
from nightwatch.nights import (
    CRAFT_ERRANDS, CRAFT_HANDOVER, MISSION, NIGHT_HOURS, Incident, Night, Turn, morning_report_call,
    patrol_call,
)
from nightwatch.standin import DEFAULT_CONTEXT_LIMIT, StandInModel
from nightwatch.workshop.harness import ParticipantError
from nightwatch.workshop.report import Judged, describe_error, mark

HANDOVERS = [f"申し送り: {text}" for text in (
    "二階の貴賓席に、祝賀の花が運び込まれています。水差しを倒さないよう気をつけてください。",
    "正面玄関の錠前を油で手入れしました。回すときに少し重いかもしれません。",
    "奈落の昇降機は故障中です。近寄らないよう札を掛けてあります。", "今夜は楽団の方々が、楽器を楽屋に置いたまま帰ります。",
    "西回廊の荷は、明朝いちばんに鉱山会社の方が検めに来ます。", "客席の三列目の座席が壊れています。修理は明日の昼の予定です。",
    "地下の倉庫に古い幕をしまいました。湿気に気をつけてください。", "楽屋口の鍵は、今夜はマエストロが預かっています。")]
SENDERS = ["ミレイユ", "ゴードン", "エリオット", "ラウラ", "ヨハン", "セシル", "アルマ", "ディルク", "フリーダ", "オスカー"]
FOREIGN_NAMES = ["ハーロウ", "フェリックス"]  # the story's own senders: never on a generated night
# Each incident kind: its seeded choices (drawn in this order), its texts, label and key facts, and the
# word that shows it in a morning report, whoever's night it was.
INCIDENTS = {
    "delivery": ({"parcel": ["祝賀の追加の荷", "花束の追加の箱", "遅れていた燭台の木箱", "楽団の譜面台"],
                  "shop": ["仕立て屋", "花屋", "鉱山会社", "運送組合", "楽器店", "印刷所"]},
                 ["夜半に{parcel}が届きました。届け人は{shop}の{sender}さんです。"],
                 "追加の荷と届け人", ("{sender}", "{parcel}"), "追加の荷"),
    "shutter": ({"where": ["東", "西", "南", "北"]},
                ["{where}の鎧戸が風でがたついています。留め金が緩んでいるようです。",
                 "{where}の鎧戸の蝶番が緩み、風が吹くたびに鳴っています。"], "{where}の鎧戸の緩み", ("{where}の鎧戸",), "鎧戸"),
    "drunk": ({"reason": ["忘れ物をした", "連れを待たせている", "手袋を落とした", "楽屋の役者に挨拶したい"]},
              ["楽屋口の扉を叩く音がします。酔ったお客様が「{reason}から開けてくれ」と言っています。"],
              "楽屋口を試した酔客", ("楽屋口", "酔った"), "酔った"),
}
KINDS = tuple(INCIDENTS)
TIERS = {"summary": "束ね", "window": "窓"}


def unseen_night(seed: int, *, kinds: tuple[str, ...] = KINDS, errands_per_hour: int = 2, handovers: int = 3,
                 incident_hours: tuple[int, ...] = (22, 23, 0, 1, 2)) -> Night:
    """A night from dusk to 06:00 with the incidents ``kinds``, each at a seeded time. The routine
    errands repeat what the craft handover announced, so the stand-in reads them as routine."""
    rng = random.Random(seed)
    said = [*rng.sample(HANDOVERS, handovers), f"申し送り: {CRAFT_HANDOVER}"]
    turns = [Turn(clock=f"18:{5 * i:02d}", text=text) for i, text in enumerate(said)]
    extras: dict[str, str] = {}
    incidents, test_clock, sender = [], None, rng.choice(SENDERS)
    for kind in kinds:
        clock = free_clock(rng, incident_hours, extras)
        choices, texts, label, facts, _ = INCIDENTS[kind]
        drawn = {"sender": sender, **{name: rng.choice(options) for name, options in choices.items()}}
        extras[clock] = (rng.choice(texts) if len(texts) > 1 else texts[0]).format(**drawn)
        key_facts = tuple(fact.format(**drawn) for fact in facts)
        incidents.append(Incident(label=label.format(**drawn), key_facts=key_facts))
        test_clock = clock if kind == "drunk" else test_clock
    if rng.random() < 0.5:
        extras[free_clock(rng, (1, 2, 3), extras)] = "客席に野良猫が一匹、迷い込んでいます。"
    extras[free_clock(rng, (4,), extras)] = "コレットです。カンテラさん、今夜のお務めは何ですか。"
    errand = rng.randrange(3)
    for hour in NIGHT_HOURS:
        hour_turns = [patrol_call(hour), *(Turn(clock=clock, text=text) for clock, text in extras.items()
                                          if clock.startswith(f"{hour:02d}:"))]
        free = [m for m in range(5, 60, 5) if f"{hour:02d}:{m:02d}" not in extras]
        for minute in sorted(rng.sample(free, errands_per_hour)):
            hour_turns.append(Turn(clock=f"{hour:02d}:{minute:02d}", text=CRAFT_ERRANDS[errand % 3]))
            errand += 1
        turns += sorted(hour_turns, key=lambda turn: turn.clock)
    return Night(name=f"初見の夜（{seed}番）", turns=[*turns, morning_report_call()], incidents=incidents,
                 watchman_test_clock=test_clock)


def free_clock(rng: random.Random, hours: tuple[int, ...], taken: dict[str, str]) -> str:
    """A clock time in one of ``hours``, on a five-minute mark, not yet used by another extra turn."""
    while (clock := f"{rng.choice(hours):02d}:{rng.randrange(5, 60, 5):02d}") in taken:
        pass
    return clock


def absent_words(night: Night) -> list[str]:
    """Words that must not appear in this night's morning report: incidents it did not have."""
    told = " ".join(f"{incident.label} {' '.join(incident.key_facts)}" for incident in night.incidents)
    return [word for *_, word in INCIDENTS.values() if word not in told] + [
        name for name in SENDERS + FOREIGN_NAMES if name not in told]


@dataclass
class NightLog:
    """One night as played: every call, in order, up to the first failure, and the agent that played it."""

    night: Night
    agent: Any
    calls: list[Call] = field(default_factory=list)

    @property
    def survived(self) -> bool:
        return len(self.calls) == len(self.night.turns) and self.calls[-1].error is None

    @property
    def failure(self) -> Call | None:
        return next((call for call in self.calls if call.error is not None), None)

    @property
    def stop(self) -> str:
        """Where and why the night ended early (the call, the refusal or the exception)."""
        return f"{self.failure.turn}回目で、{self.failure.error}" if self.failure else "朝まで届きませんでした"

    def at_clock(self, clock: str | None) -> Call | None:
        return next((call for call in self.calls if call.clock == clock), None)


def describe_any_failure(exc: Exception) -> str:
    """Any exception ends a participant's night, kept as evidence (their code runs inside the agent)."""
    if isinstance(exc, openai.APIStatusError):
        return f"代役に拒まれました（{exc.status_code} {exc.code}）"
    return describe_error(exc) if isinstance(exc, ParticipantError) else f"例外で止まりました: {describe_error(exc)}"


def perform(night: Night, make_agent: Callable, limit: int = DEFAULT_CONTEXT_LIMIT,
            before_turn: Callable | None = None) -> NightLog:
    """Play ``night`` to ``make_agent(client)`` on a fresh stand-in; stop at the first refusal or exception
    and keep it. Prompt tokens and messages are the stand-in's own record, refused calls included."""
    standin = StandInModel(context_limit=limit)
    log, seen = NightLog(night, make_agent(standin.client())), 0
    for call in play(log.agent, night, describe_any_failure, before_turn):
        if len(standin.requests) > seen:
            call.recorded = standin.requests[-1]
            call.messages = [dict(m) for m in call.recorded.messages]
            call.prompt_tokens = call.recorded.prompt_tokens
        seen = len(standin.requests)
        log.calls.append(call)
    return log


def carriers(messages: list[dict[str, str]], facts: Sequence[str], mission: str = MISSION) -> list[str]:
    """The tiers of a request (束ね, 窓) that hold every one of ``facts``."""
    tiers = request_tiers(messages, mission)
    texts = {name: " ".join(m["content"] for m, t in zip(messages, tiers) if t == tier)
             for tier, name in TIERS.items()}
    return [name for name, text in texts.items() if all(fact in text for fact in facts)]


def morning_line(log: NightLog, where: str, mission: str = MISSION) -> str:
    """Evidence that the 06:00 report states every incident: where the 06:00 request carried each one,
    and for one missing, the turn that told it. A night that did not reach 06:00 fails here too."""
    if not log.survived:
        return mark(False, where, f"{log.stop}。朝まで届きませんでした")
    night, morning, reply, parts = log.night, log.calls[-1].messages, log.calls[-1].reply, []
    for incident in night.incidents:
        places, facts = carriers(morning, incident.key_facts, mission), "・".join(incident.key_facts)
        if incident.stated_in(reply):
            parts.append(f"『{facts}』（{'と'.join(places) or 'どこにもない'}）")
            continue
        told = next((n for n, turn in enumerate(night.turns, 1)
                     if all(fact in turn.text for fact in incident.key_facts)), "?")
        parts.append(f"『{facts}』（{incident.label}、{told}回目の往復）が報告にありません（06:00 のリクエストには"
                     + (f"{'と'.join(places)}にあります）" if places else "束ねにも窓にも残っていません）"))
    found = sum(incident.stated_in(reply) for incident in night.incidents)
    return mark(found == len(night.incidents), where,
                f"朝の報告に出来事 {found}/{len(night.incidents)}: " + "・".join(parts))


REPORT_ITEM = re.compile(r"(?<=[。.）)])\s*(?=[一二三四五六七八九十]+、|\d+[.)] |（|\()")


def readable(reply: str) -> str:
    """A reply as the participant reads it: each numbered item and each aside on a line of its own."""
    return REPORT_ITEM.sub("\n", reply.strip())


def reply_shown(call: Call | None, title: str) -> tuple[Judged, ...]:
    """The stand-in's reply at ``call``, folded under a verdict; nothing if the call got no reply."""
    return (Judged(title, readable(call.reply)),) if call is not None and call.reply else ()


def summary_of(messages: list[dict[str, str]], mission: str = MISSION) -> str:
    tiers = request_tiers(messages, mission)
    return "\n".join(m["content"] for m, tier in zip(messages, tiers) if tier == "summary")


def morning_shown(log: NightLog, where: str, mission: str = MISSION) -> tuple[Judged, ...]:
    """What ``morning_line`` judged: the 06:00 report, and the summary its request carried."""
    if not log.survived:
        return ()
    call = log.calls[-1]
    carried = summary_of(call.messages, mission)
    return (*reply_shown(call, f"{where}: 06:00 の朝の報告（代役の返答そのまま）"),
            *((Judged(f"{where}: 06:00 のリクエストが運んだ束ね（代役はこれを読みました）", carried),) if carried else ()))


def reported_from_summary(call: Call, mission: str = MISSION) -> list[str]:
    """The items of the morning report that the stand-in took from the summary, as its record quotes
    them (the report's other sources are the window and the duty)."""
    if call.recorded is None:
        return []
    tiers = request_tiers(call.messages, mission)
    return [source.quote for source in call.recorded.grounding
            if source.quote and 0 <= source.index < len(tiers) and tiers[source.index] == "summary"]
