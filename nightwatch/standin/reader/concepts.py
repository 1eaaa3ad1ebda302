"""Actions: what an ask asks to have done, as a few coarse kinds shared by Japanese and English.

Why this exists. Lemmas relate an ask to a prohibition only when both use the same word. People
rarely do: a rule says "nobody goes up the stair" and the ask is "take me up to the lamp"; a rule
says 「持ち出させない」 and the ask is 「譲っていただけませんか」; the rule is in English and the
night in Japanese. So each verb is also read as one or more *actions*, from two sources:

* **Phrasal particles** (English): the particle of a phrasal verb carries its direction whatever the
  verb is — go/let/take/climb *up* is going up, *in* is entering, *out*/*off*/*home*/*away* is
  leaving, and with a verb that does not move anyone (turn, knock, crank) *up*/*down* is raising or
  lowering a setting, *off* is switching off, *on* switching on. Grammar, not vocabulary.
* **A small bilingual table** (``ACTIONS`` below) of the commonest verbs of access and handling —
  entering, leaving, going up or down, opening, handing over or taking away, using, switching off
  or on, raising, lowering, changing, eating or drinking — in both languages. These are the verbs a request to a
  watchman is made of in any domain, and the only way to relate 「入れて」 to "set foot in" without a
  translation model.

By the reading contract (``contract``) an action links an ask to a rule only when the two share a word
as well: the kind of action then says whether the ask is for the deed the rule forbids. An action outside the table, a synonym of a noun (handset
for radio, cab for 運転台) and any translation of a noun are not bridged (katakana loanwords are,
through UniDic's source word). The table names no place, thing or person of any
story; a verb belongs to a kind because of what it means, not because a night uses it.
"""

from __future__ import annotations

import re

from nightwatch.standin.reader.forms import CLAUSE_BREAK
from nightwatch.standin.reader.text import language
from nightwatch.standin.reader.words import WORD_CACHE_BYTES, WORD_CACHE_ENTRIES, Word, analyze
from nightwatch.tokens.bounded_cache import bounded_cache

ACTIONS: dict[str, frozenset[str]] = {
    kind: frozenset(members.split()) for kind, members in {
        "enter": "enter admit 入る 入れる 通す 立ち入る 入室 入場 立ち入り 踏み入れる set_foot",
        "leave": "leave exit depart 出る 出す 出かける 出掛ける 出発 外出 発つ 抜け出す 出て行く 持ち出す 持ち帰る",
        "up": "climb ascend 上がる 上げる 登る 上る 乗る 乗せる",
        "down": "descend 下りる 降りる 下ろす 降ろす 下る",
        "open": "open unlock unbolt unpack 開ける 開く 解錠 開錠 開放 開封 開梱",
        "hand_over": "give hand_over lend loan sell borrow remove 渡す 引き渡す 引き渡し 貸す 貸し出す 譲る 売る 与える "
                     "持ち出す 持ち帰る 借りる 分ける",
        "use": "use operate 使う 使用 利用 操作",
        "switch_off": "unplug restart reboot extinguish 消す 切る 落とす 止める 停止 抜く 再起動 消灯",
        "switch_on": "ignite 点ける 付ける 点灯",
        "raise": "raise increase 上げる 強める 明るい 高める",
        "lower": "lower decrease reduce dim darken 下げる 弱める 暗い 絞る 落とす 低める",
        "change": "change adjust alter set reset tweak 変える 変更 調整 弄る 触る",
        "consume": "eat drink feed serve pour taste sip 食べる 飲む 注ぐ 味見 試飲 食わせる",
    }.items()
}
"""The kinds of action, each with its commonest verbs (lemmas; set_foot is "set foot")."""
IMPLIES = {"raise": "change", "lower": "change"}
"""A specific action is also the general one (turning a setting up changes it), never the reverse:
a rule against dimming the lamp says nothing about turning the heating up. Switching a thing on or
off is not changing a setting: a rule on the thermostats says nothing about the kettle."""
MOTION = frozenset({"enter", "leave", "up", "down"})
CARRYING_OFF = frozenset({"行く", "返る", "帰る", "出る"})
"""Verbs of going away after 持って: carrying a thing off (持っていく, 持って帰る)."""
PLACE_PARTICLES = frozenset({"に", "へ", "から", "まで"})

