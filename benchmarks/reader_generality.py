"""How general is the stand-in's reader? Pass rates on nights written by people who never saw its code.

    python benchmarks/reader_generality.py                  # the tuning nights (the default)
    python benchmarks/reader_generality.py --verbose        # ... and every failing probe
    python benchmarks/reader_generality.py --set heldout    # the held-out nights: run only when the rules are done
    python benchmarks/reader_generality.py --set both       # both sets, and one table side by side

The nights live in ``benchmarks/reader_nights/{tuning,heldout}/*.yaml``: a mission (as a ``system`` or a
``developer`` message), its duties, the turns of the night, some with the behaviour they expect, the
incidents a morning report must state, and the night's own hand-over prompt. Four measurements:

1. **Probes.** The whole night is played to ``read()`` with the full history (mission + every exchange;
   no context limit at all). At each turn that expects something, the reply is judged from its act and
   its grounding only, and for facts by a case-insensitive substring of the reply; the stand-in's own fixed
   phrases are never looked at. A duty is "quoted" when an instruction source's quote overlaps that
   duty's text more than any other duty's.
2. **Summary shapes.** The night's transcript (its turns and the replies of pass 1, up to the morning
   report) is sent in the shapes real summarizers send: nightwatch's own, LangChain v1's middleware and
   classic memory, LlamaIndex, langmem, the OpenAI cookbook, Semantic Kernel, a plain Japanese
   hand-over and the night's own prompt. Judged: act ``summary`` and every incident's key facts.
3. **Whole nights** through the three designs (``nightwatch.lab.compare.make_agent``): Before is
   refused, trimmed loses the duty (a refuse probe after the mission is cut is not refused) and the
   report misses an incident, the three tiers refuse every refuse probe and report every incident.
4. **Cost per call**: milliseconds per ``read()`` over the requests of pass 1.

The reading contract (``nightwatch.standin.reader.contract``, printed in chapter 7) promises links by
shared words only, so every probe of a behaviour that links a turn to something earlier is also classed
as **in contract** or **outside** it, by the analyzers alone and never by the reader's rules
(``shared_content``): a refusal when the ask and its prohibition's text share a content lemma, a recall
when the question and the fact's turn do, a clock call when it and the duty it should act on do (a
timed duty's hour is a number both say). The other behaviours are forms, not links: every probe of
theirs is in contract.

Held-out nights are measured, never tuned on: ``--verbose`` (which prints their text) refuses them.
"""

from __future__ import annotations

import argparse
import difflib
import re
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import simplemma
import yaml
from fugashi import Tagger
from lemminflect import getAllLemmas

from nightwatch.frameworks.published_prompts import LANGCHAIN_SUMMARY_PROMPT, LANGMEM_INITIAL
from nightwatch.nights import Incident, Night, Turn
from nightwatch.standin import DEFAULT_CONTEXT_LIMIT, StandInModel
from nightwatch.standin.reader import Reply, Source, read
from nightwatch.tokens import count_message_tokens

NIGHTS_DIR = Path(__file__).resolve().parent / "reader_nights"
SETS = ("tuning", "heldout")
LANGUAGES = ("ja", "en", "mixed")
BEHAVIOURS = ("periodic", "refuse", "comply", "recall", "recall_absent", "duties", "report")
FORMS = ("direct", "polite", "reported", "authority")
ROWS = ("periodic", "refuse", *(f"refuse/{form}" for form in FORMS), "comply", "recall", "recall_absent",
        "duties", "report")
DESIGNS = ("before", "trimmed", "three_tier")
UNLIMITED = 10**9  # "a huge context limit": the probe pass and the size of Before's whole night


# --- the nights, as data ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Duty:
    id: str
    kind: str
    text: str


@dataclass(frozen=True)
class Expect:
    behaviour: str
    duty: str | None = None
    form: str | None = None
    facts: tuple[str, ...] = ()


@dataclass(frozen=True)
class NightTurn:
    clock: str
    text: str
    expect: Expect | None = None


@dataclass(frozen=True)
class NightSpec:
    """One night of the corpus, as its YAML file gives it."""

    name: str
    domain: str
    language: str
    mission_role: str
    mission: str
    duties: tuple[Duty, ...]
    turns: tuple[NightTurn, ...]
    incidents: tuple[Incident, ...]
    summary_prompt: str
    path: Path
    set_name: str

    @property
    def key(self) -> str:
        return self.path.stem

    def duty(self, duty_id: str) -> Duty:
        return next(duty for duty in self.duties if duty.id == duty_id)

    def night(self) -> Night:
        """The same night as ``nightwatch.nights.Night``, for the designs."""
        return Night(name=self.name, turns=[Turn(clock=t.clock, text=t.text) for t in self.turns],
                     incidents=list(self.incidents))


class NightFormatError(ValueError):
    pass


def _expect(raw: Any, where: str) -> Expect | None:
    if raw is None:
        return None
    behaviour = raw.get("behaviour")
    if behaviour not in BEHAVIOURS:
        raise NightFormatError(f"{where}: unknown behaviour {behaviour!r}; one of {BEHAVIOURS}")
    form = raw.get("form")
    if behaviour == "refuse" and form not in FORMS:
        raise NightFormatError(f"{where}: a refuse probe needs a form, one of {FORMS}; got {form!r}")
    facts = tuple(str(fact) for fact in raw.get("facts") or ())
    if behaviour == "recall" and not facts:
        raise NightFormatError(f"{where}: a recall probe needs facts")
    return Expect(behaviour, raw.get("duty"), form, facts)


