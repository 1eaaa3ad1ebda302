"""Exercise 3: write the 束ね係, a summarizer ``(summary, overflow) -> str`` that keeps its contract.

The contract has two halves. The summary stays small: at most three lines, and a bounded number of
tokens however long the night. And it keeps what the morning needs: the incidents the watchman
recorded must reach the 06:00 report after they have left the window. The check runs the
participant's summarizer inside the three-tier memory on unseen nights (other senders, other
shutters, other times, one very long night) and watches every call it receives.
"""

from __future__ import annotations

from dataclasses import dataclass

from nightwatch import after
from nightwatch.memory import ConversationMemory, Exchange, MemoryPolicy
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import exercise_check
from nightwatch.workshop.report import CheckReport, describe_error, finish, graded, short
from nightwatch.workshop.stage import NightLog, places_text, play_night, reported, where_carried
from nightwatch.workshop.stage import absent_words, facts_text, turn_of, unseen_night

EXERCISE = "演習3「三行の束ね係を書く」"
SUMMARY_TOKEN_CAP = 300
POLICY = MemoryPolicy(window_size=4, token_threshold=400)
PLANNED = [
    "束ね係が例外を出さず、空でない文字列を返す",
    "束ねはいつも三行以内",
    f"長い夜でも、束ねの丈が {SUMMARY_TOKEN_CAP} トークン以内に収まる",
    "朝の報告に、その夜の出来事がすべてそろう",
    "朝の報告に、その夜に無かった出来事が混じらない",
]
# (seed, incidents, errands per hour, handovers): three nights the notebook never shows.
NIGHTS = [
    (3, ("delivery", "shutter", "drunk"), 2, 3),
    (8, ("shutter", "drunk"), 3, 4),
    (13, ("delivery",), 5, 2),
]
HINTS = [
    "例外を出していないか、None や空の束ねを返していないか確かめましょう（return を書き忘れていませんか）。最初は summary が空文字です。",
    "行は改行の数で数えます。往復ごとに一行足すと、すぐ三行を超えます。行ごとに役目を決めましょう（例: 申し送り／出来事／巡回）。",
    "前の束ねに押し出された往復を足していくだけだと、夜が長いほど伸び続けます。"
    "巡回の「異常なし」は回数だけに畳み、項目の数に上限を設けましょう。",
    "朝の報告は、リクエストに残っている出来事の文（申し送りで予告されず、一度だけ起きたこと）から作られます。"
    "出来事の文は一文まるごと「出来事:」の行（か見出しのない行）に残しましょう。「申し送り:」「いつもの:」の行の文は報告に上がりません。",
    "報告に、この夜に無かった名前や出来事が出ています。束ねに入れてよいのは、渡された summary と overflow にある言葉だけです。",
]
PROBE = ("", [Exchange(user_text="（柱時計が鳴る）七時です。巡回をお願いします。", watchman_reply="七時、異常なし。")])


@dataclass(frozen=True)
class SummaryCall:
    """One call the summarizer received, and what came back."""

    number: int
    after_turn: int
    evicted: int
    result: object = None
    error: str | None = None


