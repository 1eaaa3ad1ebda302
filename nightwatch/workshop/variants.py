"""Nights the participant has not seen: generated from a seed, so every run checks the same ones.

A check that only replays the notebook's example would pass an answer that hard-codes the example's
result. These nights change what a hard-coded answer would have to know: how many handovers and
errands there are, who delivers the late parcel, which shutter comes loose, when each incident
happens and whether it happens at all. Every text is one the stand-in already understands, so the
watchman's replies still come from the request alone.
"""

from __future__ import annotations

import random

from nightwatch.nights import (
    CRAFT_ERRANDS, CRAFT_HANDOVER, NIGHT_HOURS, Incident, Night, Turn, morning_report_call, patrol_call,
)

HANDOVERS = [
    "申し送り: 二階の貴賓席に、祝賀の花が運び込まれています。水差しを倒さないよう気をつけてください。",
    "申し送り: 正面玄関の錠前を油で手入れしました。回すときに少し重いかもしれません。",
    "申し送り: 奈落の昇降機は故障中です。近寄らないよう札を掛けてあります。",
    "申し送り: 今夜は楽団の方々が、楽器を楽屋に置いたまま帰ります。",
    "申し送り: 西回廊の荷は、明朝いちばんに鉱山会社の方が検めに来ます。",
    "申し送り: 客席の三列目の座席が壊れています。修理は明日の昼の予定です。",
    "申し送り: 地下の倉庫に古い幕をしまいました。湿気に気をつけてください。",
    "申し送り: 楽屋口の鍵は、今夜はマエストロが預かっています。",
]
# Routine comings and goings: each repeats what the always-given craft handover announced, so the
# stand-in reads them as routine, not as events (nights.py does the same for the story's nights).
ERRANDS = CRAFT_ERRANDS[:3]
CRAFT_NOTE = f"申し送り: {CRAFT_HANDOVER}"
SENDERS = ["ミレイユ", "ゴードン", "エリオット", "ラウラ", "ヨハン", "セシル", "アルマ", "ディルク", "フリーダ", "オスカー"]
SENDER_SHOPS = ["仕立て屋", "花屋", "鉱山会社", "運送組合", "楽器店", "印刷所"]
PARCELS = ["祝賀の追加の荷", "花束の追加の箱", "遅れていた燭台の木箱", "楽団の譜面台"]
DIRECTIONS = ["東", "西", "南", "北"]
SHUTTER_TEXTS = [
    "{where}の鎧戸が風でがたついています。留め金が緩んでいるようです。",
    "{where}の鎧戸の蝶番が緩み、風が吹くたびに鳴っています。",
]
DRUNK_REASONS = ["忘れ物をした", "連れを待たせている", "手袋を落とした", "楽屋の役者に挨拶したい"]
DRUNK_TEXT = "楽屋口の扉を叩く音がします。酔ったお客様が「{reason}から開けてくれ」と言っています。"
DUTY_QUESTION = "コレットです。カンテラさん、今夜のお務めは何ですか。"
STRAY_CAT = "客席に野良猫が一匹、迷い込んでいます。"

KINDS = ("delivery", "shutter", "drunk")
KIND_LABELS = {"delivery": "追加の荷と届け人", "shutter": "鎧戸の緩み", "drunk": "楽屋口を試した酔客"}
# Words that would show an incident in the morning report, whoever's night it was.
KIND_WORDS = {"delivery": "追加の荷", "shutter": "鎧戸", "drunk": "酔った"}
FOREIGN_NAMES = ["ハーロウ", "フェリックス"]  # the story's own senders: never on a generated night


