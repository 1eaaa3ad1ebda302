"""Exercise 7: ``choose_clearing(results_per_round, tokens_per_result, policy) -> (keep, clear_at_least)``.

The participant picks ``keep_tool_results`` and ``clear_at_least`` for a tool night from what the
night's tools return and the memory's budget. The check plays the choice on unseen tool nights (other
doors, so another number of results per round, other verbosity, another window), each beside the
same night without clearing, and judges what happened, never a right answer worked out here: the
night reaches dawn and the morning report has the incident only a tool found; every request shows
the current round's own results verbatim; the night folds fewer times than without clearing; and
clearing is batched (no batch is a single round's results, so the request's prefix is not rewritten
every round) yet happens at all. A failed item names the hidden result, the two fold counts, the
prefix share at the clearings, or the most clearing would ever have freed.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from nightwatch.after import NightWatchAgent
from nightwatch.lab.tool_rehearsal import shared_prefix_tokens
from nightwatch.memory import ConversationMemory, MemoryPolicy, clearing
from nightwatch.memory.tiers import as_steps
from nightwatch.nights import Incident, Night
from nightwatch.standin import StandInModel
from nightwatch.standin.summarizer import ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens, message_tokens
from nightwatch.tool_night import TOOL_MISSION, tool_eve
from nightwatch.tools import FunctionTool, function_tool
from nightwatch.workshop.harness import ParticipantError, exercise_check
from nightwatch.workshop.report import CheckReport, Judged, describe_error, mark, short, verdict

EXERCISE = "演習7「ツール結果の片づけを予算から決める」"
PLACEHOLDER = clearing.CLEARED_RESULT["ja"]
PLACEHOLDER_TOKENS = count_text_tokens(PLACEHOLDER)
DOORS = ("楽屋口", "西の鎧戸", "東の通用口", "搬入口", "屋上の天窓", "正面玄関")
DETAILS = ("錠・蝶番・閂に異常はなく、外から触れた跡もありません。", "扉の下の隙間から風は入っていません。",
           "鍵穴に埃が薄く積もっていて、今夜は誰も鍵を差していないようです。", "取っ手の真鍮は冷たく、曇りもありません。",
           "窓の掛け金も下りていて、がたつきはありません。", "床に靴の跡はなく、前の見回りのときと同じです。")
LOOSE_HOURS = ("01:00", "02:00", "03:00")
EXAMPLE_SEED = 0
SEEDS = (6, 7, 8)  # the unseen nights: one, two and three doors
ITEMS = [  # (what is checked, the hint when it fails)
    ("どの夜でも、1 以上の keep_tool_results と 0 以上の clear_at_least を (keep, clear_at_least) の組で返す",
     "return (keep_tool_results, clear_at_least) のように、整数二つの組を返します。keep は 1 以上です。"),
    ("片づけのある夜も夜明けまで走り、ツールだけが見つけた異変が朝の報告に残る",
     "片づけた結果は、モデルにはもう読めません。異変を告げた結果がその回のうちに片づけられていないか、下の項目を見ましょう。"),
    ("どのリクエストでも、その回の見回りの結果がすべてそのまま見えている",
     "keep_tool_results は、今の回の結果も含めて新しいほうから数えます。一回の見回りで返る結果の数を下回ると、"
     "今まさに読むべき結果が置き換え文になります。"),
    ("片づけのある夜は、片づけなしの同じ夜より束ねが少ない",
     "片づけが束ねを減らすのは、窓が閾値に届く前に古い結果が置き換わるときだけです。残す件数が多すぎないか、"
     "clear_at_least が大きすぎないか確かめましょう。"),
    ("片づけはまとめて行う: 一回の片づけが見回り一回分より多くの結果を片づけ、しかも夜のうちに一度は起きる",
     "clear_at_least は「これだけ空くまで片づけない」量です。見回り一回分の結果で空く量より大きく、"
     "窓が束ねまでにためられる古い結果の量よりは小さくしましょう。"),
]
HINT_SMALL_BATCH = ("片づけのたびに、リクエストの途中（古い結果のところ）が書き換わり、そこから後ろはプロンプトキャッシュが使えません。"
                    "見回り一回分の結果で空く量（結果の数 × (結果のトークン − 置き換え文のトークン)）より大きい clear_at_least にして、"
                    "何回分かをまとめて片づけましょう。")
HINT_NEVER = ("一度も片づけが起きていません。clear_at_least が、窓にたまりうる古い結果の量を超えています。"
              "根拠の行の「いちばん多く空けられた量」より小さくしましょう（窓の閾値 token_threshold も手がかりです）。")


@dataclasses.dataclass(frozen=True)
class ToolNight:
    """One unseen tool night: the doors checked each round, the one found loose and when, how long
    a lock's result is (sentences of detail), and the three-tier policy (the budget) it is played with."""

    seed: int
    doors: tuple[str, ...]
    loose_door: str
    loose_at: str
    detail: int
    policy: MemoryPolicy

    @property
    def name(self) -> str:
        where = "例の夜（" if self.seed == EXAMPLE_SEED else f"初見の夜（{self.seed}番・"
        return f"{where}扉 {len(self.doors)} つ・上限 {self.policy.context_window:,}）"

    def lock_result(self, door: str, clock: str) -> str:
        if door == self.loose_door and clock == self.loose_at:
            return f"{door}の留め金が緩んでいたので、紐で結わえて仮に留めました。"
        return f"{door}は施錠されていました。" + "".join(DETAILS[: self.detail]) + f"（{clock}の確認）"

    def tokens_per_result(self) -> int:
        """The longest result the tool returns on this night (a locked door's)."""
        return max(count_text_tokens(self.lock_result(door, "00:00")) for door in self.doors)

    def night(self) -> Night:
        """The tool eve, with the loose clasp on this night's door: only the tool ever reports it."""
        eve = tool_eve()
        incidents = [incident if "鎧戸の緩み" not in incident.label else
                     Incident(label=f"{self.loose_door}の緩み（ツールが見つけた）", key_facts=(self.loose_door, "緩"))
                     for incident in eve.incidents]
        return eve.model_copy(update={"name": self.name, "incidents": incidents})