def load_night(path: Path, set_name: str) -> NightSpec:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    duties = tuple(Duty(str(d["id"]), str(d["kind"]), str(d["text"])) for d in raw["duties"])
    turns = tuple(
        NightTurn(str(t["clock"]), str(t["text"]), _expect(t.get("expect"), f"{path.name} {t['clock']}"))
        for t in raw["turns"]
    )
    ids = {duty.id for duty in duties}
    for turn in turns:
        if turn.expect and turn.expect.behaviour in ("periodic", "refuse") and turn.expect.duty not in ids:
            raise NightFormatError(f"{path.name} {turn.clock}: unknown duty {turn.expect.duty!r}")
    if raw.get("mission_role") not in ("system", "developer"):
        raise NightFormatError(f"{path.name}: mission_role must be system or developer")
    if raw.get("language") not in LANGUAGES:
        raise NightFormatError(f"{path.name}: language must be one of {LANGUAGES}")
    return NightSpec(
        name=str(raw["name"]), domain=str(raw["domain"]), language=str(raw["language"]),
        mission_role=str(raw["mission_role"]), mission=str(raw["mission"]).strip(), duties=duties, turns=turns,
        incidents=tuple(Incident(label=str(i["label"]), key_facts=tuple(map(str, i["key_facts"])))
                        for i in raw["incidents"]),
        summary_prompt=str(raw["summary_prompt"]).strip(), path=path, set_name=set_name,
    )


def load_set(set_name: str) -> list[NightSpec]:
    """Every night of one set, in file-name order. The held-out set is read only when asked for."""
    if set_name not in SETS:
        raise ValueError(f"unknown set {set_name!r}; one of {SETS}")
    return [load_night(path, set_name) for path in sorted((NIGHTS_DIR / set_name).glob("*.yaml"))]


# --- judging: act and grounding, and facts as substrings --------------------------------------------

def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def states(reply: str, facts: Iterable[str]) -> bool:
    """Every fact is in the reply: case-insensitive, whitespace-insensitive substring."""
    flat = _flat(reply)
    return all(_flat(fact) in flat for fact in facts)


@lru_cache(maxsize=100_000)
def _overlap(quote: str, text: str) -> int:
    """Characters the quote shares with the duty text: the whole quote or text when one holds the other,
    else their longest common run."""
    quote, text = _flat(quote), _flat(text)
    if not quote or not text:
        return 0
    if quote in text or text in quote:
        return min(len(quote), len(text))
    match = difflib.SequenceMatcher(None, quote, text, autojunk=False).find_longest_match(
        0, len(quote), 0, len(text))
    return match.size


def quoted_duty(quote: str, duties: Sequence[Duty]) -> str | None:
    """The duty a quote is taken from: the one it overlaps most, if it overlaps at least half of the
    shorter of the two (a shared stock phrase such as "every hour" is not a quotation)."""
    best, best_size = None, 0
    for duty in duties:
        size = _overlap(quote, duty.text)
        if size > best_size:
            best, best_size = duty, size
    if best is None:
        return None
    shorter = min(len(_flat(quote)), len(_flat(best.text)))
    return best.id if best_size >= max(4, shorter / 2) else None


def quoted_duties(reply: Reply, duties: Sequence[Duty]) -> set[str]:
    return {duty_id for source in reply.grounding if source.tier == "instruction"
            if (duty_id := quoted_duty(source.quote, duties)) is not None}


def grounded_on(reply: Reply, duty_id: str, duties: Sequence[Duty]) -> bool:
    return duty_id in quoted_duties(reply, duties)


def judge(expect: Expect, reply: Reply, spec: NightSpec) -> bool:
    """Did the reply do what the probe expects? Read from act, grounding and (for facts) the text."""
    b = expect.behaviour
    if b == "periodic":
        return reply.act == "periodic" and grounded_on(reply, expect.duty, spec.duties)
    if b == "refuse":
        return reply.act == "refuse" and grounded_on(reply, expect.duty, spec.duties)
    if b == "comply":
        return reply.act not in ("refuse", "forget", "hesitate", "duties", "report")  # done: not refused, not "cannot recall", no list
    if b == "recall":
        return reply.act == "recall" and states(reply.content, expect.facts)
    if b == "recall_absent":
        return reply.act in ("hesitate", "forget")
    if b == "duties":
        return reply.act == "duties" and quoted_duties(reply, spec.duties) >= {d.id for d in spec.duties}
    if b == "report":
        return reply.act == "report" and all(i.stated_in(reply.content) for i in spec.incidents)
    raise ValueError(b)


def row_of(expect: Expect) -> list[str]:
    """The table rows a probe counts in: its behaviour, and for a refusal its form too."""
    rows = [expect.behaviour]
    if expect.behaviour == "refuse":
        rows.append(f"refuse/{expect.form}")
    return rows


# --- the contract: which link probes share a content lemma with their target ------------------------
# Computed here with the analyzers themselves (MeCab/UniDic through fugashi, simplemma and
# lemminflect's lexicon for English), never with the reader's rules, so no rule can move the line.

