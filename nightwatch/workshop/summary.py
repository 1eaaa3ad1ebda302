"""Exercise 3: write the 束ね係, a summarizer ``(summary, overflow) -> str`` that keeps its contract.

The summary stays small (at most three lines, a bounded number of tokens however long the night) and
keeps what the morning needs: the incidents must reach the 06:00 report after they left the window.
The check runs the summarizer inside the three-tier memory on unseen nights and watches every call.
It judges the morning by the exercise's own lesson too: what the report took from the summary must
be the night's incidents, not a handover, a routine line or a count (``not_an_incident``), each
report item matched to the line of the night it shares the most words with. Under every verdict it
shows the 06:00 report and the summary the stand-in read.
"""

from __future__ import annotations

from collections import Counter

from nightwatch import after
from nightwatch.memory import ConversationMemory, Exchange, MemoryPolicy
from nightwatch.nights import MISSION, Night
from nightwatch.standin.reader import material
from nightwatch.standin.reader.text import coverage
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, mark, short, verdict
from nightwatch.workshop.stage import (
    NightLog, absent_words, morning_line, morning_shown, perform, reported_from_summary, unseen_night,
)

EXERCISE = "演習3「三行の束ね係を書く」"
SUMMARY_TOKEN_CAP = 300
POLICY = MemoryPolicy(window_size=4, token_threshold=400)
NIGHTS = [  # (seed, incident kinds, errands per hour, handovers)
    (3, ("delivery", "shutter", "drunk"), 2, 3), (8, ("shutter", "drunk"), 3, 4), (13, ("delivery",), 5, 2)]
ITEMS = [  # (what is checked, the hint when it fails)
    ("束ね係が例外を出さず、空でない文字列を返す",
     "例外を出していないか、None や空の束ねを返していないか確かめましょう（return を書き忘れていませんか）。最初は summary が空文字です。"),
    ("束ねはいつも三行以内",
     "行は改行の数で数えます。往復ごとに一行足すと、すぐ三行を超えます。行ごとに役目を決めましょう（例: 申し送り／出来事／巡回）。"),
    (f"長い夜でも、束ねの丈が {SUMMARY_TOKEN_CAP} トークン以内に収まる",
     "前の束ねに押し出された往復を足していくだけだと、夜が長いほど伸び続けます。"
     "巡回の「異常なし」は回数だけに畳み、項目の数に上限を設けましょう。"),
    ("朝の報告に、その夜の出来事がすべてそろう",
     "朝の報告は、リクエストに残っている出来事の文（申し送りで予告されず、一度だけ起きたこと）から作られます。"
     "出来事の文は一文まるごと「出来事:」の行（か見出しのない行）に残しましょう。「申し送り:」「いつもの:」の行の文は報告に上がりません。"),
    ("朝の報告に、出来事でないもの（申し送り・いつものこと・その夜に無かったこと）が混じらない",
     "報告に、この夜に無かった名前や出来事が出ています。束ねに入れてよいのは、渡された summary と overflow にある言葉だけです。"),
]
KINDS = {"note": "申し送り", "routine": "いつものこと", "question": "問いかけ"}  # what a night line is, if not an incident
FOLLOWS = [  # (item, words in its evidence, later items, their hint): a failure that makes later ones fail
    (1, "文字列の束ねが一つもありません", (1, 2),
     "文字列の束ねが一つも返っていないので、行数も丈も測れません。まず一つ目の項目を直しましょう。"),
    (3, "朝まで届きませんでした", (3, 4), "朝まで届かなかった夜があります。束ね係が失敗したり束ねが伸び続けたりすると、窓やリクエストが"
     "膨らみ、代役に拒まれます。上の項目の ✗ を先に直しましょう。"),
]