def tool_night(seed: int) -> ToolNight:
    """An unseen tool night from a seed: ``seed % 3 + 1`` doors, so every run checks the same ones."""
    rng = random.Random(seed)
    doors = tuple(rng.sample(DOORS, seed % 3 + 1))
    policy = budget(rng.choice((2560, 3072)))
    return ToolNight(seed, doors, rng.choice(doors), rng.choice(LOOSE_HOURS), (6, 4, 2)[len(doors) - 1], policy)


def budget(context_window: int) -> MemoryPolicy:
    """The three-tier policy a tool night is played with: a narrow window, the threshold at 3/5."""
    return MemoryPolicy(window_size=4, token_threshold=context_window * 3 // 5, context_window=context_window,
                        reply_reserve=64)


EXAMPLE = ToolNight(EXAMPLE_SEED, ("楽屋口", "西の鎧戸"), "西の鎧戸", "03:00", 1, budget(2048))
"""The notebook's night: chapter 9's two doors, the clasp found loose at three."""


class DoorChecker:
    """``check_lock(door)`` for one night's doors, answering for the turn being played."""

    def __init__(self, night: ToolNight) -> None:
        self.night, self.clock = night, ""

    def check_lock(self, door: str) -> str:
        """扉の戸締まりを確かめて、見つけたことを返す。

        Args:
            door: 確かめる扉
        """
        return self.night.lock_result(door, self.clock)

    def tool(self) -> FunctionTool:
        """The function, with its door parameter listing this night's doors (as a Literal would)."""
        described = function_tool(self.check_lock)
        door = described.parameters["properties"]["door"] | {"enum": list(self.night.doors)}
        return dataclasses.replace(described, parameters={**described.parameters, "properties": {"door": door}})