MOVING = frozenset("go come get let take bring send move walk run climb head pull drive carry step".split())
UP_DOWN_AS_MOTION = {"up": "up", "down": "down", "in": "enter", "inside": "enter", "into": "enter",
                     "past": "enter", "onto": "enter", "out": "leave", "off": "leave", "home": "leave",
                     "away": "leave", "outside": "leave", "through": "enter"}
UP_DOWN_AS_SETTING = {"up": "raise", "down": "lower", "off": "switch_off", "on": "switch_on"}
PARTICLE_REACH = 4
POSSESSIVES = frozenset("its his her their my your our".split())
CONCESSIVE_EN = re.compile(r"(?i)\b(?:whatever|whoever|whichever|however|no matter)\b[^,.;:!?]*")
SETTING_EN = re.compile(r"(?i)\b(?:when|while|whenever|before|after|because|since|until|till)\b[^,.;:!?]*")
"""Clauses that only frame the ask (whatever reason they give; when she comes up): not what is asked."""
PEOPLE_QUANTIFIER = re.compile(r"(?i)\b(?:nobody|no one|no-one|anyone|anybody|everyone|everybody)\b")
"""Only a rule about people has a scope of people ("Nobody, pickers included"); "Nothing leaves, tools
included" names what it covers."""
SCOPE_EN = re.compile(r"(?i)(?:\b[\w-]+(?: and [\w-]+)? (?:included|excepted|alike)\b|\b(?:including|except|not even)\b[^,.;:!?]*)")
"""Phrases that say whom a rule covers ("pickers included", "staff and visitors alike", "not even
the manager"): who, not what is done."""


def _english_actions(text: str) -> set[str]:
    """The actions of an English text, clause by clause (``forms.CLAUSE_BREAK``): a particle past a
    comma or a colon belongs to another phrase ("No item leaves the room: not on loan" switches
    nothing on)."""
    found: set[str] = set()
    for clause in CLAUSE_BREAK.split(framing_removed(text)):
        found |= _english_clause_actions(analyze(clause))
    return found


def _english_clause_actions(words: tuple[Word, ...]) -> set[str]:
    found: set[str] = set()
    for i, word in enumerate(words):
        lemma = word.lemma.lower()
        pair = f"{lemma}_{words[i + 1].lemma.lower()}" if i + 1 < len(words) else ""
        if pair in _MEMBERS:
            found |= _MEMBERS[pair]  # "set foot", "hand over"
            continue
        if word.pos != "noun":
            continue
        found |= _MEMBERS.get(lemma, set())
        if word.readings and "VERB" not in word.readings:
            continue  # "No visitors on the floor": a particle after what is no verb switches nothing on
        table = UP_DOWN_AS_MOTION if lemma in MOVING else UP_DOWN_AS_SETTING
        at = particle_after(words, i, table)
        if at is not None:
            found.add(table[words[at].surface.lower()])
    return found


CONJUNCTIONS = frozenset({"and", "or", "but", "then"})


def particle_after(words: tuple[Word, ...], i: int, table: dict[str, str]) -> int | None:
    """Where the particle of the verb at ``i`` stands (a key of ``table``, within ``PARTICLE_REACH``),
    or None: the verb's phrase ends at a conjunction ("come and look in the kiln") or at the next
    verb of the action table; "stays on its hook" switches nothing on (a setting's particle before a
    possessive is a preposition), and "through your night" is a time, not a direction."""
    for at in range(i + 1, min(i + 1 + PARTICLE_REACH, len(words))):
        later = words[at]
        if later.surface.lower() in CONJUNCTIONS:
            return None
        if table is UP_DOWN_AS_SETTING and at + 1 < len(words) and words[at + 1].surface.lower() in POSSESSIVES:
            return None
        if later.surface.lower() in table:
            return None if before_a_time(words, at) else at
        if later.pos == "noun" and later.surface[:1].islower() and _MEMBERS.get(later.lemma.lower()):
            return None
    return None