LINKS = ("periodic", "refuse", "recall")
"""The behaviours that link a turn to something earlier; the rest are forms and always count."""
JA_CONTENT_POS = {"名詞", "動詞", "形容詞", "形状詞"}
JA_FORMAL_NOUNS = frozenset("事 物 所 為 訳 筈 積もり 様 方 内 時 頃".split())
"""Nouns that only shape a clause (こと, もの, ため, …; 時 is the clock's unit: the hour is its number)."""
EN_CLOSED_CLASS = frozenset(
    "a an the this that these those my your his her its our their mine yours ours theirs "
    "i you he she it we they me him us them myself yourself itself someone anyone everyone no-one nobody "
    "something anything everything nothing one ones what which who whom whose when where why how "
    "be am is are was were been being have has had do does did done will would shall should can could may "
    "might must ought and or but nor so yet if then than because though although while as "
    "of to in on at by for with from into onto over under up down out off about after before during until "
    "since through across along around near past upon within without per via "
    "not no yes please just also very too only even still again here there now all any each every some "
    "such own same other another o'clock oh okay ok".split()
)
"""English words of closed classes (pronouns, determiners, auxiliaries, prepositions, conjunctions)."""
EN_NUMBERS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
KANJI_NUMERALS = dict(zip("〇零一二三四五六七八九", (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)))
KANJI_POWERS = {"十": 10, "百": 100, "千": 1000}
EN_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|\d+")


@lru_cache(maxsize=1)
def _tagger() -> Tagger:
    return Tagger()


def _kanji_number(text: str) -> str:
    """A run of numerals as one normalized number: 十二 → 12, 二十三 → 23, ５ → 5; as written if not one."""
    text = unicodedata.normalize("NFKC", text)
    if text.isdecimal():
        return str(int(text))
    total, digit = 0, None
    for ch in text:
        if ch in KANJI_NUMERALS:
            digit = KANJI_NUMERALS[ch] if digit is None else digit * 10 + KANJI_NUMERALS[ch]
        elif ch in KANJI_POWERS:
            total += (1 if digit is None else digit) * KANJI_POWERS[ch]
            digit = None
        else:
            return text
    return str(total + (digit or 0))


def _english_lemmas(text: str) -> set[str]:
    found = set()
    for token in EN_TOKEN.findall(unicodedata.normalize("NFKC", text).replace("’", "'")):
        lower = token.lower()
        if "'" in lower and lower != "o'clock":
            lower = lower.split("'")[0]  # it's, don't, driver's: the word before the clitic
        if lower.isdecimal():
            found.add(str(int(lower)))
        elif lower in EN_NUMBERS:
            found.add(str(EN_NUMBERS[lower]))
        elif len(lower) > 1 and lower not in EN_CLOSED_CLASS:  # "a.m." is no word
            readings = set(getAllLemmas(lower))
            if not readings or readings & {"NOUN", "PROPN", "VERB", "ADJ"}:  # unknown: a name, a borrowed word
                found.add(simplemma.lemmatize(lower, lang="en"))
    return found


def _japanese_lemmas(text: str) -> set[str]:
    found: set[str] = set()
    numeral = ""
    for word in [*_tagger()(unicodedata.normalize("NFKC", text)), None]:
        feature = word.feature if word is not None else None
        if feature is not None and feature.pos2 == "数詞":
            numeral += word.surface
            continue
        if numeral:
            found.add(_kanji_number(numeral))
            numeral = ""
        if feature is None or feature.pos1 not in JA_CONTENT_POS or feature.pos2 == "非自立可能":
            continue
        lemma, _, source = (feature.lemma or word.surface).partition("-")
        if word.surface.isascii():
            found |= _english_lemmas(word.surface)  # an English word inside Japanese text
        elif lemma not in JA_FORMAL_NOUNS:
            found.add(lemma)
            if source.isascii() and source.isalpha():
                found.add(simplemma.lemmatize(source.lower(), lang="en"))  # UniDic: ブリッジ-bridge
    return found


@lru_cache(maxsize=100_000)
def content_lemmas_of(text: str) -> frozenset[str]:
    """The lemmas of the text's nouns, verbs, adjectives and numbers, by the analyzers alone."""
    japanese = any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" for ch in text)
    return frozenset(_japanese_lemmas(text) if japanese else _english_lemmas(text))


def shared_content(a: str, b: str) -> frozenset[str]:
    return content_lemmas_of(a) & content_lemmas_of(b)


def link_targets(spec: NightSpec, at: int) -> list[str]:
    """What the probe of turn ``at`` must be linked to: its duty's text (a clock call, a refusal),
    or the earlier turns that state every fact a recall must give (else those that state any)."""
    expect = spec.turns[at].expect
    if expect.behaviour in ("periodic", "refuse"):
        return [spec.duty(expect.duty).text]
    earlier = [turn.text for turn in spec.turns[:at]]
    every = [text for text in earlier if states(text, expect.facts)]
    return every or [text for text in earlier if any(states(text, (fact,)) for fact in expect.facts)]


def in_contract(spec: NightSpec, at: int) -> bool:
    """A link probe is in contract when its text shares a content lemma with a target; a form
    probe (duties, report, comply, recall_absent) always is."""
    expect = spec.turns[at].expect
    if expect.behaviour not in LINKS:
        return True
    return any(shared_content(spec.turns[at].text, target) for target in link_targets(spec, at))


def contract_row(spec: NightSpec, expect: Expect) -> str:
    """The contract table's row: a clock call on a timed duty is its own row."""
    if expect.behaviour == "periodic" and spec.duty(expect.duty).kind == "at_time":
        return "timed"
    return expect.behaviour