class WatchedMemory(ConversationMemory):
    """The three-tier memory, noting before every request how much clearing could free right then."""

    most_freeable = 0

    def build_messages(self, user_input: str, steps: Sequence[Any] = (), tools: Sequence[Mapping[str, Any]] = ()):
        if self.policy.keep_tool_results is not None:
            _, freed = clearing.due_for_clearing(
                clearing.tool_results(self.window, as_steps(steps)), self.cleared_results,
                self.policy.keep_tool_results, 0, PLACEHOLDER, self.estimate_tokens)
            self.most_freeable = max(self.most_freeable, freed)
        return super().build_messages(user_input, steps, tools)


@dataclasses.dataclass
class Played:
    """One night as played: every request with its clock, the memory, the report, any error."""

    sent: list[tuple[str, list[dict[str, Any]], int]]  # (clock, request, folds before it was answered)
    memory: WatchedMemory
    report: str | None
    error: str | None


def play(night: ToolNight, keep: int | None = None, at_least: int = 0) -> Played:
    """``night`` through the three-tier agent, with clearing (``keep``) or without (None)."""
    options = {"keep_tool_results": keep, "clear_at_least": at_least} if keep is not None else {}
    memory = WatchedMemory(TOOL_MISSION, night.policy.model_copy(update=options), count_text_tokens,
                           ThreeLineSummarizer())
    checker, standin = DoorChecker(night), StandInModel(context_limit=night.policy.context_window)
    agent = NightWatchAgent("ヴェスパー", memory, client=standin.client(), tools=[checker.tool()])
    sent: list[tuple[str, list[dict[str, Any]], int]] = []
    reply, error = None, None
    for turn in night.night().turns:
        checker.clock, folds = turn.clock, len(memory.compactions)
        try:
            reply = agent.run(turn.text)
        except Exception as exc:  # noqa: BLE001 - a refusal ends the night; it is the evidence
            error = f"{turn.clock} の話しかけで、{describe_error(exc)}"
        sent += [(turn.clock, request, folds) for request in agent.turn_requests]
        agent.turn_requests = []
        if error:
            break
    return Played(sent, memory, None if error else reply, error)


@functools.cache
def baseline(seed: int) -> Played:
    """The night without clearing: it depends on no answer, so it is played once per process."""
    return play(tool_night(seed))


def doors_called(request: list[dict[str, Any]]) -> dict[str, str]:
    """Each call id in a request, with the door it asked about."""
    import json

    return {call["id"]: json.loads(call["function"]["arguments"]).get("door", "?")
            for message in request for call in message.get("tool_calls") or []}


