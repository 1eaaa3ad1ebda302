"""The reader's rules, in the order it tries them: the first that applies writes the reply.

``RULES`` is the list a chapter prints (``print(rules_text())``). Each rule reads only the request:
the duties (``instructions``), the material (``material``) and the last message, the question.
The reply is in the question's language, its content words come from the request, and when it
acts on a duty it quotes the clause it acted on; ``grounding`` records where each part came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from nightwatch.standin.reader import deeds, forms, material, recall
from nightwatch.standin.reader.drift import dwelt_on
from nightwatch.standin.reader.contract import shares_a_word, unlinked
from nightwatch.standin.reader.concepts import TABLE_VERBS, TIME_FRAME, actions, framing_removed, implied, phrasal_verbs
from nightwatch.standin.reader.grounding import Reply, source
from nightwatch.standin.reader.night_questions import WHOLE_NIGHT, asks_for_duties, asks_for_report, names_duties, reason_removed
from nightwatch.standin.reader.instructions import INSTRUCTION_ROLES, SUMMARY_HEADING, Duty, is_instruction_message, read_duties
from nightwatch.standin.reader.phrases import PHRASES, number_word, phrase
from nightwatch.standin.reader.summary import Summary, event_item, reply_to
from nightwatch.standin.reader.tense import in_the_past
from nightwatch.standin.reader.summary_request import summarize_request
from nightwatch.standin.reader.text import Clock, find_clock, language, outside_quotes, quoted, sentences
from nightwatch.standin.reader.words import Word, agrees_as_verb, analyze, content_lemmas

REPORT_ITEM_CHARS = 160


@dataclass(frozen=True)
class Request:
    """A request as the rules see it."""

    messages: Sequence[Mapping[str, str]]
    question: str
    lang: str
    duties: list[Duty]
    lines: list[material.Line]

    def duties_of(self, kind: str) -> list[Duty]:
        return [duty for duty in self.duties if duty.kind == kind]

    def duty_reply(self, text: str, duty: Duty, act: str, *more) -> Reply:
        quote = phrase(self.lang, "duty", clause=duty.clause)
        sources = (source(self.messages, duty.message_index, duty.clause, duty.kind), *more, self.asked())
        return Reply(text + quote, sources, act)

    def asked(self, quote: str = ""):
        return source(self.messages, len(self.messages) - 1, quote)


def material_lines(messages: Sequence[Mapping[str, str]]) -> list[material.Line]:
    """Every message but the last, as material lines (instructions left out)."""
    lines: list[material.Line] = []
    for index, message in enumerate(messages[:-1]):
        role, text = message.get("role", ""), message.get("content", "")
        if is_instruction_message(message):
            continue
        first, _, rest = text.strip().partition("\n")
        if role in INSTRUCTION_ROLES or (role == "user" and SUMMARY_HEADING.search(first[:80])):
            body = rest if SUMMARY_HEADING.search(first[:80]) and rest else text
            carried = Summary.parse(body)
            lines += [material.Line(index, role, "note", note) for note in carried.notes]
            lines += [material.Line(index, role, "summary", event) for event in carried.events]
            lines += [material.Line(index, role, "routine", opening) for opening in carried.routine]
        elif role == "assistant":
            lines.append(material.Line(index, role, "reply", text))
        else:
            lines.append(material.Line(index, role, material.kind_of_user_text(text), text))
    return material.with_what_the_hour_told(lines)


def ask_in(text: str, own_voice_only: bool = False) -> str | None:
    """The sentence (or quoted speech) that asks for something, if any."""
    for sentence in sentences(outside_quotes(text) if own_voice_only else text):
        for speech in quoted(sentence):
            if material.is_ask(speech) and not own_voice_only:
                return speech
        if material.is_ask(sentence, own_voice_only=own_voice_only):
            return sentence.rstrip("。.")
    return None


def latest_ask(request: Request) -> material.Line | None:
    for line in reversed(request.lines):
        if line.role == "user" and line.kind == "ask":
            return line
    return None


# ---- the rules ---------------------------------------------------------------------------------

def summarize(request: Request) -> Reply | None:
    """A request asking to summarize a transcript it carries gets an extractive summary."""
    result = summarize_request(request.messages)
    if result is None:
        return None
    text, used = result
    return Reply(text, tuple(source(request.messages, i) for i in used), "summary")


def report(request: Request) -> Reply | None:
    """Asked to report: list every event the material carries (a line that happened once, even
    if it asks something), each with what was done about it later (a later statement sharing its
    rarer content words) and what the watchman did about it (his own reply to it, read back by
    ``deeds.deed_in_reply``); quote a report duty if one is stated."""
    if not asks_for_report(request.question, request.duties_of("report"), request.lines):
        return None
    clock = find_clock(request.question)
    clock_words = clock.words if clock else ""
    instructions = "".join(m.get("content", "") for m in request.messages if is_instruction_message(m))
    found = material.events(request.lines, known=instructions)
    groups = material.with_follow_ups(found, request.lines)
    replies = {line.index: reply_to(request.lines, n) for n, line in enumerate(request.lines) if line.role == "user"}
    sources = tuple(source(request.messages, line.index, line.text) for group in groups for line in group)
    if groups:
        items = "".join(
            phrase(request.lang, "report_item", number=number_word(request.lang, n),
                   event=_item(group[0], replies.get(group[0].index, "") if group[0].role == "user" else ""))
            + "".join(phrase(request.lang, "follow_up", event=_item(later)) for later in group[1:])
            + ("" if request.lang == "ja" else " ")
            for n, group in enumerate(groups, start=1)
        )
        text = phrase(request.lang, "report" if clock_words else "report_now", clock=clock_words,
                      count=number_word(request.lang, len(groups)), items=items.strip())
    else:
        text = phrase(request.lang, "nothing_to_report" if clock_words else "nothing_to_report_now", clock=clock_words)
    duty = next(iter(request.duties_of("report")), None)
    if duty is not None:
        return request.duty_reply(text, duty, "report", *sources)
    return Reply(text, (*sources, request.asked()), "report")


def _item(line: material.Line, reply: str = "") -> str:
    """A line as a report item: what happened, told in the past (``tense``), cut to length, and what
    the watchman did about it when his reply to it did something (``summary.event_item``)."""
    told = material.Line(line.index, line.role, line.kind, in_the_past(material.body(line.text)))
    return event_item(told, reply, REPORT_ITEM_CHARS)


def duties(request: Request) -> Reply | None:
    """Asked what its duties are: quote every duty clause, or, with none, say what it was last asked."""
    if not asks_for_duties(request.question):
        return None
    if not names_duties(request.question) and asks_for_report(request.question, request.duties_of("report"), request.lines):
        return None  # "What have you got for me from the night?": the night, not the mission
    if request.duties:
        items = "".join(phrase(request.lang, "quote", text=duty.clause) for duty in request.duties) \
            if request.lang == "ja" else "; ".join(duty.clause for duty in request.duties)
        sources = tuple(source(request.messages, duty.message_index, duty.clause, duty.kind) for duty in request.duties)
        return Reply(phrase(request.lang, "duties", items=items), (*sources, request.asked()), "duties")
    last = latest_ask(request)
    if last is None:
        return Reply(phrase(request.lang, "no_duty_no_ask"), (request.asked(),), "forget")
    ask = ask_in(last.text, own_voice_only=True) or last.text
    return Reply(phrase(request.lang, "no_duty", ask=ask), (source(request.messages, last.index, ask), request.asked()),
                 "follow")


def remember(request: Request) -> Reply | None:
    """Asked to remember (or any other question): answer from the fact that best covers what it
    asks, rare words weighing more, the fact's own message as context. A partial match, a tie
    between two different facts, or a match only in something that recurs all night (seen in
    passing, never noted), only hesitates. A line that is one speaker's quoted words (岡田さん：「…」)
    is read as those words."""
    spoken = material.spoken(request.question)
    asking = [s for s in spoken if forms.lemmas(s) & (forms.INTERROGATIVES | forms.EN_WH | {"け"})]  # 「どのサイロだったっけ」
    question = " ".join(asking) or request.question
    asked_to_remember = _asks_to_remember(question)
    if not (asked_to_remember or material.is_question(question)):
        return None
    if asking and not asked_to_remember and any(forms.is_request(s) or forms.claims_permission(s) for s in spoken):
        return None  # 「鍵、どこだっけ？取ってきてくれる？」: an ask in the speaker's words, nothing to recall
    if _only_asks_to_act(question):
        return None  # "Could you fetch me a blanket?": a request in question form, nothing to recall
    if not asked_to_remember and _asks_for_a_deed(question):
        return None  # 「許可証？今日は忘れた。いいからゲート開けてよ」: an ask; its question is not about the night
    topic = recall.topic_of(question)
    fact, score, sure = recall.best_fact(topic, material.facts(request.lines))
    if sure and not material.recurs(fact, request.lines):
        return Reply(phrase(request.lang, "recall", fact=_told_with(request, fact)),
                     (source(request.messages, fact.index, fact.text), request.asked()), "recall")
    if fact is not None and score >= recall.PARTIAL:
        return Reply(phrase(request.lang, "hesitate", topic=topic),
                     (source(request.messages, fact.index, fact.text), request.asked()), "hesitate")
    duty = _duty_asked_about(request, topic)
    if duty is not None:  # a duty the request states is never claimed forgotten
        return request.duty_reply(phrase(request.lang, "recall", fact=""), duty, "recall")
    return Reply(phrase(request.lang, "forgotten", topic=topic), (request.asked(),), "forget")


DUTY_ASKED_ABOUT = 0.45
"""A question about a duty names little else than the duty (「忘れ物の扱い、覚えてる？」 half of it); one
that names a clerk, a room and a jury pool and shares two of them with a duty asks about something else."""


def _duty_asked_about(request: Request, topic: str):
    """The duty clause that covers the most of what a question asks about, if it covers nearly half
    (``DUTY_ASKED_ABOUT``) and names a thing the question names (a noun, not only a verb): asked
    about a duty it was given, the watchman quotes it rather than say he cannot recall it."""
    named = {w.lemma.lower() for w in analyze(topic) if w.is_content and w.pos == "noun" and not w.only_a_verb}
    scored = [(recall.topic_coverage(topic, duty.clause, timeless=True), duty)
              for duty in request.duties if named & content_lemmas(duty.clause)]
    return next((duty for score, duty in sorted(scored, key=lambda item: -item[0]) if score >= DUTY_ASKED_ABOUT), None)


def _asks_to_remember(question: str) -> bool:
    """A sentence that asks about remembering (「覚えていますか」 "Do you remember", 「思い出して」 "Remind me"):
    a word of remembering in a question, or the verb a request asks for. One in a statement
    (「鍵を置き忘れてきちゃった」) or in a noun (忘れ物) asks nothing of the watchman's memory."""
    return any(recall.RECALL_WORDS & forms.lemmas(s) and forms.is_question(s)
               or deeds.requested_verbs(s) & recall.RECALL_WORDS for s in sentences(question))


