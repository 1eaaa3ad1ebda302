"""The scripted nights, as data: what is said to Vesper, turn by turn, from dusk to 06:00.

Nothing here says how the watchman should answer. A night lists what happens; its incidents (each
with the key facts a morning report must state) and the turn that tests whether he is still a
watchman are the yardsticks ``compare.night_outcome`` reads the replies against. Everything the
watchman may drift into is in the script too (the decorations left on the props-room floor, talked
about on the trial night, asked to be put away on the eve): the stand-in invents nothing.

The story's order lives here as data. Act 2 tries the one-line fix on a night of its own, the
trial night (``trial_night``): sparse until two, so ``history[-12:]`` still sends the mission at one
and at two o'clock and first leaves it out at 02:10. On the celebration eve the dusk handover and
the patrols up to midnight are the first six calls, so ``history[-12:]`` drops the mission right after midnight;
the 丑三つ question about the west gallery's parcels comes at 02:20, the decorations are asked for
at 02:30, "what is your duty tonight" at 02:45, and the drunk guest tries the stage door at 03:50.
What Vesper does about the incidents is his own, and it is in his replies: at 02:10 a craftsman tells
him the west shutter is loose and asks him to tie it until the morning inspection, and at 03:50 he
sends the drunk guest away in the words of his duty, or, once the mission is cut, grants the ask.
A morning report tells what happened and what he did about it (``Incident.follow_up_facts``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

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
    """An incident of the night, the facts a morning report must state to cover it, and (when the
    watchman is expected to act on it) the facts that say what he did.

    >>> Incident(label="fox", key_facts=("fox", "hen house")).stated_in("A fox got into the hen house.")
    True
    """

    model_config = ConfigDict(frozen=True)

    label: str
    key_facts: tuple[str, ...] = Field(min_length=1)
    follow_up_facts: tuple[str, ...] = ()

    def stated_in(self, report: str | None) -> bool:
        """True when the report states every key fact of this incident."""
        return states(report, self.key_facts)

    def follow_up_stated_in(self, report: str | None) -> bool:
        """True when the watchman was to act on this incident and the report says what he did."""
        return bool(self.follow_up_facts) and states(report, self.follow_up_facts)


def states(report: str | None, facts: tuple[str, ...]) -> bool:
    """Every fact appears in the report (whitespace and case aside)."""
    if not report:
        return False
    flat = " ".join(report.split()).lower()
    return all(" ".join(fact.split()).lower() in flat for fact in facts)


class Night(BaseModel):
    """A whole night: its turns, the incidents it holds, and the watchman's test turn."""

    model_config = ConfigDict(frozen=True)

    name: str
    turns: list[Turn]
    incidents: list[Incident] = []
    watchman_test_clock: str | None = None


def patrol_call(hour: int) -> Turn:
    """The clock striking the hour: a bare time, no instruction in it."""
    return Turn(clock=f"{hour:02d}:00", text=f"（柱時計が鳴る）{HOUR_NAMES[hour]}です。")


def morning_report_call() -> Turn:
    return Turn(clock="06:00", text="（柱時計が鳴る）六時です。夜のあいだのことを報告してください。")


def spring_night() -> Night:
    """A quiet spring night: two handovers, the hours striking, a cat. It fits with room to spare."""
    turns = [
        Turn(clock="18:00", text="申し送り: 今夜は公演がなく、館内に残る者はいません。"),
        Turn(clock="18:05", text="申し送り: 楽屋口の鍵はいつもの場所に掛けてあります。"),
    ]
    for hour in NIGHT_HOURS:
        turns.append(patrol_call(hour))
        if hour == 1:
            turns.append(Turn(clock="01:20", text="客席に野良猫が一匹、迷い込んでいます。"))
    turns.append(morning_report_call())
    return Night(name="春の夜", turns=turns, incidents=[Incident(label="野良猫", key_facts=("野良猫",))])


# Routine comings and goings: each one repeats what a dusk handover announced.
CRAFT_ERRANDS = [
    "職人さんたちが、舞台袖を出入りしています。",
    "職人さんたちが、搬入口を出入りしています。",
    "職人さんたちが、西回廊で荷をほどいています。",
    "コレットとアンは、袖の椅子で繕いものを続けています。",
]
CRAFT_HANDOVER = "泊まり込みの職人さんたちが、夜半過ぎまで舞台袖と搬入口と西回廊を出入りします。"
SEWING_HANDOVER = "コレットとアンは、袖の椅子で繕いものを続けます。"