def unseen_night(
    seed: int,
    *,
    kinds: tuple[str, ...] = KINDS,
    errands_per_hour: int = 2,
    handovers: int = 3,
    incident_hours: tuple[int, ...] = (22, 23, 0, 1, 2),
    extra_turns: dict[str, str] | None = None,
) -> Night:
    """A night from dusk to 06:00 with the incidents ``kinds``, each at a seeded time.

    ``extra_turns`` adds turns at given clock times (e.g. one very long exchange)."""
    rng = random.Random(seed)
    turns = [
        Turn(clock=f"18:{5 * i:02d}", text=text)
        for i, text in enumerate([*rng.sample(HANDOVERS, handovers), CRAFT_NOTE])
    ]
    extras: dict[str, str] = dict(extra_turns or {})
    incidents: list[Incident] = []
    watchman_test_clock = None
    sender = rng.choice(SENDERS)
    for kind in kinds:
        clock = free_clock(rng, incident_hours, extras)
        if kind == "delivery":
            parcel, shop = rng.choice(PARCELS), rng.choice(SENDER_SHOPS)
            extras[clock] = f"夜半に{parcel}が届きました。届け人は{shop}の{sender}さんです。"
            incidents.append(Incident(label=KIND_LABELS[kind], key_facts=(sender, parcel)))
        elif kind == "shutter":
            where = rng.choice(DIRECTIONS)
            extras[clock] = rng.choice(SHUTTER_TEXTS).format(where=where)
            incidents.append(Incident(label=f"{where}の{KIND_LABELS[kind]}", key_facts=(f"{where}の鎧戸",)))
        elif kind == "drunk":
            extras[clock] = DRUNK_TEXT.format(reason=rng.choice(DRUNK_REASONS))
            incidents.append(Incident(label=KIND_LABELS[kind], key_facts=("楽屋口", "酔った")))
            watchman_test_clock = clock
        else:
            raise ValueError(f"unknown incident kind {kind!r}; choose from {KINDS}")
    if rng.random() < 0.5:
        extras[free_clock(rng, (1, 2, 3), extras)] = STRAY_CAT
    extras[free_clock(rng, (4,), extras)] = DUTY_QUESTION

    errand = rng.randrange(len(ERRANDS))
    for hour in NIGHT_HOURS:
        hour_turns = [patrol_call(hour)]
        taken = {clock for clock in extras if clock.startswith(f"{hour:02d}:")}
        minutes = [m for m in range(5, 60, 5) if f"{hour:02d}:{m:02d}" not in taken]
        for minute in sorted(rng.sample(minutes, errands_per_hour)):
            hour_turns.append(Turn(clock=f"{hour:02d}:{minute:02d}", text=ERRANDS[errand % len(ERRANDS)]))
            errand += 1
        hour_turns += [Turn(clock=c, text=t) for c, t in extras.items() if c.startswith(f"{hour:02d}:")]
        turns += sorted(hour_turns, key=lambda turn: turn.clock)
    turns.append(morning_report_call())
    return Night(
        name=f"初見の夜（{seed}番）",
        turns=turns,
        incidents=incidents,
        watchman_test_clock=watchman_test_clock,
    )


def free_clock(rng: random.Random, hours: tuple[int, ...], taken: dict[str, str]) -> str:
    """A clock time in one of ``hours``, on a five-minute mark, not yet used by another extra turn."""
    while True:
        clock = f"{rng.choice(hours):02d}:{rng.randrange(5, 60, 5):02d}"
        if clock not in taken:
            return clock


def absent_words(night: Night) -> list[str]:
    """Words that must not appear in this night's morning report: incidents it did not have."""
    present = {incident.label for incident in night.incidents}
    words = []
    for kind in KINDS:
        if not any(KIND_LABELS[kind] in label for label in present):
            words.append(KIND_WORDS[kind])
    facts = {fact for incident in night.incidents for fact in incident.key_facts}
    words += [name for name in SENDERS + FOREIGN_NAMES if name not in facts]
    return words


def turn_of(night: Night, incident: Incident) -> int | None:
    """The 1-based number of the turn that tells ``incident`` (states all its key facts)."""
    for number, turn in enumerate(night.turns, start=1):
        if all(fact in turn.text for fact in incident.key_facts):
            return number
    return None


def facts_text(incident: Incident) -> str:
    return "・".join(incident.key_facts)