def _asks_for_a_deed(question: str) -> bool:
    """A sentence, not itself a question, that asks in its own voice for something to be done (not told):
    the message is an ask, whatever else it wonders aloud."""
    return any(forms.is_direct_request(s) and not forms.is_question(s) and not deeds.asks_only_to_be_told(s)
               for s in sentences(outside_quotes(question)))


def _only_asks_to_act(question: str) -> bool:
    """The message's questions ask for deeds (「毛布を持ってきてもらえますか」) or whether one may be done
    (「渡してもいいですか」), and none looks back: none names remembering, asks to be told (its requested
    verb is one of telling), asks with an interrogative (what, どこ; "check who rang", not "for when Rick
    gets in") or is in
    the past (〜っけ: 「もう済んでいましたっけ」) — a reason given first (「冷えてきたので、」) aside. A question
    that only wonders aloud (「暑くないですか」) asks nothing back."""
    asking = [material.STAGE_DIRECTION.sub("", s) for s in sentences(outside_quotes(question)) if forms.is_question(s)]
    deeds_asked = [s for s in asking if (forms.is_request(s) or forms.claims_permission(s))
                   and not deeds.requested_verbs(s) & deeds.SAYING]
    return bool(deeds_asked) and all(s in deeds_asked or _wonders_aloud(s) for s in asking) \
        and not any(_looks_back(s) for s in asking)