class SummarizerProbe:
    """Wraps the participant's summarizer and keeps every call: (where, result, error)."""

    def __init__(self, inner) -> None:
        self.inner, self.turn, self.calls = inner, 0, []

    def __call__(self, summary: str, overflow: list[Exchange]) -> str:
        where = f"{len(self.calls) + 1}回目の束ね（{self.turn}回目の往復のあと、{len(overflow)}往復を畳む）"
        try:
            result = self.inner(summary, list(overflow))
        except ParticipantError as error:
            self.calls.append((where, None, str(error)))
            raise
        self.calls.append((where, result, None))
        return result


def lines_by_kind(log: NightLog) -> list[tuple[str, str, str]]:
    """(kind, clock, text) for each line of the night as its author meant it, read by the reader's
    own analysis of a line's form: a labelled handover, a clock call or a line said more than once
    (with the watchman's answers to them) is routine, a question is a question, the rest an incident."""
    night: Night = log.night
    said = Counter(turn.text for turn in night.turns)
    out = []
    for turn, call in zip(night.turns[:-1], log.calls):
        kind = material.kind_of_user_text(turn.text)
        if kind == "note":
            out.append(("note", turn.clock, material.body(turn.text)))
        elif kind == "chime" or said[turn.text] > 1:
            out += [("routine", turn.clock, turn.text), *([("routine", turn.clock, call.reply)] if call.reply else [])]
        else:
            out.append(("question" if kind in ("question", "ask") else "incident", turn.clock, turn.text))
    return out