TIME_FRAME = frozenset({"夜", "朝", "夜明け", "明ける", "今夜", "夜中", "夜間", "晩", "一晩",
                        "night", "tonight", "morning", "dawn", "evening", "overnight", "day"})
"""Words of the night's own time: they frame a deed ("until dawn", 「夜が明けるまで」), never its place."""


def before_a_time(words: tuple[Word, ...], at: int) -> bool:
    """The particle at ``at`` is a preposition of time ("take me through your night"), not a direction."""
    following = next((w for w in words[at + 1 : at + 4] if w.is_content), None)
    return following is not None and following.lemma.lower() in TIME_FRAME


def phrasal_verbs(text: str) -> set[str]:
    """The verbs of an English text's phrasal verbs ("switch" of "switch off"): sharing the verb
    with an ask says nothing when the particle differs ("switch on"); ``actions`` compares them."""
    if language(text) != "en":
        return set()
    words = [w.lemma.lower() for w in analyze(text)]
    return {verb for verb, particle in zip(words, words[1:])
            if particle in UP_DOWN_AS_SETTING or particle in UP_DOWN_AS_MOTION}


def framing_removed(text: str) -> str:
    """A text without the clauses that only frame it: concessive (「誰に言われても」, "whoever asks"),
    when/before/because …, or whom it covers ("Nobody, staff included, …", "guests and crew alike")."""
    if language(text) == "ja":
        return _japanese_setting_removed(_japanese_concession_removed(text))
    text = SETTING_EN.sub(" ", CONCESSIVE_EN.sub(" ", text))
    return SCOPE_EN.sub(" ", text) if PEOPLE_QUANTIFIER.search(text) else text


PERMITTING = frozenset({"良い", "いい", "よい", "構う"})
"""Verbs and adjectives that follow 〜ても when it grants (〜てもいい, 〜ても構わない): no concession; so
does any adjective (〜てもよろしい, 〜ても大丈夫)."""


def _japanese_concession_removed(text: str) -> str:
    """A Japanese text without its concessive clauses: from the clause's start (a comma, は or the
    text's start) to 〜ても/〜でも or a volitional 〜う(と) (「レジは、誰に言われても開けない」 → 「レジは、開けない」;
    「理由があろうと」)."""
    words = analyze(text)
    keep = list(words)
    for i, word in enumerate(words):
        volitional = word.lemma in ("と", "とも") and i and words[i - 1].form.startswith("意志推量形")  # 理由があろうと
        if not volitional and not (word.lemma == "も" and i and words[i - 1].lemma in ("て", "で")
                                   and words[i - 1].pos in ("particle", "aux")):
            continue
        after = next((w for w in words[i + 1 :] if w.pos != "symbol"), None)
        if after is not None and (after.lemma in PERMITTING or after.pos in ("adj", "aux_adj")):
            continue
        start = i
        while start > 0 and words[start - 1].surface not in ("、", "，") and words[start - 1].lemma != "は":
            start -= 1
        end = i + 2 if i + 1 < len(words) and words[i + 1].surface in ("、", "，") else i + 1
        keep[start:end] = [None] * (end - start)
    return "".join(w.surface for w in keep if w is not None)


JA_SETTING = frozenset({"まで", "迄", "時", "間", "内", "前", "後", "以降", "以後"})
"""What ends a Japanese clause of time (〜まで, 〜とき, 〜前に, 〜以降は): when the rule holds, as "until", "when"
and "after" open one in English."""