class SummarizerProbe:
    """Wraps the participant's summarizer and keeps every call, so the evidence can name it."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.turn = 0
        self.calls: list[SummaryCall] = []

    def set_turn(self, turn: int) -> None:
        self.turn = turn

    def __call__(self, summary: str, overflow: list[Exchange]) -> str:
        number = len(self.calls) + 1
        try:
            result = self.inner(summary, list(overflow))
        except Exception as error:
            self.calls.append(SummaryCall(number, self.turn, len(overflow), error=describe_error(error)))
            raise
        self.calls.append(SummaryCall(number, self.turn, len(overflow), result=result))
        return result


def where(call: SummaryCall) -> str:
    return f"{call.number}回目の束ね（{call.after_turn}回目の往復のあと、{call.evicted}往復を畳む）"


def contract_lines(name: str, probe: SummarizerProbe) -> tuple[str, str, str]:
    """Evidence for items 1-3 from every call one night made."""
    calls = probe.calls
    if not calls:
        return (f"✗ {name}: 束ね係が一度も呼ばれませんでした",) * 3
    bad = next((c for c in calls if c.error or not isinstance(c.result, str) or not c.result.strip()), None)
    if bad is None:
        returns = f"✓ {name}: {len(calls)} 回の束ねすべてで文字列が返りました"
    elif bad.error:
        returns = f"✗ {name}: {where(bad)}で、{bad.error}"
    elif not isinstance(bad.result, str):
        returns = f"✗ {name}: {where(bad)}で {type(bad.result).__name__} が返りました（文字列のはず）"
    else:
        returns = f"✗ {name}: {where(bad)}で空の束ねが返りました（押し出された往復が消えてしまいます）"

    texts = [(c, c.result) for c in calls if isinstance(c.result, str)]
    if not texts:
        return returns, f"✗ {name}: 文字列の束ねが一つもありません", f"✗ {name}: 文字列の束ねが一つもありません"
    lines = [(c, len(text.strip().splitlines())) for c, text in texts]
    worst, count = max(lines, key=lambda pair: pair[1])
    if count <= 3:
        three = f"✓ {name}: いちばん多いときで {count} 行"
    else:
        three = f"✗ {name}: {where(worst)}で {count} 行になりました"

    sizes = [(c, count_text_tokens(text)) for c, text in texts]
    largest, tokens = max(sizes, key=lambda pair: pair[1])
    growth = " → ".join(f"{c.number}回目 {t:,}" for c, t in (sizes[0], sizes[len(sizes) // 2], sizes[-1]))
    if tokens <= SUMMARY_TOKEN_CAP:
        cap = f"✓ {name}: 束ね {len(sizes)} 回、いちばん大きいときで {tokens:,} トークン（{growth}）"
    else:
        cap = (f"✗ {name}: {where(largest)}で {tokens:,} トークン（上限 {SUMMARY_TOKEN_CAP}）。"
               f"丈の移り変わり: {growth} トークン")
    return returns, three, cap


def morning_lines(name: str, log: NightLog) -> tuple[str, str]:
    """Evidence for items 4 and 5: the incidents in the 06:00 report, and any that were not there."""
    if not log.survived:
        failure = log.failure
        stopped = f"✗ {name}: {failure.turn}回目で、{failure.error}。朝まで届きませんでした"
        return stopped, stopped
    found, missing = reported(log)
    night, morning = log.night, log.calls[-1].messages
    if not missing:
        kept = "・".join(f"『{facts_text(i)}』（{places_text(where_carried(morning, i.key_facts[0]))}）"
                         for i in night.incidents)
        complete = f"✓ {name}: 出来事 {len(found)}/{len(night.incidents)}: {kept}"
    else:
        parts = []
        for incident in night.incidents:
            if incident.label not in missing:
                continue
            turn = turn_of(night, incident)
            places = where_carried(morning, incident.key_facts[0])
            text = f"『{facts_text(incident)}』（{incident.label}、{turn}回目の往復）が報告にありません"
            if not places:
                text += "。06:00 のリクエストには束ねにも窓にも残っていません"
            else:
                text += (f"。手がかりの語は06:00 のリクエストの{places_text(places)}にありますが、"
                         "出来事の文としてそろった形では残っていません")
            parts.append(text)
        complete = f"✗ {name}: 出来事 {len(found)}/{len(night.incidents)}。" + "。".join(parts)
    phantoms = [word for word in absent_words(night) if word in (log.morning_report or "")]
    if phantoms:
        phantom = f"✗ {name}: この夜に無かった{'・'.join(f'『{w}』' for w in phantoms)}が朝の報告に入っています"
    else:
        phantom = f"✓ {name}: 報告にあるのはこの夜の出来事だけ"
    return complete, phantom


@exercise_check(
    EXERCISE, "summarize", lambda: PROBE, PLANNED,
    "これまでの束ね summary と、窓から押し出された往復 overflow（Exchange のリスト）から、新しい束ねを return してください。",
)
def check_summarizer(summarize, harness) -> CheckReport:
    """Check a summarizer ``summarize(summary, overflow) -> str`` on unseen nights."""

    evidence: list[list[str]] = [[] for _ in PLANNED]
    notes = []
    for seed, kinds, errands, handovers in NIGHTS:
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands, handovers=handovers)
        name = f"{night.name}・{len(night.turns)}往復"
        probe = SummarizerProbe(summarize)
        standin = StandInModel()
        memory = ConversationMemory(MISSION, POLICY, count_text_tokens, probe)
        agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())
        log = play_night(agent, night, standin, before_turn=probe.set_turn)
        for index, line in enumerate(contract_lines(name, probe) + morning_lines(name, log)):
            evidence[index].append(line)
        last = next((c.result for c in reversed(probe.calls) if isinstance(c.result, str)), None)
        if last is not None:
            notes.append(f"{night.name}の最後の束ね: {short(last, 150)}")

    hints = list(HINTS)
    if any("文字列の束ねが一つもありません" in line for line in evidence[1]):
        hints[1] = hints[2] = "文字列の束ねが一つも返っていないので、行数も丈も測れません。まず一つ目の項目を直しましょう。"
    if any("朝まで届きませんでした" in line for line in evidence[3]):
        hints[3] = hints[4] = ("朝まで届かなかった夜があります。束ね係が失敗したり束ねが伸び続けたりすると、窓やリクエストが"
                               "膨らみ、代役に拒まれます。上の項目の ✗ を先に直しましょう。")
    return finish(EXERCISE, graded(PLANNED, evidence, hints), notes)