# --- 1. probes: the whole night, full history -------------------------------------------------------

def safe_read(messages: list[dict[str, str]]) -> Reply:
    """``read()``, with an exception kept as a failed answer (act ``error: …``) so one broken rule
    does not hide the rest of the table while the reader is being rewritten."""
    try:
        return read(messages)
    except Exception as exc:  # noqa: BLE001 - measured and shown, never swallowed silently
        return Reply(f"{type(exc).__name__}: {exc}", (), f"error: {type(exc).__name__}")  # type: ignore[arg-type]


@dataclass
class ProbeResult:
    night: str
    language: str
    clock: str
    text: str
    expect: Expect
    act: str
    reply: str
    grounding: tuple[Source, ...]
    passed: bool
    contract_row: str = ""  # the behaviour, or "timed" for a clock call on a timed duty
    in_contract: bool = True  # shares a content lemma with its target (always, for a form)


@dataclass
class ProbeRun:
    spec: NightSpec
    replies: list[str]
    results: list[ProbeResult]
    read_ms: list[float]
    last_request_tokens: int = 0  # what the stand-in counts for the night's last request


def mission_message(spec: NightSpec) -> dict[str, str]:
    return {"role": spec.mission_role, "content": spec.mission}


def probe_pass(spec: NightSpec) -> ProbeRun:
    """Play the night to ``read()`` with every exchange kept, judging each probe as it comes."""
    history = [mission_message(spec)]
    replies, results, timings = [], [], []
    for at, turn in enumerate(spec.turns):
        request = [*history, {"role": "user", "content": turn.text}]
        started = time.perf_counter()
        reply = safe_read(request)
        timings.append((time.perf_counter() - started) * 1000)
        replies.append(reply.content)
        if turn.expect is not None:
            results.append(ProbeResult(spec.key, spec.language, turn.clock, turn.text, turn.expect, reply.act,
                                       reply.content, reply.grounding, judge(turn.expect, reply, spec),
                                       contract_row(spec, turn.expect), in_contract(spec, at)))
        history = [*request, {"role": "assistant", "content": reply.content}]
    served = [{**m, "role": "system"} if m["role"] == "developer" else m for m in request]  # as the stand-in counts it
    return ProbeRun(spec, replies, results, timings, count_message_tokens(served))


# --- 2. summary requests in the shapes real summarizers send ----------------------------------------

LANGCHAIN_CLASSIC_PROMPT = LANGCHAIN_SUMMARY_PROMPT  # nightwatch.frameworks.published_prompts cites the source

# OpenAI cookbook, "Context Engineering - Short-Term Memory Management with Sessions from OpenAI Agents
# SDK" (https://developers.openai.com/cookbook/examples/agents_sdk/session_memory): SummarizingSession's
# LLMSummarizer sends SUMMARY_PROMPT as the system message and the history as one user message of
# "ROLE: content" lines (role upper-cased). The prompt is the cookbook's, written for tech support.
OPENAI_COOKBOOK_PROMPT = """
You are a senior customer-support assistant for tech devices, setup, and software issues.
Compress the earlier conversation into a precise, reusable snapshot for future turns.

Before you write (do this silently):
- Contradiction check: compare user claims with system instructions and tool definitions/logs; note any conflicts or reversals.
- Temporal ordering: sort key events by time; the most recent update wins. If timestamps exist, keep them.
- Hallucination control: if any fact is uncertain/not stated, mark it as UNVERIFIED rather than guessing.

Write a structured, factual summary ≤ 200 words using the sections below (use the exact headings):

• Product & Environment:
  - Device/model, OS/app versions, network/context if mentioned.

• Reported Issue:
  - Single-sentence problem statement (latest state).

• Steps Tried & Results:
  - Chronological bullets (include tool calls + outcomes, errors, codes).

• Identifiers:
  - Ticket #, device serial/model, account/email (only if provided).

• Timeline Milestones:
  - Key events with timestamps or relative order (e.g., 10:32 install → 10:41 error).

• Tool Performance Insights:
  - What tool calls worked/failed and why (if evident).

• Current Status & Blockers:
  - What’s resolved vs pending; explicit blockers preventing progress.

• Next Recommended Step:
  - One concrete action (or two alternatives) aligned with policies/tools.

Rules:
- Be concise, no fluff; use short bullets, verbs first.
- Do not invent new facts; quote error strings/codes exactly when available.
- If previous info was superseded, note “Superseded:” and omit details unless critical.
"""

# Semantic Kernel, ChatHistorySummarizationReducer: DEFAULT_SUMMARIZATION_PROMPT from microsoft/semantic-kernel,
# python/semantic_kernel/contents/history_reducer/chat_history_summarization_reducer.py. Its _summarize
# sends the messages to fold, then the instructions appended as a system message (the default role).
SEMANTIC_KERNEL_PROMPT = """
Provide a concise and complete summarization of the entire dialog that does not exceed 5 sentences.

This summary must always:
- Consider both user and assistant interactions
- Maintain continuity for the purpose of further dialog
- Include details from any existing summary
- Focus on the most significant aspects of the dialog

This summary must never:
- Critique, correct, interpret, presume, or assume
- Identify faults, mistakes, misunderstanding, or correctness
- Analyze what has not occurred
- Exclude details from any existing summary
"""

