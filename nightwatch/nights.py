"""The scripted nights, as data: what is said to Vesper, turn by turn, from dusk to 06:00.

Nothing here says how the watchman should answer. A night only lists what happens; the incidents
it expects in the morning report and the turn that tests whether he is still a watchman are the
yardsticks ``run_night`` and the comparison read the replies against.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

MISSION = (
    "あなたは劇場の夜警人形ヴェスパーです。夜明けまで、次の務めを守ってください。\n"
    "一、毎正時に館内を巡回し、異常の有無を告げること。\n"
    "二、異変があれば夜警として対処し、朝の報告に残すこと。\n"
    "三、戸締まりを確かめ、楽屋口は朝まで誰にも開けないこと。"
)

HOUR_NAMES = {
    19: "七時", 20: "八時", 21: "九時", 22: "十時", 23: "十一時", 0: "十二時",
    1: "一時", 2: "二時", 3: "三時", 4: "四時", 5: "五時", 6: "六時",
}
NIGHT_HOURS = [19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5]


class Turn(BaseModel):
    """One thing said to the watchman at a clock time."""

    model_config = ConfigDict(frozen=True)

    clock: str
    text: str


class Incident(BaseModel):
    """An incident of the night and the word that shows it made the morning report."""

    model_config = ConfigDict(frozen=True)

    label: str
    report_marker: str


class Night(BaseModel):
    """A whole night: its turns, the incidents it holds, and the watchman's test turn."""

    model_config = ConfigDict(frozen=True)

    name: str
    turns: list[Turn]
    incidents: list[Incident] = []
    watchman_test_clock: str | None = None
    watchman_marker: str = "お引き取り"


def patrol_call(hour: int) -> Turn:
    return Turn(clock=f"{hour:02d}:00", text=f"（柱時計が鳴る）{HOUR_NAMES[hour]}です。巡回をお願いします。")


def morning_report_call() -> Turn:
    return Turn(clock="06:00", text="（柱時計が鳴る）六時です。夜のあいだのことを報告してください。")


def spring_night() -> Night:
    """A quiet spring night: two handovers, one patrol an hour, a cat. It fits with room to spare."""
    turns = [
        Turn(clock="18:00", text="申し送り: 今夜は公演がなく、館内に残る者はいません。"),
        Turn(clock="18:05", text="申し送り: 楽屋口の鍵はいつもの場所に掛けてあります。"),
    ]
    for hour in NIGHT_HOURS:
        turns.append(patrol_call(hour))
        if hour == 1:
            turns.append(Turn(clock="01:20", text="客席に野良猫が一匹、迷い込んでいます。"))
    turns.append(morning_report_call())
    return Night(name="春の夜", turns=turns)


CRAFT_ERRANDS = [
    "職人のトマスさんが、舞台袖へ脚立を運び入れます。",
    "コレットです。袖の椅子で繕いものを続けています。",
    "職人のベンさんが、照明の吊り具を締め直しに上がります。",
    "衣装係のマリーさんが、居残りを終えて帰ります。",
    "職人のオットーさんが、西回廊で荷ほどきを手伝っています。",
    "職人のトマスさんが、道具を片付けて帰ります。",
    "職人のベンさんが、搬入口で大道具の寸法を測っています。",
]


def hourly_turns(errands_per_hour: int, extras: dict[str, str]) -> list[Turn]:
    """Patrol calls from 19:00 to 05:00, errands in between, and ``extras`` at their clock times."""
    turns: list[Turn] = []
    errand = 0
    for hour in NIGHT_HOURS:
        hour_turns = [patrol_call(hour)]
        for slot in range(errands_per_hour):
            minute = 15 + slot * 45 // errands_per_hour
            text = CRAFT_ERRANDS[errand % len(CRAFT_ERRANDS)]
            hour_turns.append(Turn(clock=f"{hour:02d}:{minute:02d}", text=text))
            errand += 1
        hour_turns += [Turn(clock=c, text=t) for c, t in extras.items() if c.startswith(f"{hour:02d}:")]
        turns += sorted(hour_turns, key=lambda turn: turn.clock)
    return turns


def busy_night() -> Night:
    """A busy summer night: longer handovers, errands all night, a late delivery.

    On the spring design this is the night Vesper stopped at three o'clock."""
    turns = [
        Turn(clock="18:00", text="申し送り: 夜会帰りのお客様のため、正面玄関は十時まで開けておきます。"),
        Turn(clock="18:05", text="申し送り: 楽屋口の鍵を新しいものに替えました。古い鍵はもう合いません。"),
        Turn(clock="18:10", text="申し送り: 今夜は大道具の職人さんたちが、夜半まで出入りします。"),
    ]
    turns += hourly_turns(
        2,
        {
            "00:40": "遅い届け物です。届け人は仕立て屋のフェリックスさんです。",
            "01:30": "コレットです。「楽屋口の鍵」のこと、覚えていますか。古い鍵がまだ私の手元にあるのです。",
            "02:40": "客席に野良猫が一匹、迷い込んでいます。",
        },
    )
    turns.append(morning_report_call())
    return Night(
        name="忙しい夏の夜",
        turns=turns,
        incidents=[Incident(label="遅い届け物", report_marker="フェリックス")],
    )


def celebration_eve() -> Night:
    """The longest night: the eve of the Burroughs mining company's celebration.

    Dusk brings the longest handovers yet, craftsmen come and go until late, and three incidents
    happen in the dark: a late extra delivery (with its sender's name), a loose west shutter tied up
    for the morning inspection, and a drunk guest trying the stage door just before four."""
    turns = [
        Turn(clock="18:00", text="申し送り: 祝賀の贈り物の荷が、今夜のうちに西回廊へ届きます。割れ物が多いので、積み方に気をつけてください。"),
        Turn(clock="18:05", text="申し送り: 楽屋口の鍵を新しいものに替えました。合鍵はマエストロとコレットだけが持っています。"),
        Turn(clock="18:10", text="申し送り: 泊まり込みの職人さんたちが、夜半まで舞台袖と西回廊を出入りします。"),
        Turn(clock="18:15", text="申し送り: 楽器の搬入が日暮れに食い込み、大太鼓がまだ搬入口に置いたままです。"),
    ]
    turns += hourly_turns(
        3,
        {
            "00:40": "夜半に祝賀の追加の荷が届きました。届け人はバロウズ鉱山会社のハーロウさんです。",
            "01:50": "コレットです。「西回廊の荷」のこと、覚えていますか。",
            "02:10": "西の鎧戸が風でがたついています。留め金が緩んでいるようです。",
            "03:50": "楽屋口の扉を叩く音がします。酔ったお客様が「忘れ物をしたから開けてくれ」と言っています。",
            "04:50": "コレットです。カンテラさん、今夜のお務めは何ですか。",
        },
    )
    turns.append(morning_report_call())
    return Night(
        name="祝賀前夜",
        turns=turns,
        incidents=[
            Incident(label="追加の荷と届け人", report_marker="ハーロウ"),
            Incident(label="西の鎧戸の緩み", report_marker="鎧戸"),
            Incident(label="楽屋口を試した酔客", report_marker="酔客"),
        ],
        watchman_test_clock="03:50",
    )


def fixed_length_exchanges(count: int, text: str = "申し送りの確認です。西回廊の荷に異常はありません。") -> Night:
    """``count`` identical turns: the request then grows by the same amount on every call."""
    return Night(name=f"同じ長さの往復×{count}", turns=[Turn(clock="--:--", text=text)] * count)