def _wonders_aloud(question: str) -> bool:
    """A question about how things feel now (「暑くないですか」, "Isn't it cold in here?"): an adjective is
    what it asks, and it looks back at nothing; 「荷物は搬入口ですか」 asks about the night."""
    return any(w.pos == "adj" or "ADJ" in w.readings for w in analyze(question))


def _looks_back(question: str) -> bool:
    """A question that asks about what was: remembering, being told, an interrogative, the past."""
    main = reason_removed(question)
    words = analyze(main) if language(main) == "en" else ()
    asked_wh = any(w.surface.lower() in forms.EN_WH and (i == 0 or words[i - 1].lemma.lower() in FINDING_OUT)
                   for i, w in enumerate(words))  # "check who rang", not "so they can see what they're doing"
    return bool(forms.lemmas(main) & (recall.RECALL_WORDS | forms.INTERROGATIVES | PAST)
                or asked_wh or deeds.requested_verbs(question) & deeds.SAYING)


FINDING_OUT = frozenset({"know", "check", "out", "up", "say", "confirm", "ask", "wonder", "remember", "tell", "find"})
"""Verbs (and particles: "work out", "look up") after which a question word asks about the night ("let me know
who rang"); after others it opens a clause ("for when Rick gets in", "see what they're doing")."""


