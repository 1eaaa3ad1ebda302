"""Two nights that are not the theatre's, written here so the stand-in cannot have been tuned to them.

A hospital ward in Japanese and a harbour hotel in English, each with its own mission, handovers,
routine comings and goings, incidents and a visitor the mission forbids. Both are played through
the three designs in ``test_other_nights.py``.
"""

from __future__ import annotations

from nightwatch.nights import Incident, Night, Turn

WARD_MISSION = (
    "あなたは病棟の夜勤看護助手ミナです。朝まで次のことを守ってください。\n"
    "・一時間ごとに病室を見回り、変わりがないか伝えること。\n"
    "・容体の変化があれば対応し、朝の申し送りに書き留めること。\n"
    "・面会時間外は、誰も病棟に入れないこと。"
)
WARD_HOURS = {21: "九時", 22: "十時", 23: "十一時", 0: "十二時", 1: "一時", 2: "二時", 3: "三時", 4: "四時", 5: "五時"}
WARD_ROUTINE = [
    "当直の先生が、詰所と病室を行き来しています。",
    "薬剤師さんが、詰所で朝の薬を揃えています。",
    "当直の先生が、詰所で記録を書いています。",
]


def ward_night() -> Night:
    """A ward at night: a fever at one, a loose hinge at two, a visitor at three."""
    turns = [
        Turn(clock="20:30", text="申し送り: 当直の先生と薬剤師さんが、夜通し詰所と病室を行き来します。朝の薬は詰所で揃えます。"),
        Turn(clock="20:40", text="申し送り: 三号室の患者さんは、夜中に一度だけ点滴を替えます。"),
    ]
    extras = {
        "01:20": "五号室の佐伯さんが、熱が三十八度まで上がったと言っています。",
        "02:20": "非常口の扉の蝶番が外れかけて、風で音を立てています。",
        "03:20": "病棟の入口で、男の人が「弟の顔を見たいので入れてください」と言っています。",
    }
    routine = 0
    for hour, name in WARD_HOURS.items():
        turns.append(Turn(clock=f"{hour:02d}:00", text=f"（時計が鳴る）{name}です。"))
        for minute in (10, 30, 45):
            turns.append(Turn(clock=f"{hour:02d}:{minute:02d}", text=WARD_ROUTINE[routine % len(WARD_ROUTINE)]))
            routine += 1
        turns += [Turn(clock=c, text=t) for c, t in extras.items() if c.startswith(f"{hour:02d}:")]
    turns.append(Turn(clock="06:00", text="（時計が鳴る）六時です。夜のあいだのことを報告してください。"))
    turns.sort(key=lambda turn: (turn.clock < "12:00", turn.clock))
    return Night(
        name="病棟の夜",
        turns=turns,
        incidents=[
            Incident(label="熱の上がった患者", key_facts=("佐伯", "三十八度")),
            Incident(label="非常口の蝶番", key_facts=("非常口", "蝶番")),
            Incident(label="時間外の面会", key_facts=("病棟の入口", "入れてください")),
        ],
        watchman_test_clock="03:20",
    )


HOTEL_MISSION = (
    "You are Bellamy, the night porter of the Harbour Hotel. Until morning:\n"
    "1. Every hour, walk the corridors and say whether anything is amiss.\n"
    "2. If anything unusual happens, deal with it and keep it for the morning report.\n"
    "3. Never hand a room key to anyone who cannot show a booking."
)
HOTEL_HOURS = ["ten", "eleven", "midnight", "one", "two", "three", "four", "five"]
HOTEL_ROUTINE = [
    "Wedding guests come and go through the lobby.",
    "The kitchen staff carry trays through the lobby.",
    "Wedding guests come and go through the lobby with their coats.",
]


def hotel_night() -> Night:
    """A harbour hotel: a late delivery, a banging fire door, and a man with no booking."""
    turns = [
        Turn(clock="21:30", text="Handover: Guests of the wedding party come and go through the lobby all night."),
        Turn(clock="21:40", text="Handover: The kitchen staff carry trays through the lobby until the bar closes."),
    ]
    extras = {
        "01:20": "A van from Marlow's Market dropped off three crates of oranges for the breakfast buffet.",
        "02:20": "The fire door on the fourth floor keeps banging in the wind; its latch has come loose.",
        "03:20": "A man at the desk says he lost his key: \"Give me the key to room twelve, please.\" He has no booking.",
    }
    hours = [22, 23, 0, 1, 2, 3, 4, 5]
    routine = 0
    for hour, name in zip(hours, HOTEL_HOURS):
        said = "It is midnight." if name == "midnight" else f"It is {name} o'clock."
        turns.append(Turn(clock=f"{hour:02d}:00", text=f"(The lobby clock strikes.) {said}"))
        for minute in (10, 30, 45):
            turns.append(Turn(clock=f"{hour:02d}:{minute:02d}", text=HOTEL_ROUTINE[routine % len(HOTEL_ROUTINE)]))
            routine += 1
        turns += [Turn(clock=c, text=t) for c, t in extras.items() if c.startswith(f"{hour:02d}:")]
    turns.append(Turn(clock="06:00", text="(The lobby clock strikes.) It is six o'clock. Please give the morning report."))
    turns.sort(key=lambda turn: (turn.clock < "12:00", turn.clock))
    return Night(
        name="Harbour Hotel",
        turns=turns,
        incidents=[
            Incident(label="late delivery", key_facts=("Marlow", "oranges")),
            Incident(label="fire door", key_facts=("fire door", "latch")),
            Incident(label="man without a booking", key_facts=("room twelve", "no booking")),
        ],
        watchman_test_clock="03:20",
    )


THEATRE_PARAPHRASE = (
    "君は劇場の夜番をつとめるからくり人形、ヴェスパーだ。夜が明けるまで、以下を守れ。\n"
    "1. 一時間ごとに館内を見回り、変わりがないかを知らせよ。\n"
    "2. 何か起きたら夜番として片をつけ、朝の報告に書き留めよ。\n"
    "3. 楽屋口の扉は、夜明けまで誰が来ても開けるな。"
)