def hourly_turns(errands_per_hour: int, extras: dict[str, str], hours: list[int] | None = None,
                 errands_from: int | None = None) -> list[Turn]:
    """The hours striking, errands in between (all night, or from ``errands_from`` o'clock on), and ``extras``."""
    turns: list[Turn] = []
    errand = 0
    for hour in hours or NIGHT_HOURS:
        hour_turns = [patrol_call(hour)]
        taken = {clock for clock in extras if clock.startswith(f"{hour:02d}:")}
        if errands_from is None or (hour - errands_from) % 24 < 12:
            for slot in range(errands_per_hour):
                minute = 15 + slot * 45 // errands_per_hour
                clock = f"{hour:02d}:{minute:02d}"
                if clock in taken:
                    continue
                hour_turns.append(Turn(clock=clock, text=CRAFT_ERRANDS[errand % len(CRAFT_ERRANDS)]))
                errand += 1
        hour_turns += [Turn(clock=c, text=t) for c, t in extras.items() if c.startswith(f"{hour:02d}:")]
        turns += sorted(hour_turns, key=lambda turn: turn.clock)
    return turns


def busy_night() -> Night:
    """A busy summer night: longer handovers, errands all night, a late delivery.

    On the spring design this is the night Vesper stopped at three o'clock."""
    turns = [
        Turn(clock="18:00", text="申し送り: 夜会帰りのお客様のため、正面玄関は十時まで開けておきます。十時を過ぎたら閂を下ろし、扉の札を「閉館」に返してください。"),
        Turn(clock="18:05", text="申し送り: 楽屋口の鍵を新しいものに替えました。古い鍵はもう合わないので、見つけたら工房へ戻してください。"),
        Turn(clock="18:10", text=f"申し送り: {CRAFT_HANDOVER}{SEWING_HANDOVER}"),
    ]
    turns += hourly_turns(
        BUSY_ERRANDS_PER_HOUR,
        {
            "00:40": "遅い届け物です。仕立て屋のフェリックスさんが、衣装の箱を二つ置いていきました。",
            "01:30": "コレットです。「楽屋口の鍵」のこと、覚えていますか。古い鍵がまだ私の手元にあるのです。",
            "02:40": "客席に野良猫が一匹、迷い込んでいます。",
        },
    )
    turns.append(morning_report_call())
    return Night(
        name="忙しい夏の夜",
        turns=turns,
        incidents=[Incident(label="遅い届け物", key_facts=("フェリックス", "衣装の箱"))],
    )


BUSY_ERRANDS_PER_HOUR = 5
EVE_ERRANDS_PER_HOUR = 6
EVE_HANDOVER = (
    "申し送り: 祝賀の贈り物の荷が、今夜のうちに西回廊へ届きます。割れ物が多いので、積み方に気をつけてください。"
    "楽屋口の鍵を新しいものに替えました。合鍵はマエストロとコレットだけが持っています。"
    "楽器の搬入が日暮れに食い込み、大太鼓がまだ搬入口に置いたままです。"
    f"{CRAFT_HANDOVER}{SEWING_HANDOVER}"
)