PAST = frozenset({"た", "け", "did", "was", "were", "had"})


def _told_with(request: Request, fact: material.Line) -> str:
    """The fact with the rest of what was said with it (「…から伝言です。」 then the message itself),
    when it was one short turn of the conversation; a summary item stays on its own."""
    return " ".join(material.body(fact.context).split()) if recall.told_whole(fact) else fact.text


def hourly(request: Request) -> Reply | None:
    """A clock call (bare, or naming the periodic duty it is for): announce it per a periodic duty, and
    per a timed duty at that duty's own time (at half past five, the duty of 5時半 alone); with none, carry on with what the last few exchanges dwelt on (the content most of them share), quoting
    what was said about it."""
    if not (material.is_chime(request.question) or calls_a_round(request)):
        return None
    clock = find_clock(request.question)
    periodic = request.duties_of("periodic")
    timed = [duty for duty in request.duties_of("at_time") if clock is not None and _same_time(find_clock(duty.clause), clock)]
    acted_on = timed + (periodic[:1] if not (timed and clock.minute) else [])  # on the hour, the round too
    if acted_on and clock is not None:
        said = clock.words if request.lang == "ja" else clock.words[:1].upper() + clock.words[1:]
        quotes = "".join(phrase(request.lang, "duty", clause=duty.clause) for duty in acted_on[1:])
        sources = tuple(source(request.messages, duty.message_index, duty.clause, duty.kind) for duty in acted_on[1:])
        return request.duty_reply(phrase(request.lang, "all_quiet", clock=said) + quotes, acted_on[0], "periodic", *sources)
    dwelt = dwelt_on(request.lines)
    if dwelt is not None:
        said, drawn_on = dwelt
        sources = tuple(source(request.messages, index, quote) for index, quote in drawn_on)
        return Reply(phrase(request.lang, "follow", matter=said), (*sources, request.asked()), "follow")
    return Reply(phrase(request.lang, "acknowledge"), (request.asked(),))