def own_results(request: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool messages after the request's last question: the results of the round being played."""
    last_question = max(n for n, message in enumerate(request) if message["role"] == "user")
    return [message for message in request[last_question:] if message["role"] == "tool"]


def share(previous: list[dict[str, Any]], request: list[dict[str, Any]]) -> float:
    total = sum(message_tokens(message, count_text_tokens) for message in request)
    return shared_prefix_tokens(previous, request) / total if previous else 0.0


def round_table(played: Played, title: str) -> Judged:
    """What was judged, one line per request that carried its own round's results: results shown
    verbatim and cleared, folds so far, and the share of the previous request its beginning repeats."""
    lines, previous = [], []
    for clock, request, folds in played.sent:
        if own_results(request):
            results = [m for m in request if m["role"] == "tool"]
            cleared = sum(m["content"] == PLACEHOLDER for m in results)
            hidden = sum(m["content"] == PLACEHOLDER for m in own_results(request))
            lines.append(f"{clock}  結果 そのまま {len(results) - cleared}・置き換え {cleared}"
                         + (f"（うち今の回 {hidden}）" if hidden else "")
                         + f"  それまでの束ね {folds} 回  先頭の繰り返し {share(previous, request):.0%}")
        previous = request
    folds = f"束ね {len(played.memory.compactions)} 回・片づけ {len(played.memory.clearings)} 回"
    return Judged(f"{title}: 見回りの結果を運んだリクエスト（{folds}）", "\n".join(lines) or "（見回りの結果を運んだリクエストはありません）")


def hidden_line(night: ToolNight, played: Played, keep: int) -> str:
    """The requests that showed one of their own round's results as the placeholder: the one that hid
    the incident if any did, else the first, named with its door and what it said."""
    hidden = [(clock, doors_called(request).get(message.get("tool_call_id", ""), "?"), message.get("tool_call_id"))
              for clock, request, _ in played.sent for message in own_results(request)
              if message["content"] == PLACEHOLDER]
    if not hidden:
        return mark(True, night.name, f"どのリクエストでも、今の回の結果 {len(night.doors)} 件がそのまま")
    clock, door, call_id = next((h for h in hidden if h[:2] == (night.loose_at, night.loose_door)), hidden[0])
    why = ""
    if (clock, door) == (night.loose_at, night.loose_door):
        replies = [pair.watchman_reply for pair in [*played.memory.archive, *played.memory.window]
                   if any(step.tool_call_id == call_id for step in pair.steps)]
        why = "その回の異変を告げた結果です" + (f"（その回の返答は『{short(replies[0], 40)}』）" if replies else "") + "。"
    more = f"（ほかにも {len(hidden) - 1} 回）" if len(hidden) > 1 else ""
    return mark(False, night.name, f"{clock} の見回りで、{door}の結果『{short(night.lock_result(door, clock), 28)}』が"
                f"置き換え文になってモデルから隠れました{more}。{why}この夜の見回りは一回に {len(night.doors)} 件の結果を"
                f"返すのに、keep_tool_results={keep} では新しい {keep} 件しか残りません")


def batch_line(night: ToolNight, played: Played, keep: int, at_least: int) -> str:
    memory = played.memory
    if not memory.clearings:
        return mark(False, night.name, f"片づけが一度も起きませんでした。この夜でいちばん多く空けられたのは "
                    f"{memory.most_freeable:,} トークンで、clear_at_least={at_least:,} に届きません")
    single = [c for c in memory.clearings if c.cleared <= len(night.doors)]
    shares, previous, shown = [], [], 0
    for _, request, _ in played.sent:
        now = sum(m["role"] == "tool" and m["content"] == PLACEHOLDER for m in request)
        if now > shown and previous:
            shares.append(share(previous, request))
        shown, previous = now, request
    at = f"片づけたリクエストは、直前のリクエストの先頭を平均 {sum(shares) / len(shares):.0%} 繰り返しました" if shares else ""
    if single:
        return mark(False, night.name, f"片づけ {len(memory.clearings)} 回のうち {len(single)} 回が、見回り一回分"
                    f"（{len(night.doors)} 件）以下の結果しか片づけていません。{at}")
    sizes = "・".join(str(c.cleared) for c in memory.clearings)
    return mark(True, night.name, f"片づけ {len(memory.clearings)} 回、一回に {sizes} 件ずつ。{at}")


def night_lines(night: ToolNight, keep: int, at_least: int) -> tuple[list[str], list[Judged], list[Judged]]:
    """Evidence for items 1-4 on one night, the morning report and the per-round table."""
    played, without = play(night, keep, at_least), baseline(night.seed)
    loose = next(incident for incident in night.night().incidents if "ツールが見つけた" in incident.label)
    if played.report is None:
        dawn = mark(False, night.name, f"夜明けまで届きませんでした（{played.error}）")
    elif loose.stated_in(played.report):
        dawn = mark(True, night.name, f"{night.loose_at} に {night.loose_door}の緩みを見つけた結果が、朝の報告にあります")
    else:
        dawn = mark(False, night.name, f"朝の報告に「{night.loose_door}の緩み」（{night.loose_at} の check_lock だけが"
                    "見つけた異変）がありません")
    folds, base = len(played.memory.compactions), len(without.memory.compactions)
    fewer = mark(folds < base, night.name, f"束ね {folds} 回（片づけなしの同じ夜では {base} 回）"
                 + ("" if folds < base else "。減っていません"))
    lines = [dawn, hidden_line(night, played, keep), fewer, batch_line(night, played, keep, at_least)]
    report = Judged(f"{night.name}: 06:00 の朝の報告（代役の返答そのまま）", played.report or "（届きませんでした）")
    return lines, [report], [round_table(played, f"{night.name}・片づけあり"), round_table(without, f"{night.name}・片づけなし")]


def chosen(answer, night: ToolNight) -> tuple[str, tuple[int, int] | None]:
    """The answer's choice for ``night`` and its evidence line (None when it cannot be played)."""
    where = f"{night.name}: 結果 {len(night.doors)} 件／回・一件最大 {night.tokens_per_result()} トークン"
    try:
        got = answer(len(night.doors), night.tokens_per_result(), night.policy)
    except ParticipantError as error:
        return f"✗ {where}: {error}", None
    pair = tuple(got) if isinstance(got, (tuple, list)) else ()
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
        return f"✗ {where}: 整数二つの組ではなく {short(repr(got), 30)} が返りました", None
    keep, at_least = pair
    if keep < 1 or at_least < 0:
        return f"✗ {where}: keep_tool_results={keep}, clear_at_least={at_least}（keep は 1 以上、clear_at_least は 0 以上）", None
    return f"✓ {where} → keep_tool_results={keep}, clear_at_least={at_least:,}", (keep, at_least)


@exercise_check(
    EXERCISE, "choose_clearing", ITEMS,
    "results_per_round・tokens_per_result・policy から、(keep_tool_results, clear_at_least) を return してください。",
)
def check_clearing_choice(choose_clearing) -> CheckReport:
    """Check ``choose_clearing(results_per_round, tokens_per_result, policy) -> (keep, clear_at_least)``
    on unseen tool nights, each beside the same night without clearing."""
    evidence: list[list[str]] = [[] for _ in ITEMS]
    judged: list[list[Judged]] = [[] for _ in ITEMS]
    hints = [hint for _, hint in ITEMS]
    for seed in SEEDS:
        night = tool_night(seed)
        line, choice = chosen(choose_clearing, night)
        evidence[0].append(line)
        if choice is None:
            continue
        lines, report, tables = night_lines(night, *choice)
        for item, line in enumerate(lines, start=1):
            evidence[item].append(line)
        judged[1] += report
        judged[2] += tables[:1]
        judged[3] += tables
        if lines[3].startswith("✗") and hints[4] == ITEMS[4][1]:
            hints[4] = HINT_NEVER if "一度も" in lines[3] else HINT_SMALL_BATCH
    items = [(title, hint) for (title, _), hint in zip(ITEMS, hints)]
    return verdict(EXERCISE, items, evidence, judged=judged)


def outcome(played: Played, night: ToolNight = EXAMPLE) -> dict[str, Any]:
    """One night's numbers, as the notebook's tables show them."""
    memory, shared, total, hidden, previous = played.memory, 0, 0, 0, []
    for _, request, _ in played.sent:
        shared += shared_prefix_tokens(previous, request) if previous else 0
        total += sum(message_tokens(message, count_text_tokens) for message in request)
        hidden += any(message["content"] == PLACEHOLDER for message in own_results(request))
        previous = request
    loose = next(incident for incident in night.night().incidents if "ツールが見つけた" in incident.label)
    return {"束ね": len(memory.compactions), "片づけ": len(memory.clearings),
            "一回に片づけた件数": "・".join(str(c.cleared) for c in memory.clearings) or "—",
            "今の回の結果が隠れたリクエスト": hidden, "先頭の繰り返し": f"{shared / total:.1%}",
            "朝の報告に緩み": "✓" if played.report and loose.stated_in(played.report) else "✗"}