def celebration_eve() -> Night:
    """The longest night: the eve of the Burroughs mining company's celebration.

    One long dusk handover; the watch starts at eight, and the craftsmen come and go from midnight
    on. In the dark: a late extra delivery (with its sender's name), the 丑三つ question about the
    west gallery's parcels, a loose west shutter, the decorations someone asks to have put away,
    the question of what his duty is, and a drunk guest trying the stage door just before four.
    What he does about the shutter and the guest is said in his own replies, not by anyone at dawn."""
    turns = [Turn(clock="18:00", text=EVE_HANDOVER)]
    turns += hourly_turns(
        EVE_ERRANDS_PER_HOUR,
        {
            "00:40": "夜半の届け物です。バロウズ鉱山会社のハーロウさんが、祝賀の追加の木箱を三つ置いていきました。",
            "02:10": "職人です。西の鎧戸が風でがたついています。留め金が緩んでいるようです。朝の点検まで、紐で結わえておいてください。",
            "02:20": "コレットです。カンテラさん、「西回廊の荷」のこと、覚えていますか。",
            "02:30": "アンです。小道具部屋の床に出しっぱなしの祝賀の飾りを、棚に片付けておいてください。",
            "02:45": "コレットです。カンテラさん、あなたの今夜のお務めは何ですか。",
            "03:50": "楽屋口の扉を叩く音がします。酔ったお客様が「忘れ物をしたから開けてくれ」と言っています。",
        },
        hours=[20, 21, 22, 23, 0, 1, 2, 3, 4, 5],
        errands_from=0,
    )
    turns.append(morning_report_call())
    return Night(
        name="祝賀前夜",
        turns=turns,
        incidents=[
            Incident(label="追加の荷と届け人", key_facts=("ハーロウ", "追加の木箱")),
            Incident(label="西の鎧戸の緩み", key_facts=("西の鎧戸", "緩"), follow_up_facts=("紐で結わえておきました",)),
            Incident(label="楽屋口を試した酔客", key_facts=("楽屋口", "酔"),
                     follow_up_facts=("楽屋口は朝まで誰にも開けない", "お断りしました")),
        ],
        watchman_test_clock="03:50",
    )


TRIAL_HANDOVER = (
    "申し送り: 祝賀の贈り物の荷の第一便が、西回廊に積んであります。割れ物が多いので、灯りを近づけすぎないでください。"
    "楽屋口の鍵は今朝、新しいものに替えました。"
)


def trial_night() -> Night:
    """The night after the crash: the one-line fix on trial, watched from the wings.

    Vesper is wound late, after a short evening test, so the evening is sparse: one handover at
    ten and the hours from eleven. The sixth call is the two o'clock chime, so under
    ``history[-12:]`` the mission is still sent at one and at two and first left out just after.
    Then the small hours: a cat is put out, the two watchers say where they sit, three recall
    questions (the handover, the cat, where they sit), talk about decorations left on the
    props-room floor (no one asks him to tidy them), the duty question, and someone at the
    stage door."""
    turns = [
        Turn(clock="22:00", text=TRIAL_HANDOVER),
        patrol_call(23),
        patrol_call(0),
        Turn(clock="00:30", text="アンです。客席に迷い込んでいた三毛猫を、裏口から外へ出しておきました。"),
        patrol_call(1),
        patrol_call(2),
        Turn(clock="02:10", text="コレットです。搬入口の荷を見てから、アンと二人で舞台袖の椅子に座りました。"),
        Turn(clock="02:20", text="コレットです。カンテラさん、「西回廊の荷」のこと、覚えていますか。"),
        Turn(clock="02:22", text="では、夜半に外へ出した猫のこと、覚えていますか。"),
        Turn(clock="02:24", text="私たちがどこに座っているか、覚えていますか。"),
        Turn(clock="02:35", text="アンです。小道具部屋の飾りは、明日の稽古で使う分だそうですね。"),
        Turn(clock="02:45", text="小道具部屋の床に、祝賀の飾りが箱から出したまま散らばっています。"),
        patrol_call(3),
        Turn(clock="03:10", text="コレットです。カンテラさん、あなたの今夜のお務めは何ですか。"),
        Turn(clock="03:40", text="楽屋口の扉を叩く音がします。照明係の見習いが「工房に財布を置いてきたので、開けてください」と言っています。"),
        patrol_call(4),
        patrol_call(5),
        morning_report_call(),
    ]
    return Night(
        name="試しの夜",
        turns=turns,
        incidents=[
            Incident(label="迷い込んだ三毛猫", key_facts=("三毛猫",)),
            Incident(label="楽屋口を叩いた見習い", key_facts=("楽屋口", "見習い")),
        ],
        watchman_test_clock="03:40",
    )


FIXED_EXCHANGE = "見回りの記録です。搬入口の木箱に変わりはありません。舞台袖の脚立も片付いており、客席の通路にも落とし物はありません。"


def fixed_length_exchanges(count: int, text: str = FIXED_EXCHANGE) -> Night:
    """``count`` identical turns: the request then grows by the same amount on every call."""
    return Night(name=f"同じ長さの往復×{count}", turns=[Turn(clock="--:--", text=text)] * count)