# Our own words: what someone would type to hand a night over, with the usual Japanese role labels.
JAPANESE_HANDOVER = "以下は昨夜の当直とのやり取りです。朝の担当者への申し送りとして、夜のあいだに起きたことを短くまとめてください。"

Exchange = tuple[str, str]  # (what was said, what the watchman replied)


def _as_dicts(exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    messages = []
    for said, answered in exchanges:
        messages += [{"role": "user", "content": said}, {"role": "assistant", "content": answered}]
    return messages


def shape_nightwatch(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    from nightwatch.memory import Exchange as Pair
    from nightwatch.summarizers import summary_request

    return summary_request("", [Pair(user_text=said, watchman_reply=answered) for said, answered in exchanges])


@lru_cache(maxsize=1)
def _langchain_middleware():
    from langchain.agents.middleware import SummarizationMiddleware

    from nightwatch.frameworks.with_langchain import chat_model

    return SummarizationMiddleware(chat_model(StandInModel()), trigger=("tokens", 1000), keep=("messages", 4))


def shape_langchain_middleware(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    """The one human message LangChain v1's SummarizationMiddleware sends, built by the middleware."""
    from langchain_core.messages import AIMessage, HumanMessage

    listed = []
    for said, answered in exchanges:
        listed += [HumanMessage(said), AIMessage(answered)]
    return [{"role": "user", "content": _langchain_middleware()._format_summary_prompt(listed)}]


def shape_langchain_classic(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    lines = "\n".join(f"Human: {said}\nAI: {answered}" for said, answered in exchanges)
    return [{"role": "user", "content": LANGCHAIN_CLASSIC_PROMPT.format(summary="", new_lines=lines)}]


@lru_cache(maxsize=1)
def _llamaindex_buffer():
    from llama_index.core.memory import ChatSummaryMemoryBuffer

    from nightwatch.frameworks.with_llamaindex import standin_llm

    return ChatSummaryMemoryBuffer.from_defaults(llm=standin_llm(StandInModel()), token_limit=1000)


def shape_llamaindex(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    """The system + user pair LlamaIndex's ChatSummaryMemoryBuffer sends, built by the buffer."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    buffer = _llamaindex_buffer()
    history = [ChatMessage(role=MessageRole(m["role"]), content=m["content"]) for m in _as_dicts(exchanges)]
    return [{"role": "system", "content": buffer.summarize_prompt},
            {"role": "user", "content": buffer._get_prompt_to_summarize(history)}]


def shape_langmem(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    return [*_as_dicts(exchanges), {"role": "user", "content": LANGMEM_INITIAL}]


def shape_openai_cookbook(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    lines = "\n".join(f"{m['role'].upper()}: {m['content'].strip()}" for m in _as_dicts(exchanges))
    return [{"role": "system", "content": OPENAI_COOKBOOK_PROMPT}, {"role": "user", "content": lines}]


def shape_semantic_kernel(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    return [*_as_dicts(exchanges), {"role": "system", "content": SEMANTIC_KERNEL_PROMPT}]


def shape_japanese_handover(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    lines = "\n".join(f"ユーザー: {said}\nアシスタント: {answered}" for said, answered in exchanges)
    return [{"role": "user", "content": f"{JAPANESE_HANDOVER}\n\n{lines}"}]


def shape_night_prompt(spec: NightSpec, exchanges: Sequence[Exchange]) -> list[dict[str, str]]:
    """The night's own hand-over prompt, the transcript after it as clocked User/Assistant lines."""
    turns = spec.turns[: len(exchanges)]
    lines = "\n".join(f"[{turn.clock}] User: {said}\nAssistant: {answered}"
                      for turn, (said, answered) in zip(turns, exchanges))
    return [{"role": "user", "content": f"{spec.summary_prompt}\n\n{lines}"}]


SHAPES: dict[str, Callable[[NightSpec, Sequence[Exchange]], list[dict[str, str]]]] = {
    "nightwatch": shape_nightwatch,
    "langchain middleware": shape_langchain_middleware,
    "langchain classic": shape_langchain_classic,
    "llamaindex": shape_llamaindex,
    "langmem": shape_langmem,
    "openai cookbook": shape_openai_cookbook,
    "semantic kernel": shape_semantic_kernel,
    "japanese handover": shape_japanese_handover,
    "night's own prompt": shape_night_prompt,
}


@dataclass
class SummaryResult:
    night: str
    language: str
    shape: str
    act: str
    reply: str
    kept: int
    incidents: int
    missing: list[str]
    passed: bool
    skipped: str = ""  # why a framework's shape could not be built (not installed)


def transcript(run: ProbeRun) -> list[Exchange]:
    """The night's exchanges up to (not including) the first morning-report probe."""
    turns = run.spec.turns
    end = next((i for i, t in enumerate(turns) if t.expect and t.expect.behaviour == "report"), len(turns))
    return [(turn.text, reply) for turn, reply in zip(turns[:end], run.replies[:end])]


def summary_pass(run: ProbeRun) -> list[SummaryResult]:
    spec, exchanges = run.spec, transcript(run)
    results = []
    for shape, build in SHAPES.items():
        try:
            request = build(spec, exchanges)
        except ImportError as missing:
            results.append(SummaryResult(spec.key, spec.language, shape, "", "", 0, len(spec.incidents), [],
                                         False, skipped=f"not installed ({missing.name})"))
            continue
        reply = safe_read(request)
        missing = [i.label for i in spec.incidents if not i.stated_in(reply.content)]
        results.append(SummaryResult(spec.key, spec.language, shape, reply.act, reply.content,
                                     len(spec.incidents) - len(missing), len(spec.incidents), missing,
                                     reply.act == "summary" and not missing))
    return results


# --- 3. whole nights through the three designs ------------------------------------------------------

def send_mission_as(agent, role: str):
    """Make ``agent`` send its mission in a ``role`` message (e.g. developer) instead of system."""
    if role == "system":
        return agent
    inner = agent._call_model

    def call_model(messages: list[dict[str, str]]) -> str:
        return inner([{**m, "role": role} if m["role"] == "system" and m["content"] == agent.mission else m
                      for m in messages])

    agent._call_model = call_model
    return agent


@dataclass
class DesignCall:
    clock: str
    text: str
    expect: Expect | None
    error: str | None
    prompt_tokens: int | None
    mission_sent: bool
    act: str = ""
    reply: str = ""
    guarded: bool = False  # refused, grounded on the expected prohibition duty


@dataclass
class DesignRun:
    design: str
    limit: int
    calls: list[DesignCall]

    @property
    def refused_at(self) -> DesignCall | None:
        return next((call for call in self.calls if call.error), None)

    @property
    def largest(self) -> int:
        return max((call.prompt_tokens or 0 for call in self.calls), default=0)


def play_design(spec: NightSpec, design: str, limit: int) -> DesignRun:
    from nightwatch.lab.compare import DEFAULT_POLICY, make_agent
    from nightwatch.lab.rehearsal import play

    standin = StandInModel(context_limit=limit)
    agent = send_mission_as(make_agent(design, standin.client(), DEFAULT_POLICY, mission=spec.mission),
                            spec.mission_role)
    marks: list[int] = []
    calls = []
    for call, turn in zip(play(agent, spec.night(), before_turn=lambda _: marks.append(len(standin.requests))),
                          spec.turns):
        answered = [r for r in standin.requests[marks[-1]:]
                    if not r.refused and r.messages[-1]["content"] == turn.text]
        record = answered[-1] if answered else None
        reply = Reply(call.reply or "", record.grounding, record.act) if record else None
        guarded = bool(reply and turn.expect and turn.expect.behaviour == "refuse"
                       and reply.act == "refuse" and grounded_on(reply, turn.expect.duty, spec.duties))
        calls.append(DesignCall(
            turn.clock, turn.text, turn.expect, call.error, call.prompt_tokens,
            any(m["content"] == spec.mission and m["role"] in ("system", "developer") for m in call.messages),
            record.act if record else "", call.reply or "", guarded))
    return DesignRun(design, limit, calls)


@dataclass
class Lesson:
    night: str
    language: str
    limit: int
    limit_note: str
    before: str
    before_ok: bool
    trimmed: str
    trimmed_ok: bool
    three_tier: str
    three_tier_ok: bool

    @property
    def taught(self) -> bool:
        return self.before_ok and self.trimmed_ok and self.three_tier_ok


def _report_coverage(spec: NightSpec, run: DesignRun) -> tuple[int, bool]:
    """Incidents stated by the design's morning report (the first report probe's reply), and whether
    that report was answered at all."""
    report = next((c for c in run.calls if c.expect and c.expect.behaviour == "report"), None)
    if report is None or report.error:
        return 0, False
    return sum(i.stated_in(report.reply) for i in spec.incidents), True


def whole_night(spec: NightSpec, before_peak: int) -> Lesson:
    """The three designs on one night at the stand-in's limit, or at a stated lower limit when the
    whole night fits the default (Before must overflow for the lesson to be taught).

    ``before_peak`` is the size of Before's last request with nothing refused: the probe pass's last
    request, which is exactly what Before sends. Trimmed and three tiers are played without a limit
    first; the limit only decides refusals, so where they fit under it, that play is the answer."""
    unlimited = {design: play_design(spec, design, UNLIMITED) for design in ("trimmed", "three_tier")}
    limit, note = DEFAULT_CONTEXT_LIMIT, "default"
    if before_peak <= DEFAULT_CONTEXT_LIMIT:
        # halfway between what the other designs need and what Before's whole night needs
        limit = (max(run.largest for run in unlimited.values()) + before_peak) // 2
        note = f"night too short (Before peaks at {before_peak})"
    runs = {design: run if run.largest <= limit else play_design(spec, design, limit)
            for design, run in unlimited.items()}
    runs["before"] = play_design(spec, "before", limit)

    before = runs["before"]
    refused = before.refused_at
    before_text = (f"refused at {refused.clock} (call {before.calls.index(refused) + 1}/{len(spec.turns)})"
                   if refused else f"never refused (largest request {before.largest})")

    trimmed = runs["trimmed"]
    cut = next((i for i, c in enumerate(trimmed.calls) if not c.mission_sent), None)
    after_cut = [c for c in trimmed.calls[cut or len(trimmed.calls):]
                 if c.expect and c.expect.behaviour == "refuse" and not c.error]
    slipped = [c for c in after_cut if not c.guarded]
    kept, answered = _report_coverage(spec, trimmed)
    trimmed_text = (
        (f"mission cut at {trimmed.calls[cut].clock}; " if cut is not None else "mission never cut; ")
        + f"{len(slipped)}/{len(after_cut)} refuse probes after the cut not refused; "
        + (f"report {kept}/{len(spec.incidents)}" if answered else "no report")
        + (f"; refused at {trimmed.refused_at.clock}" if trimmed.refused_at else "")
    )
    trimmed_ok = bool(slipped) and (not answered or kept < len(spec.incidents))

    three = runs["three_tier"]
    probes = [c for c in three.calls if c.expect and c.expect.behaviour == "refuse"]
    guarded = sum(c.guarded for c in probes)
    kept3, answered3 = _report_coverage(spec, three)
    three_text = (f"{guarded}/{len(probes)} refuse probes refused; "
                  + (f"report {kept3}/{len(spec.incidents)}" if answered3 else "no report")
                  + (f"; refused at {three.refused_at.clock}" if three.refused_at else ""))
    three_ok = (three.refused_at is None and guarded == len(probes) and answered3
                and kept3 == len(spec.incidents))
    return Lesson(spec.key, spec.language, limit, note, before_text, refused is not None, trimmed_text,
                  trimmed_ok, three_text, three_ok)


# --- the whole measurement, and its tables ----------------------------------------------------------

@dataclass
class SetResult:
    set_name: str
    nights: list[NightSpec]
    probes: list[ProbeResult] = field(default_factory=list)
    summaries: list[SummaryResult] = field(default_factory=list)
    lessons: list[Lesson] = field(default_factory=list)
    read_ms: list[float] = field(default_factory=list)
    warm_up_ms: float = 0.0  # the first read() of the process: loading, not reading; kept out of the mean
    seconds: float = 0.0


def measure(nights: Sequence[NightSpec], set_name: str = "", designs: bool = True) -> SetResult:
    started = time.perf_counter()
    result = SetResult(set_name, list(nights))
    warm = time.perf_counter()
    safe_read([{"role": "system", "content": "Say hello. 挨拶してください。"},
               {"role": "user", "content": "Hello. こんにちは。"}])
    result.warm_up_ms = (time.perf_counter() - warm) * 1000
    for spec in nights:
        run = probe_pass(spec)
        result.probes += run.results
        result.read_ms += run.read_ms
        result.summaries += summary_pass(run)
        if designs:
            try:
                result.lessons.append(whole_night(spec, run.last_request_tokens))
            except Exception as exc:  # noqa: BLE001 - a crash is a result too, shown in the table
                failed = f"error: {type(exc).__name__}: {_clip(str(exc), 80)}"
                result.lessons.append(Lesson(spec.key, spec.language, 0, "default", failed, False, "-", False,
                                             "-", False))
    result.seconds = time.perf_counter() - started
    return result


def _cell(passed: int, total: int) -> str:
    if total == 0:
        return "—"
    return f"{passed}/{total} {100 * passed / total:3.0f}%"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    line = lambda row: "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)  # noqa: E731
                                 for i, (v, w) in enumerate(zip(row, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def behaviour_rows(probes: Sequence[ProbeResult]) -> list[list[str]]:
    """One row per behaviour (and per refuse form): passed/total per language and overall."""
    rows = []
    for row in ROWS:
        counted = [p for p in probes if row in row_of(p.expect)]
        cells = [_cell(sum(p.passed for p in counted if p.language == lang),
                       sum(1 for p in counted if p.language == lang)) for lang in LANGUAGES]
        rows.append([row, *cells, _cell(sum(p.passed for p in counted), len(counted))])
    return rows


def behaviour_table(probes: Sequence[ProbeResult]) -> str:
    return _table(["behaviour", *LANGUAGES, "all"], behaviour_rows(probes))


CONTRACT_ROWS = ("periodic", "timed", "refuse", "recall", "comply", "recall_absent", "duties", "report")


def contract_rows(probes: Sequence[ProbeResult]) -> list[list[str]]:
    """Per behaviour (a clock call on a timed duty apart) and language, then pooled: passed/total in
    contract, outside it, and overall."""
    rows = []
    for row in CONTRACT_ROWS:
        for lang in (*LANGUAGES, "all"):
            counted = [p for p in probes if p.contract_row == row and lang in (p.language, "all")]
            inside = [p for p in counted if p.in_contract]
            outside = [p for p in counted if not p.in_contract]
            rows.append([row if lang == LANGUAGES[0] else "", lang,
                         *(_cell(sum(p.passed for p in group), len(group)) for group in (inside, outside, counted))])
    return rows


def _pooled(probes: Sequence[ProbeResult], row: str) -> str:
    counted = [p for p in probes if p.contract_row == row]
    return " / ".join(_cell(sum(p.passed for p in group), len(group))
                      for group in ([p for p in counted if p.in_contract], [p for p in counted if not p.in_contract]))


def contract_table(probes: Sequence[ProbeResult]) -> str:
    return _table(["behaviour", "lang", "in contract", "outside", "overall"], contract_rows(probes))


def summary_table(summaries: Sequence[SummaryResult]) -> str:
    rows = []
    for shape in SHAPES:
        mine = [s for s in summaries if s.shape == shape]
        skipped = next((s.skipped for s in mine if s.skipped), "")
        if skipped:
            rows.append([shape, *(["n/a"] * (len(LANGUAGES) + 1)), skipped, ""])
            continue
        cells = [_cell(sum(s.passed for s in mine if s.language == lang), sum(1 for s in mine if s.language == lang))
                 for lang in LANGUAGES]
        rows.append([shape, *cells, _cell(sum(s.passed for s in mine), len(mine)),
                     _cell(sum(s.kept for s in mine), sum(s.incidents for s in mine)),
                     _cell(sum(s.act == "summary" for s in mine), len(mine))])
    return _table(["summary shape (nights)", *LANGUAGES, "all", "incidents kept", "act=summary"], rows)


def lesson_table(lessons: Sequence[Lesson]) -> str:
    mark = lambda ok: "ok " if ok else "NO "  # noqa: E731
    rows = [[l.night, f"{l.limit}" + ("" if l.limit_note == "default" else "*"), mark(l.before_ok) + l.before,
             mark(l.trimmed_ok) + l.trimmed, mark(l.three_tier_ok) + l.three_tier, "yes" if l.taught else "no"]
            for l in lessons]
    text = _table(["night", "limit", "before", "trimmed", "three tiers", "taught"], rows)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    notes = [f"  * {l.night}: limit {l.limit}, {l.limit_note}" for l in lessons if l.limit_note != "default"]
    taught = sum(l.taught for l in lessons)
    footer = f"lesson taught on {taught}/{len(lessons)} nights (stand-in limit {DEFAULT_CONTEXT_LIMIT} unless starred)"
    return "\n".join([text, footer, *notes])


def cost_text(read_ms: Sequence[float], warm_up_ms: float = 0.0) -> str:
    if not read_ms:
        return "no read() calls"
    ordered = sorted(read_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"read(): {statistics.fmean(read_ms):.2f} ms mean per call over {len(read_ms)} probe-pass requests "
            f"(median {statistics.median(read_ms):.2f}, p95 {p95:.2f}, max {ordered[-1]:.2f} ms); "
            f"the process's first read() took {warm_up_ms:.0f} ms (loading) and is not counted")


def render(result: SetResult) -> str:
    languages = ", ".join(f"{lang} {sum(n.language == lang for n in result.nights)}" for lang in LANGUAGES)
    errors = sum(p.act.startswith("error") for p in result.probes)
    errors += sum(s.act.startswith("error") for s in result.summaries)
    parts = [
        f"=== {result.set_name or 'nights'}: {len(result.nights)} nights ({languages}), "
        f"{len(result.probes)} probes, {result.seconds:.1f} s"
        + (f"; read() raised on {errors} judged requests (act 'error')" if errors else ""),
        "",
        "Probes (full history; act + grounding, facts as substrings)",
        behaviour_table(result.probes),
        "",
        "Probes against the contract (in contract: the probe shares a content lemma with what it links to)",
        contract_table(result.probes),
        "",
        "Summary requests (act=summary and every incident's key facts)",
        summary_table(result.summaries),
    ]
    if result.lessons:
        parts += ["", "Whole nights through the three designs", lesson_table(result.lessons)]
    parts += ["", "Cost per call", cost_text(result.read_ms, result.warm_up_ms)]
    return "\n".join(parts)


def side_by_side(results: Sequence[SetResult]) -> str:
    header = ["behaviour", *(r.set_name for r in results)]
    columns = [{row[0]: row[-1] for row in behaviour_rows(r.probes)} for r in results]
    rows = [[row, *(col[row] for col in columns)] for row in ROWS]
    rows += [[f"{row}: in contract / outside", *(_pooled(r.probes, row) for r in results)] for row in CONTRACT_ROWS]
    summaries = [[f"summary: {shape}", *(_cell(sum(s.passed for s in r.summaries if s.shape == shape),
                                               sum(1 for s in r.summaries if s.shape == shape and not s.skipped))
                                         for r in results)] for shape in SHAPES]
    lessons = [["whole nights taught", *(_cell(sum(l.taught for l in r.lessons), len(r.lessons)) for r in results)]]
    return _table(header, [*rows, *summaries, *lessons])


def _clip(text: str, size: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def failures(result: SetResult) -> str:
    lines = ["Failing probes"]
    for p in result.probes:
        if p.passed:
            continue
        what = p.expect.behaviour + (f"/{p.expect.form}" if p.expect.form else "")
        if p.expect.duty:
            what += f" [{p.expect.duty}]"
        quotes = "; ".join(f"{s.tier}:{_clip(s.quote, 60)}" for s in p.grounding if s.quote) or "-"
        lines += [f"  {p.night} {p.clock} expected {what}, act {p.act or '-'}"
                  + ("" if p.in_contract else " (outside the contract)"),
                  f"    text:  {_clip(p.text)}", f"    reply: {_clip(p.reply)}", f"    quotes: {quotes}"]
    lines.append("Failing summaries")
    for s in result.summaries:
        if not s.passed and not s.skipped:
            lines.append(f"  {s.night} [{s.shape}] act {s.act or '-'}; missing: {', '.join(s.missing) or '-'}")
            lines.append(f"    reply: {_clip(s.reply, 400)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=(*SETS, "both"), default="tuning", dest="set_name")
    parser.add_argument("--verbose", action="store_true", help="list every failing probe (tuning only)")
    args = parser.parse_args(argv)
    if args.verbose and args.set_name != "tuning":
        parser.error("--verbose prints the nights' text: it is for the tuning set only (held-out nights stay unseen)")
    names = SETS if args.set_name == "both" else (args.set_name,)
    results = []
    for name in names:
        result = measure(load_set(name), name)
        results.append(result)
        print(render(result))
        print()
        if args.verbose:
            print(failures(result))
            print()
    if len(results) > 1:
        print("Tuning vs held-out (all languages)")
        print(side_by_side(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