def _ends_a_time(word, before) -> bool:
    """The word ends a clause of time, not a place: after a verb (冷えるまで, 塗る前に), after an event
    (閉館後, 点検前) or a clock (2時以降); 以降 and 以後 always. 炉の前, 展示室内 and 部屋の間 are places."""
    if word.lemma not in JA_SETTING:
        return False
    if word.lemma in ("以降", "以後") or before.pos in ("verb", "aux", "aux_verb"):
        return True
    return word.lemma not in ("まで", "迄") and (before.verbal or before.pos == "num" or before.lemma == "時")


def _japanese_setting_removed(text: str) -> str:
    """A Japanese text without the clauses of time that open it, each up to its comma (「鋳型が冷えきるまでは、
    …入れない」 → 「…入れない」; 「閉館後は、」): they say when, not what is forbidden."""
    words = analyze(text)
    cut = 0
    for i, word in enumerate(words):
        if word.surface not in ("、", "，"):
            continue
        before = i - 1
        while before > cut and words[before].pos == "particle" and words[before].lemma in ("は", "に", "も"):
            before -= 1
        if before <= cut or not _ends_a_time(words[before], words[before - 1]):
            break  # only the clauses that open the text, one after another
        cut = i + 1
    return "".join(w.surface for w in words[cut:]) if cut else text


def _japanese_actions(text: str) -> set[str]:
    """The actions of a Japanese text. A verb that can move someone or change a thing (上げる: let
    up / raise) reads as motion when its own clause names a place (「運転台に上げて」) and as the
    other when its clause has an object and no place (「暖房を上げて」「コーヒーをいれて」)."""
    words = analyze(text)
    found: set[str] = set()
    for i, kinds in _japanese_kinds(words):
        clause = _own_clause(words, i)
        placed = any(w.pos == "particle" and w.lemma in PLACE_PARTICLES for w in clause)
        if placed and kinds & MOTION:
            kinds = kinds & MOTION
        elif not placed and any(w.pos == "particle" and w.lemma == "を" for w in clause):
            kinds = kinds - MOTION
        found |= kinds
    return found


def _own_clause(words: tuple[Word, ...], i: int) -> tuple[Word, ...]:
    """The words before word ``i`` back to the previous verb, auxiliary or punctuation: its clause."""
    start = i
    while start > 0 and words[start - 1].pos not in ("verb", "aux_verb", "aux", "symbol"):
        start -= 1
    return words[start:i]


def _japanese_kinds(words: tuple[Word, ...]) -> list[tuple[int, set[str]]]:
    """The kinds of each action word, with its position (a prefix joined to its noun: 再 + 起動)."""
    found: list[tuple[int, set[str]]] = []
    for i, word in enumerate(words):
        compound = word.lemma + words[i + 1].lemma if i + 1 < len(words) else ""
        if word.pos == "prefix" and compound in _MEMBERS:
            found.append((i, set(_MEMBERS[compound])))
        elif word.lemma == "持つ" and i + 2 < len(words) and words[i + 1].lemma == "て" \
                and words[i + 2].lemma in CARRYING_OFF:
            found.append((i, set(_MEMBERS["持ち出す"])))  # 持っていく, 持って帰る: the compound 持ち出す in two words
        elif word.pos in ("verb", "noun", "adj") and word.lemma in _MEMBERS:
            found.append((i, set(_MEMBERS[word.lemma])))
    return found


_MEMBERS: dict[str, set[str]] = {}
for _kind, _members in ACTIONS.items():
    for _member in _members:
        _MEMBERS.setdefault(_member, set()).add(_kind)


TABLE_VERBS = frozenset(member for member in _MEMBERS if "_" not in member)


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def actions(text: str) -> frozenset[str]:
    """The kinds of action a text names (see the module docstring), without the general kinds the
    specific ones imply."""
    return frozenset(_japanese_actions(text) if language(text) == "ja" else _english_actions(text))


def implied(kinds: frozenset[str]) -> frozenset[str]:
    """The kinds with the general kind each specific one implies (raising a setting changes it)."""
    return kinds | {IMPLIES[kind] for kind in kinds if kind in IMPLIES}