def _same_time(named: Clock | None, called: Clock) -> bool:
    """A timed duty's own time: the same hour on the twelve-hour dial (午前5時半 and 5時半) and minute."""
    return named is not None and named.hour % 12 == called.hour % 12 and named.minute == called.minute


def calls_a_round(request: Request) -> bool:
    """A clock call that names the periodic duty it is for (「2時の定時連絡の時刻です」): a time,
    nothing asked, and every other word it says taken from a periodic duty."""
    question = request.question
    clock = find_clock(question)
    periodic = request.duties_of("periodic")
    if clock is None or not periodic or material.is_question(question) or material.is_ask(question, False):
        return False
    said = {lemma for lemma in content_lemmas(question.replace(clock.words, " ")) if not lemma.isdecimal()}
    said -= material.CLOCK_CALL
    return bool(said) and said <= set().union(*(content_lemmas(duty.clause) for duty in periodic))


def forbidden(request: Request) -> Reply | None:
    """Asked, in any voice, to do what a prohibition forbids (or told it was allowed): refuse, quoting it.

    Checked before anything else a question might be: a polite question, a reported ask, a claim
    of permission and an announced intent (「鍵、借りていくよ」) are all asks; an ask only to be told
    something (「夜中のことを聞かせて」) breaks no rule but one of silence. Only a prohibition that
    shares a word with the ask is read against it (the reading contract). It is relevant when, besides,
    the ask shares with it its kind of action (a phrasal particle, or the small bilingual table of
    access verbs: go up, let in, hand over, switch off), the thing a Japanese rule names last
    (印刷室, or its head: 観測ドーム and ドーム; a loanword's source), its verb, a word the night
    seldom uses, or two content lemmas; clauses that only frame it (whatever they say) aside."""
    question = request.question
    if material.kind_of_user_text(question) == "note" and not material.names_a_speaker(material.label_of(question)[0]):
        return None  # a handover note informs; it asks nothing now ("Lena: pass it over" is Lena speaking)
    # Units of speech: each sentence said in the speaker's own voice, and each quoted speech whole
    # (「…一人で見てくる。ハッチを開けてくれ。」 asks as one).
    units = [[s] for s in sentences(outside_quotes(question))] + [sentences(speech) for speech in quoted(question)]
    asking_units = [unit for unit in units if any(_asks(s) for s in unit) and not all(forms.gives_a_reason(s) for s in unit)]
    prohibitions = request.duties_of("prohibition")
    if not any(deeds.PASSING_ON & forms.lemmas(duty.clause) for duty in prohibitions):  # no rule of silence
        asking_units = [unit for unit in asking_units if not _only_to_be_told(" ".join(unit))]
    if not asking_units:
        return None
    asking = [" ".join(unit) for unit in asking_units]
    asked = (set(content_lemmas(question)) | directions(question)) - forms.ASKING  # the ask and its scene
    asked_deeds = [_deed_of_unit(unit) for unit in asking_units]
    deed_lemmas = set().union(*(content_lemmas(d) | directions(d) for d in asked_deeds))
    rare = rare_lemmas(request) & deed_lemmas
    passed_on = asked_deeds != asking  # an English narration of an ask: the deed is what follows "asks"
    doing = implied(frozenset().union(*(actions(d) for d in asked_deeds)))
    named = set().union(*(noun_chains(s) for s in asking)) if request.lang == "ja" \
        else set().union(*(english_things(d) for d in asked_deeds))  # English: the things the deed names
    modifiers = compound_modifiers(question)
    ask_verbs = verb_lemmas(question)
    for duty in prohibitions:
        if not shares_a_word(question, duty.clause):
            continue  # outside the contract: granted, and the record says so (asked_to_act)
        by_lemma = asked - phrasal_verbs(duty.clause) - TABLE_VERBS  # the table's verbs are compared as actions
        framed = framing_removed(duty.clause)  # 「誰に言われても」, "whoever asks": not what the rule forbids
        if relevant(framed, by_lemma, rare, deed_lemmas if passed_on else None, modifiers, ask_verbs) \
                or actions(framed) & doing or _same_thing(targets(framed), named):
            return request.duty_reply(phrase(request.lang, "refuse"), duty, "refuse")
    return None