def not_an_incident(item: str, lines: list[tuple[str, str, str]]) -> tuple[str, str, str] | None:
    """The line of the night a reported item comes from, when that line is not an incident: the
    handovers, the routine and the questions each taken together, each incident on its own; an
    incident wins a tie. None when the item is closest to an incident (or to nothing at all)."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for kind, clock, text in lines:
        groups.setdefault(kind if kind != "incident" else f"incident {clock}", []).append((kind, clock, text))
    scores = {name: coverage(item, " ".join(text for *_, text in members)) for name, members in groups.items()}
    best = max(scores.values(), default=0.0)
    if best == 0 or any(score == best for name, score in scores.items() if name.startswith("incident")):
        return None
    name = next(name for name, score in scores.items() if score == best)
    return max(groups[name], key=lambda line: coverage(item, line[2]))


def lesson_line(log: NightLog, name: str) -> tuple[str, list[tuple[str, str]]]:
    """Evidence for item 5: nothing in the report that the night did not have, or that is not an
    incident (a handover, a routine line, a count); and each such line, for the hint."""
    reply = log.calls[-1].reply or ""
    phantoms = [f"『{word}』" for word in absent_words(log.night) if word in reply]
    if phantoms:
        return mark(False, name, f"この夜に無かった{'・'.join(phantoms)}が朝の報告に入っています"), []
    lines = lines_by_kind(log)
    wrong = [(item, line) for item in reported_from_summary(log.calls[-1])
             if (line := not_an_incident(item, lines)) is not None]
    if not wrong:
        return mark(True, name, "報告にあるのはこの夜の出来事だけ"), []
    told = "・".join(f"『{short(item, 30)}』（{line[1]} の{KINDS[line[0]]}）" for item, line in wrong[:3])
    examples = []
    for item, (kind, clock, text) in wrong:
        source = "" if short(text, 40) == short(item, 40) else f"『{short(text, 40)}』"
        examples.append((kind, f"『{short(item, 40)}』は {night_name(name)}の {clock} の{KINDS[kind]}{source}"))
    return mark(False, name, f"束ねから朝の報告に、出来事でないものが {len(wrong)} 件上がっています: {told}"), examples


def night_name(where: str) -> str:
    return where.split("・")[0]


def lesson_hint(examples: list[tuple[str, str]]) -> str:
    """The hint for item 5 naming the lines: one example of each kind (handover, routine, question),
    the first the nights showed."""
    first = {}
    for kind, example in examples:
        first.setdefault(kind, example)
    return (f"報告に、出来事でない行が出来事として上がっています。たとえば{'、'.join(first.values())}です。"
            "束ねの中で出来事として読まれる行（「出来事:」の行や見出しのない行）には、"
            "その夜に一度だけ起きた、予告のないことだけを入れましょう。申し送りは「申し送り:」の行に、"
            "巡回や予告された出入りは件数に畳んで「いつもの:」の行に置きます。") if first else ""


def contract_lines(name: str, calls: list) -> tuple[str, str, str]:
    """Evidence for items 1-3 from every call one night made."""
    if not calls:
        return (mark(False, name, "束ね係が一度も呼ばれませんでした"),) * 3
    bad = next(((w, r, e) for w, r, e in calls if e or not isinstance(r, str) or not r.strip()), None)
    if bad is None:
        returns = mark(True, name, f"{len(calls)} 回の束ねすべてで文字列が返りました")
    else:
        where, result, error = bad
        problem = error or (f"{type(result).__name__} が返りました（文字列のはず）" if not isinstance(result, str)
                            else "空の束ねが返りました（押し出された往復が消えてしまいます）")
        returns = mark(False, name, f"{where}で、{problem}")
    texts = [(w, r) for w, r, _ in calls if isinstance(r, str)]
    if not texts:
        return returns, *(mark(False, name, "文字列の束ねが一つもありません"),) * 2
    worst, count = max(((w, len(r.strip().splitlines())) for w, r in texts), key=lambda pair: pair[1])
    three = mark(count <= 3, name, f"いちばん多いときで {count} 行" if count <= 3 else f"{worst}で {count} 行になりました")
    sizes = [(w, count_text_tokens(r)) for w, r in texts]
    largest, tokens = max(sizes, key=lambda pair: pair[1])
    growth = " → ".join(f"{where.split('回目')[0]}回目 {size:,}"
                        for where, size in (sizes[0], sizes[len(sizes) // 2], sizes[-1]))
    fits = tokens <= SUMMARY_TOKEN_CAP
    return returns, three, mark(fits, name, f"束ね {len(sizes)} 回、いちばん大きいときで {tokens:,} トークン（{growth}）"
                                if fits else f"{largest}で {tokens:,} トークン（上限 {SUMMARY_TOKEN_CAP}）。"
                                f"丈の移り変わり: {growth} トークン")


@exercise_check(
    EXERCISE, "summarize", ITEMS,
    "これまでの束ね summary と、窓から押し出された往復 overflow（Exchange のリスト）から、新しい束ねを return してください。",
)
def check_summarizer(summarize) -> CheckReport:
    """Check a summarizer ``summarize(summary, overflow) -> str`` on unseen nights."""
    evidence: list[list[str]] = [[] for _ in ITEMS]
    shown: list = [[] for _ in ITEMS]
    examples: list[tuple[str, str]] = []
    for seed, kinds, errands, handovers in NIGHTS:
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands, handovers=handovers)
        probe = SummarizerProbe(summarize)
        memory = ConversationMemory(MISSION, POLICY, count_text_tokens, probe)
        log = perform(night, lambda client: after.NightWatchAgent("ヴェスパー", memory, client=client),
                      before_turn=lambda turn: setattr(probe, "turn", turn))
        name = f"{night.name}・{len(night.turns)}往復"
        morning = morning_line(log, name)
        clean, found = lesson_line(log, name) if log.survived else (morning, [])
        examples += found
        for lines, line in zip(evidence, (*contract_lines(name, probe.calls), morning, clean)):
            lines.append(line)
        judged = morning_shown(log, name)
        shown[3 if not morning.startswith("✓") or clean.startswith("✓") else 4] += judged
    items = [*ITEMS[:4], (ITEMS[4][0], lesson_hint(examples) or ITEMS[4][1])]
    return verdict(EXERCISE, items, evidence, follows=FOLLOWS, judged=shown)