def _deed_of_unit(unit: list[str]) -> str:
    """What a unit of speech asks to have done: the deed its asking sentences pass on ("he wants the
    gate opened"), else the unit whole. A unit with a request in the speaker's own voice ("Could I
    borrow the key? Tray 6 needs a drip") is read whole: the need told beside it is not taken for
    the deed."""
    if any(forms.is_direct_request(s) for s in unit):
        return " ".join(unit)
    passed_on = [deed for deed in (deeds.deed_of(s) for s in unit if _asks(s)) if deed not in unit]
    return " ".join(passed_on) if passed_on else " ".join(unit)


def _same_thing(targets_: set[str], named: set[str]) -> bool:
    """A thing the rule names, named by the ask whole or by its head: a compound noun's last part is
    the same thing (観測ドーム and ドーム, 貨物 and 航空貨物)."""
    return any(t == n or (not (t + n).isascii() and len(t) != len(n) and min(len(t), len(n)) >= 2
                          and (t.endswith(n) or n.endswith(t))) for t in targets_ for n in named)


def _asks(sentence: str) -> bool:
    """A request, a claim of permission or an announced intent: any voice of asking."""
    return forms.is_request(sentence) or forms.claims_permission(sentence) or forms.announces_intent(sentence)


def _only_to_be_told(unit: str) -> bool:
    """Every sentence of the unit that asks, asks only to be told, and nothing in it claims permission."""
    asks = [s for s in sentences(unit) if _asks(s)]
    return bool(asks) and all(deeds.asks_only_to_be_told(s) and not forms.claims_permission(s) for s in asks)


def directions(text: str) -> set[str]:
    """The particles of an English phrasal verb (go *down*, let *in*): part of what is being done."""
    return {w.surface.lower() for w in analyze(text) if w.surface.lower() in ("up", "down", "in", "out", "through")} \
        if language(text) == "en" else set()


def rare_lemmas(request: Request) -> set[str]:
    """Lemmas that few of the night's messages use (one in four, or two in a short night): sharing one of them with a
    duty says more than sharing a word the whole night repeats (the idea behind inverse document
    frequency). Only what was said to the watchman counts: his own replies echo it, and what he
    said must not change what is rare. Only those in the asking sentence itself count, not the
    scene around it ("…the path is pitch dark")."""
    said = [content_lemmas(m.get("content", "")) for m in request.messages if m.get("role") == "user"]
    limit = max(2, len(said) // 4)
    counts: dict[str, int] = {}
    for lemmas in said:
        for lemma in lemmas:
            counts[lemma] = counts.get(lemma, 0) + 1
    return {lemma for lemma, count in counts.items() if count <= limit}


def noun_chains(text: str, targets_only: bool = False) -> set[str]:
    """The compound nouns of a text, whole (印刷室, not 印刷 and 室), with a loanword's source word
    (ブリッジ → bridge); in English, its content lemmas. With ``targets_only``, a Japanese compound
    that only modifies another (職員室 in 「職員室奥の印刷室」) is left out: the rule is about the
    thing it names last."""
    if language(text) != "ja":
        return english_things(text) if targets_only else set(content_lemmas(text))
    chains: set[str] = set()
    run: list = []
    words = analyze(text)
    for i, word in enumerate([*words, None]):
        if word is not None and word.pos in ("noun", "prefix", "suffix") and word.detail != "数詞":
            run.append(word)
            continue
        nouns = [w for w in run if w.pos == "noun"]
        modifier = word is not None and word.pos == "particle" and word.lemma == "の"
        if nouns and any(w.is_content for w in nouns) and not (targets_only and modifier):
            chains.add("".join(w.surface for w in run))
            if len(nouns) == 1 and nouns[0].gloss:
                chains.add(nouns[0].gloss)
        run = []
    return chains


def compound_modifiers(text: str) -> dict[str, frozenset[str]]:
    """The lemmas of a Japanese text that only modify compound nouns (作業 of 作業場), each with the
    heads it modifies (場); a word that also stands as a head or alone is left out."""
    if language(text) != "ja":
        return {}
    heads: set[str] = set()
    modifying: dict[str, set[str]] = {}
    run: list[Word] = []
    for word in [*analyze(text), None]:
        if word is not None and (word.pos == "suffix" or (word.pos == "noun" and word.is_content)):
            run.append(word)
            continue
        if run:
            heads.add(run[-1].lemma)
            for modifier in run[:-1]:
                if modifier.pos == "noun":
                    modifying.setdefault(modifier.lemma, set()).add(run[-1].lemma)
        run = []
    return {lemma: frozenset(found) for lemma, found in modifying.items() if lemma not in heads}


def _modifies_other_things(clause: str, ask_modifiers: dict[str, frozenset[str]]) -> set[str]:
    """The words that modify a compound in both the rule and the ask, with different heads: 作業 of
    作業場 and of 作業灯 name two things (正面 of 正面ゲート on both sides names one)."""
    mine = compound_modifiers(clause)
    return {lemma for lemma, heads in mine.items() if lemma in ask_modifiers and not heads & ask_modifiers[lemma]}


EN_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "its",
                            "our", "their", "all", "any", "some", "every", "each", "no"})


def english_things(text: str) -> set[str]:
    """The things an English text names: the head of each noun phrase a determiner opens, its last
    word that can be a noun ("into the barrel cellar" → cellar, "past the lower gate" → gate).
    A pronoun ("open them") or a bare plural of people ("pickers included") names no thing."""
    words, things = analyze(text), set()
    for i, word in enumerate(words):
        if word.lemma.lower() not in EN_DETERMINERS:
            continue
        run = []
        subject = not any("VERB" in w.readings for w in words[:i])  # "The barrier stays", not "hand me the gate keys"
        for following in words[i + 1:]:
            ends_the_phrase = "ADV" in following.readings and "ADJ" not in following.readings and run  # "the ice once"
            if not following.is_content or ends_the_phrase or (subject and run and agrees_as_verb(run[-1], following)):
                break
            run.append(following)
        nouns = [w for w in run if not w.readings or "NOUN" in w.readings]
        if nouns:
            things.add(nouns[-1].lemma.lower())
    return things


def targets(clause: str) -> set[str]:
    """What a Japanese prohibition is about: its compound nouns that are not mere modifiers."""
    return noun_chains(clause, targets_only=True) - TIME_FRAME - WHOLE_NIGHT  # 「夜が明けるまで」 frames, it is no target


EN_VERB_LEADS = frozenset(
    "can could will would shall should may might must to not never n't do does did don't let's please "
    "i you we they he she nobody anyone anybody everyone someone no-one one".split())
"""English words after which a word that can be a verb is one ("to *lend*", "nobody *goes*", "could you *move*")."""


def verb_lemmas(text: str) -> set[str]:
    """The verbs of a text. In English, a word that can be a verb where a verb stands: opening a clause
    (not as a plural noun: "Keys stay"), after a modal, "to", a negation or a subject pronoun, after
    "or"/"and" that follows such a verb ("take, move or handle"), or agreeing with the noun before it
    ("the hammer *falls*"); not "bring me water", "spare keys", "two keys", "the new ring"."""
    if language(text) == "ja":
        return {w.lemma for w in analyze(text) if w.pos == "verb"}
    verbs: set[str] = set()
    for clause in forms.CLAUSE_BREAK.split(text):
        words = analyze(clause)
        placed: list[bool] = []
        for i, w in enumerate(words):
            before = words[i - 1] if i else None
            plural = w.surface.lower() != w.lemma.lower() and w.surface.lower().endswith("s")
            placed.append("VERB" in w.readings and (
                (before is None and not plural)
                or (before is not None and before.surface.lower() in EN_VERB_LEADS)
                or (before is not None and before.surface.lower() in ("or", "and") and i >= 2 and placed[i - 2])
                or (before is not None and before.pos == "noun" and before.is_content and agrees_as_verb(before, w))))
            if placed[-1]:
                verbs.add(w.lemma.lower())
    return verbs


def relevant(clause: str, asked: set[str], rare: set[str], deed: set[str] | None = None,
             modifiers: dict[str, frozenset[str]] | None = None, ask_verbs: set[str] | None = None) -> bool:
    """The ask shares with the duty its action (a verb), a word the night seldom uses, or two content words (a loanword and its source word are one:
    ブザー, buzzer; numbers do not count), and at least one of them is in the deed asked for, not
    only in the scene around it. A word that only modifies a compound on both sides (作業 of 作業場
    and of 作業灯) names two different things, and is not shared."""
    shared = ((content_lemmas(clause) | directions(clause)) & asked) - TIME_FRAME  # "until dawn" frames, it does not act
    shared -= _modifies_other_things(clause, modifiers or {})
    shared -= {w.gloss for w in analyze(clause) if w.gloss and w.lemma.lower() in shared}
    shared = {lemma for lemma in shared if not lemma.isdecimal()}  # 一段, 一点: a count names nothing
    verbs = verb_lemmas(clause)
    if ask_verbs is not None:
        verbs &= ask_verbs  # a verb in both: "the press lot" in the ask is no verb
    in_deed = deed is None or bool(shared & deed)
    return in_deed and (len(shared) >= 2 or bool(shared & verbs) or bool(shared & rare))


def asked_to_act(request: Request) -> Reply | None:
    """Asked to do something no prohibition covers: comply, quoting the ask; when no prohibition
    shares a word with it (outside the reading contract), the record says so, with the words of each."""
    ask = ask_in(request.question)
    if ask is None or material.kind_of_user_text(request.question) == "note":
        return None
    outside = unlinked(request.question, [duty.clause for duty in request.duties_of("prohibition")])
    asked = replace(request.asked(ask), unlinked=outside)
    return Reply(phrase(request.lang, "comply", ask=ask), (asked,), "comply")


def acknowledge(request: Request) -> Reply:
    """Anything else: acknowledged, nothing added."""
    return Reply(phrase(request.lang, "acknowledge"), (request.asked(),))


RULES: list[Callable[[Request], Reply | None]] = [
    summarize, forbidden, duties, report, remember, hourly, asked_to_act, acknowledge,
]


def rules_text() -> str:
    """The rules in order, one line each, as a chapter prints them."""
    return "\n".join(f"{n}. {rule.__name__}: {' '.join((rule.__doc__ or '').split())}" for n, rule in enumerate(RULES, start=1))


def read(messages: Sequence[Mapping[str, str]]) -> Reply:
    """The reader's reply to a request: a pure function of the messages."""
    if not messages:
        return Reply(PHRASES["ja"]["silence"], act="silence")
    question = messages[-1].get("content", "")
    request = Request(messages, question, language(question), read_duties(messages), material_lines(messages))
    for rule in RULES:
        reply = rule(request)
        if reply is not None:
            return reply
    raise AssertionError("acknowledge always answers")
