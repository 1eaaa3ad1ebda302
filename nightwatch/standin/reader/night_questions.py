"""Questions about the whole: the night as a whole (the morning report) and the mission as a whole
(the duties). Neither names one thing of the night; both are told apart from recall, which does."""

from __future__ import annotations

from nightwatch.standin.reader import forms, material, recall
from nightwatch.standin.reader.deeds import SAYING, requested_verbs
from nightwatch.standin.reader.concepts import framing_removed
from nightwatch.standin.reader.instructions import Duty
from nightwatch.standin.reader.text import language, quoted, sentences
from nightwatch.standin.reader.words import analyze, content_lemmas, subject_lemmas

REPORTING = frozenset({
    # what a morning report is asked with: the report itself, the night's events, what happened
    "報告", "出来事", "申し送り", "申し送る", "引き継ぎ", "引き継ぐ", "異変",
    "report", "handover", "incident", "event", "overnight", "summary", "debrief", "rundown", "news",
})
RECORDS = frozenset({"記録", "日誌", "帳面", "ノート", "log", "logbook", "record", "book", "journal", "note", "notes"})
"""Where a report duty keeps the night: asked for by name, it is the report."""
HAPPENING = frozenset({"有る", "起こる", "起きる", "happen", "occur", "go", "miss"})
WHOLE_NIGHT = frozenset({"夜", "夜間", "夜中", "昨晩", "昨夜", "晩", "ゆうべ", "今夜", "一晩", "night", "overnight", "evening",
                         "everything", "順番", "順", "全部"})
DUTY_WORDS = frozenset({
    "務め", "役目", "仕事", "任務", "役割", "指示", "命令", "決まり", "言いつけ", "勤め", "担当", "業務", "受け持ち", "役",
    "duty", "job", "order", "instruction", "task", "responsibility", "responsible", "role", "standing", "suppose",
})
DOING = frozenset({"do", "為る", "やる", "遣る"})
TELLING = frozenset({"教える", "聞く", "聞かせる", "話す", "纏める", "言う", "貰う", "tell", "say", "talk", "speak", "hear", "bring",
                     "speed", "give", "walk", "run", "take", "morning", "おはよう", "お早う"})
SECOND_PERSON = frozenset({"you", "貴方", "あなた", "君", "お前"})
KNOWING = frozenset({"know", "知る", "知らせる", "note", "need"})
PARTICLES = frozenset({"over", "down", "up", "in", "out", "through"})


def is_you(word) -> bool:
    """The second person: a pronoun, not the suffix of a name (川口くん: くん is 君 only as a title)."""
    return word.lemma.lower() in SECOND_PERSON and word.pos != "suffix"


def addressed(sentence: str) -> bool:
    """Does the sentence name "you" (あなた, 君 as a pronoun)?"""
    return any(is_you(w) for w in analyze(sentence))


def asks_for_report(question: str, report_duties: list[Duty], lines: list[material.Line]) -> bool:
    """An ask or question about the night as a whole, in any of its sentences: it names reporting
    (a phrasal verb counts: "hand it over"), asks whether there is anything to know, asks what
    happened with no one thing named (a question that names a fact of the night is recall), or
    names what a report duty names."""
    night_before: set[str] = set()
    for sentence in _said(question):
        found = content_lemmas(sentence) | forms.lemmas(sentence) | phrasal_nouns(sentence)
        if found & ANAPHORS and deeds_of_telling(sentence):
            found |= night_before  # "Cheers for last night. Talk me through it.": *it* is the night
        named = named_in(sentence)
        named_besides = named - WHOLE_NIGHT - HAPPENING - TELLING - REPORTING - recall.WHEN_ASKED
        night_before = WHOLE_NIGHT & found if len(named_besides) <= 2 else set()  # "Simone: Cheers for last night."
        prompt = _asked_without_a_verb(sentence)
        if not (forms.is_request(sentence) or forms.is_question(sentence) or forms.claims_permission(sentence) or prompt):
            continue
        if recall.RECALL_WORDS & found or DUTY_WORDS & found:
            continue
        span, of_the_night = _night_frames(sentence)
        span = {lemma for lemma in span if not _names_a_fact({lemma}, lines)}  # 停電中: the outage is a fact's, not the watch
        if forms.INTERROGATIVES & found:
            of_the_night = set()  # 「夜中の物音は何だった？」 asks what one thing was
        asked_about = named_besides - forms.ASKING - forms.EN_OPENERS - span
        if REPORTING & found and len(asked_about) <= 2:
            return True
        if found & {"anything", "何か"} and not asked_about - KNOWING and forms.is_question(sentence):
            return True  # "Anything I should know?": whatever there is to know, nothing named
        asks_what = found & (forms.INTERROGATIVES | {"what", "how", "any", "anything", "何か", "everything"})
        whole_night = WHOLE_NIGHT & found or span or (HAPPENING & found and not requested_verbs(sentence) & HAPPENING and (
            asks_what or forms.is_question(sentence) or _happened(sentence)))
        # a verb of happening asks about the night in a question ("how did it go?") or in the past ("tell me if
        # something happened"), not in an ask to go and get something
        if WHOLE_NIGHT & found and _names_a_record(sentence):
            return True  # 「夜の記録を読み上げて」, "read me the night's log": the night's record is the report
        if whole_night and len(asked_about - KNOWING) <= 1 and not _names_a_fact(asked_about - KNOWING - of_the_night, lines) and (
                forms.is_request(sentence) or asks_what):
            return True  # "How did the night go?", "Talk me through the night."
        if any(len(asked_about - KNOWING - shared) <= 1 for duty in report_duties
               if (shared := (content_lemmas(duty.clause) & asked_about) - DUTY_WORDS)
               and (whole_night or shared & RECORDS)):
            return True  # it names what the report duty names ("write me up the night", "let's hear the log")
    return False


ANAPHORS = frozenset({"it", "that", "this"})
"""English pronouns that stand for what the sentence before named."""
TELLING_DEEDS = frozenset({"talk", "walk", "run", "hear", "take"})
"""Verbs that, with "through" or alone, ask to be told the night ("talk me through it")."""


def deeds_of_telling(sentence: str) -> bool:
    """The sentence asks to be told: its requested verb, or a verb with the speaker as its object ("talk
    me through it … before you go"), is one of saying or of going through."""
    words = analyze(sentence)
    to_me = {w.lemma.lower() for w, after in zip(words, words[1:]) if after.surface.lower() in ("me", "us")}
    return bool((requested_verbs(sentence) | to_me) & (SAYING | TELLING_DEEDS))


def _happened(sentence: str) -> bool:
    """A verb of happening in the past: "happened", "went wrong", 「あった」 (not the base "go and get")."""
    words = analyze(sentence)
    if language(sentence) == "ja":
        return any(w.lemma in HAPPENING and i + 1 < len(words) and words[i + 1].lemma == "た" for i, w in enumerate(words))
    return any(w.lemma.lower() in HAPPENING and w.surface.lower() != w.lemma.lower() for w in words)


def _asked_without_a_verb(sentence: str) -> bool:
    """「申し送りをどうぞ」「報告を。」: a report named as an object (を) that no verb takes, the verb left
    to the listener, nothing after it but an adverb; 「異変なし」 names no object, 「報告をありがとう」 thanks."""
    words = analyze(sentence)
    if language(sentence) != "ja" or any(w.pos in ("verb", "aux_verb") for w in words):
        return False
    at = next((i for i, (w, following) in enumerate(zip(words, words[1:]))
               if w.lemma in REPORTING and following.lemma == "を"), None)
    return at is not None and all(w.pos in ("adverb", "symbol", "particle") for w in words[at + 2 :])  # not 「報告をありがとう」


def _night_frames(sentence: str) -> tuple[set[str], set[str]]:
    """In Japanese, the words that make a span of time (夜勤中, 留守のあいだ: a noun before 中 or before
    の間) and the nouns said to be of the night or of such a span (夜の分, 夜のあいだの様子): asked
    about with nothing else and no interrogative, and the span no fact's (停電中 is an outage's), they
    ask for the whole watch, not for one fact."""
    if language(sentence) != "ja":
        return set(), set()
    words = analyze(sentence)
    span: set[str] = set()
    of_the_night: set[str] = set()
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else None
        if word.pos == "noun" and following is not None and (
                (following.pos == "suffix" and following.lemma == "中")
                or (following.lemma == "の" and i + 2 < len(words) and words[i + 2].lemma == "間")):
            span.add(word.lemma)
        if word.lemma == "間" and i > 0 and words[i - 1].lemma == "の":
            span.add(word.lemma)
        if word.lemma == "の" and i > 0 and (words[i - 1].lemma in span | WHOLE_NIGHT or words[i - 1].lemma == "中") \
                and following is not None and following.pos == "noun":
            of_the_night.add(following.lemma)
    return span, of_the_night


RECORD_OPENERS = frozenset({"the", "your", "my", "our", "this", "that", "'s"})


def _names_a_record(sentence: str) -> bool:
    """A record (RECORDS) named as a thing: in English, after a determiner, a possessive or another
    noun ("the night's log", "the night log"), as written or in the plural; not a verb of the same
    spelling ("he'd booked", "can you log the deliveries")."""
    words = analyze(sentence)
    return any(w.pos == "noun" and w.lemma.lower() in RECORDS and (
        not w.lemma.isascii() or i > 0 and w.surface.lower() in (w.lemma.lower(), w.lemma.lower() + "s")
        and (words[i - 1].surface.lower() in RECORD_OPENERS or words[i - 1].is_content and "VERB" not in words[i - 1].readings))
        for i, w in enumerate(words))


def _said(question: str) -> list[str]:
    """Each sentence of the question, each quoted speech whole and each sentence of it
    (「おはよう。夜のあいだのこと、聞かせてくれる？」 asks in its second sentence)."""
    speeches = quoted(question)
    found = sentences(question) + speeches + [s for speech in speeches for s in sentences(speech)]
    return list(dict.fromkeys(found))


REASONS = frozenset({"から", "ので"})
"""Conjunctive particles that end a clause giving a reason (「会議で使うから、」); 〜ですが、 and 〜けど、
introduce what is asked about (「傘の件ですが、…」) and stay."""


def named_in(sentence: str) -> set[str]:
    """What a sentence names, less what only frames it: a lead-in before a colon when the rest asks
    on its own, a clause that gives a reason first (「朝礼に出しますので、」, "before I sign the
    ledger,"), a count in words (ひととおり; "23:10" names a time), a noun that only says how (漏れなく)
    and the helper verbs of giving and receiving (〜いただけますか)."""
    text = reason_removed(framing_removed(recall.after_lead_in(sentence)))
    words = analyze(text)
    counts = {w.lemma.lower() for w in words if w.pos == "num" and not any(c.isdigit() for c in w.surface)}  # ひと通り
    manner = {w.lemma for w, following in zip(words, words[1:])
              if w.pos == "noun" and following.lemma == "無い" and following.form.startswith("連用形")}  # 漏れなく
    framing = counts | manner | forms.GIVING_HELPERS
    return set(content_lemmas(text)) - framing


TIME_FRAMES = frozenset({"前", "後", "間"})
"""The nouns of relative time that make a frame like "before the shift change," (「交代の前に、」)."""


def reason_removed(text: str) -> str:
    """A Japanese sentence from after its last clause that ends in a particle of reason (〜ので, 〜から,
    with or without a comma), or a frame of time and a comma (「朝礼の前に、」): what it asks comes after."""
    words = analyze(text)
    cut = 0
    for i, word in enumerate(words[:-1]):
        reason = (word.pos == "particle" and word.detail == "接続助詞" and word.lemma in REASONS) \
            or (word.surface == "で" and word.lemma == "だ" and i > 0 and words[i - 1].lemma == "の") \
            or (word.pos == "particle" and word.lemma in ("に", "で") and i > 0 and words[i - 1].lemma in TIME_FRAMES)
        if reason and words[i + 1].surface in ("、", ","):
            cut = i + 2
        elif any(w.is_content for w in words[i + 1 :]) and (
                (word.pos == "particle" and word.detail == "接続助詞" and word.lemma in REASONS)
                or (word.surface == "で" and word.lemma == "だ" and i > 0 and words[i - 1].lemma == "の")):
            cut = i + 1  # 「火が小さくなってきたので薪を足して」: a reason ends at its particle, comma or not (not 前で)
    return "".join(w.surface for w in words[cut:]) if cut and language(text) == "ja" else text


def _names_a_fact(asked_about: set[str], lines: list[material.Line]) -> bool:
    """The one thing a question about the night names is in a fact ("what got delivered in the
    night?"): it asks for that fact, not for the whole night."""
    return bool(asked_about) and any(asked_about <= _named_by(fact.text) for fact in material.facts(lines))


def _named_by(text: str) -> frozenset[str]:
    """The content lemmas of a fact, less the counters of its numbers (「10分」 counts minutes; it does
    not name the 分 of 「夜の分」)."""
    words = analyze(text)
    counters = {w.lemma for prev, w in zip(words, words[1:]) if prev.pos == "num"}
    return frozenset(content_lemmas(text) - counters)


def phrasal_nouns(sentence: str) -> set[str]:
    """English phrasal verbs read as the nouns made of them: "hand it over" → handover, "run it
    down" → rundown (a verb and its particle, with at most one word between)."""
    if language(sentence) != "en":
        return set()
    words = [w.lemma.lower() for w in analyze(sentence)]
    return {verb + particle for i, verb in enumerate(words) for particle in words[i + 1 : i + 3]
            if particle in PARTICLES}


def asks_for_duties(question: str) -> bool:
    """Asked what its duties are: a question or ask (said, or passed on in quotes) that names duties
    (務め, job, responsible), or asks what "you" are to do or are doing now (「あなたが任されていること」,
    "what are you looking after tonight")."""
    for sentence in _said(question):
        reported = _reports_a_question(sentence)
        if not (forms.is_question(sentence) or forms.is_request(sentence) or reported):
            continue
        if reported:
            sentence = _reported_part(sentence)  # "…hands in delivery orders, and asks if you'd stamp one": what is asked
        found = content_lemmas(sentence) | forms.lemmas(sentence) | _verbs_as_nouns(sentence)
        found |= {lemma[:-1] for lemma in found if lemma.endswith("事") and len(lemma) > 2}  # 決まり事: a 決まり
        if DUTY_WORDS & (found - _modifiers(sentence)) and not _about_someone_else(sentence):
            return True
        if _what_you_were_told(sentence) or _entrusted(sentence):
            return True
        if (recall.RECALL_WORDS - {"remind"}) & found:  # "remind me what you do" still asks for duties
            continue
        if found & (forms.INTERROGATIVES | {"what"}) and addressed(sentence) and _you_do(sentence):
            return True
        if _what_you_are_doing(sentence) or _yours_tonight(sentence) or _what_is_to_be_done(sentence) \
                or _your_purpose(sentence):
            return True
    return False


def _your_purpose(sentence: str) -> bool:
    """English: what "you" are somewhere for, the preposition left at the end of its clause with no verb
    before it ("What are you up here for all night?"; "What are you waiting for?" has a verb of its own)."""
    words = analyze(sentence) if language(sentence) == "en" else ()
    lemmas = [w.lemma.lower() for w in words]
    for you, lemma in enumerate(lemmas):
        if lemma != "you" or "what" not in lemmas[:you] or not {"are", "'re"} & set(lemmas[max(0, you - 2) : you]):
            continue
        at = next((j for j in range(you + 1, len(words)) if lemmas[j] == "for"), None)
        return at is not None and not any(w.is_content or "VERB" in w.readings for w in words[you + 1 : at])
    return False


EN_AUXILIARIES = frozenset({"did", "does", "do", "has", "have", "had", "will", "would", "can", "could"})


def _about_someone_else(sentence: str) -> bool:
    """An English question whose subject is someone else, with no "you" in it ("Did the vet leave any
    instructions for Kaze?", "did the supplier say when the next order's coming?"): its orders and
    instructions are theirs, not the watch's."""
    words = analyze(sentence) if language(sentence) == "en" else ()
    lowered = [w.surface.lower() for w in words]
    if {"you", "your", "yours"} & set(lowered) or (NOW | WHOLE_NIGHT | {"watch"}) & set(lowered):
        return False  # "Did the manager leave any instructions for tonight?" asks for tonight's duties
    for i, word in enumerate(lowered[:4]):
        if word in EN_AUXILIARIES and i + 1 < len(words) and (lowered[i + 1] in ("the", "a", "an", "that", "this")
                                                              or (words[i + 1].pos == "noun" and words[i + 1].surface[:1].isupper())):
            subject = next((w for w in words[i + 2 : i + 5] if w.pos == "noun" and w.is_content), words[i + 1])
            return subject.lemma.lower() not in DUTY_WORDS  # "Have the instructions changed?" is about them
    return False


ASKING_VERBS = frozenset({"ask", "wonder", "聞く", "尋ねる"})
REPORTED_WH = forms.EN_WH | {"whether", "if"}


def _verbs_as_nouns(sentence: str) -> set[str]:
    """Japanese verbs in their 連用形 after の, used as nouns and read as written (「あなたの受け持ち」:
    受け持ち, the noun, not the verb 受け持つ)."""
    words = analyze(sentence) if language(sentence) == "ja" else ()
    return {w.surface for before, w in zip(words, words[1:])
            if w.pos == "verb" and w.form.startswith("連用形") and before.lemma == "の"}


def _modifiers(sentence: str) -> set[str]:
    """Japanese nouns a suffix makes into another word (担当 of 担当者: the person, not the duty;
    仕事 of 仕事内容 is still the work)."""
    words = analyze(sentence) if language(sentence) == "ja" else ()
    return {w.lemma for w, after in zip(words, words[1:]) if w.pos == "noun" and after.pos == "suffix"}


def _reports_a_question(sentence: str) -> bool:
    """A question passed on in someone's words: a verb of asking, then what it asks ("Owen asked me
    what you're here to do", 「何をするのか聞いています」)."""
    words = analyze(sentence)
    if language(sentence) == "en":
        return any(w.lemma.lower() in ASKING_VERBS and any(x.surface.lower() in REPORTED_WH for x in words[i + 1 : i + 5])
                   for i, w in enumerate(words))
    return any(w.lemma in ASKING_VERBS and i and any(x.lemma == "か" for x in words[max(0, i - 3) : i])
               for i, w in enumerate(words))


def _reported_part(sentence: str) -> str:
    """An English reported question from its verb of asking on ("Owen asked me what you're here to do");
    a Japanese one is read whole (its question comes before the verb: 「何をするのか聞いています」)."""
    if language(sentence) != "en":
        return sentence
    words = analyze(sentence)
    at = next((i for i, w in enumerate(words) if w.lemma.lower() in ASKING_VERBS), None)
    if at is None or any(w.surface.lower() in ("you", "your", "yours") for w in words[:at]):
        return sentence  # "About your duties tonight, Kev asked whether…": the part before is about you
    return " ".join(w.surface for w in words[at:])


def _what_is_to_be_done(sentence: str) -> bool:
    """Japanese, where the doer goes unsaid: 何 as the object of the verb of doing, with no one else as the
    subject and the doing not in the past (「この当直で何をすればいいのか」「今夜って何をやることになってたっけ」;
    「田中さんは何をしていたの」 and 「さっき何をしたっけ」 ask what happened); or the doing made the thing to be
    told (「今夜やるべきことは何ですか」「今夜やることを教えて」; 「昨日やったこと」 is the past)."""
    words = [w for w in analyze(sentence) if w.pos != "symbol"]
    if language(sentence) != "ja" or subject_lemmas(sentence) - SECOND_PERSON - WHOLE_NIGHT - NOW:
        return False
    for i, word in enumerate(words):
        if word.lemma != "何":
            continue
        verb = next((j for j in range(i + 1, min(i + 4, len(words))) if words[j].pos == "verb"), None)
        if verb is None or words[verb].lemma not in DOING:
            continue
        after = [w.lemma for w in words[verb + 1 : verb + 4] if w.lemma not in ("て", "居る", "で")]
        return not after[:1] == ["た"]
    for i, word in enumerate(words):  # 「やるべきこと」「今夜やること」: the doing, made a thing to be told
        if word.lemma in DOING and word.pos in ("verb", "aux_verb") and word.form.startswith(("終止形", "連体形")):
            after = next((w for w in words[i + 1 :] if w.lemma != "べし"), None)  # past べき, to the noun
            if after is not None and after.lemma == "事":
                return True
    return False


def names_duties(question: str) -> bool:
    """A sentence of the question names duties (務め, job), what "you" were told to do, or tonight
    as the present (「今夜あなたがやるべきこと」): then it asks for the duties even if it also reads
    as a question about the night. Otherwise the night as a whole, past, is the report's: "What have
    you got for me from the night?" """
    return any(_names_duties(s) for s in sentences(question))


def _names_duties(sentence: str) -> bool:
    found = content_lemmas(sentence) | forms.lemmas(sentence)
    what_you_do = forms.is_question(sentence) and "what" in found and addressed(sentence) \
        and _you_do(sentence) and not EN_PAST_MARKS & found  # "what do you do here all night?"
    return bool(DUTY_WORDS & (found - _modifiers(sentence)) or NOW & found) or what_you_do \
        or _what_you_were_told(sentence) or _entrusted(sentence) or _your_purpose(sentence)


NOW = frozenset({"tonight", "今夜", "今晩", "今日"})


def _yours_tonight(sentence: str) -> bool:
    """Asks what one thing of "yours" is tonight: "what" (何), the second person as the possessor of
    a single noun ("your remit", 「きみの持ち場」), tonight as the present, and (in Japanese) no verb but the copula
    ("what's on your list tonight?", 「今夜のきみの持ち場って何だっけ」). "How's your shift going",
    "what's your boiler reading" and 「持ち場で何かあった」 ask about the night or a fact."""
    if not forms.is_question(sentence):
        return False
    words = analyze(sentence)
    lemmas = [w.lemma.lower() for w in words]
    what = [i for i, lemma in enumerate(lemmas) if lemma in ("what", "何")]
    if not NOW & set(lemmas) or not what or any(i + 1 < len(words) and words[i + 1].pos == "noun" for i in what):
        return False  # 「何時」「何番」 ask for a time or a number
    verbs = [w for w in words if w.pos in ("verb", "aux_verb") and w.lemma.lower() not in ("be", "'s", "is", "are")]
    if verbs or (language(sentence) == "en" and EN_PAST_MARKS & (set(lemmas) | {w.surface.lower() for w in words})):
        return False
    owner = [i + (2 if lemmas[i + 1] == "の" else 1) for i, lemma in enumerate(lemmas[:-2])
             if (is_you(words[i]) or lemma == "your") and (lemmas[i + 1] == "の" or lemma == "your")]
    return any(words[j].pos == "noun" and (j + 1 == len(words) or words[j + 1].pos != "noun" and words[j + 1].lemma != "の")
               for j in owner)  # one noun, owned by "you" alone (not 「あなたの最初の見回り」)


INSTRUCTING = frozenset({"ask", "tell", "instruct", "order", "assign", "charge", "give",
                         "頼む", "任せる", "任す", "言い付ける", "命じる", "指示", "言う"})


PASSIVE_AUXILIARIES = frozenset({"be", "is", "are", "am", "was", "were", "been", "being", "get", "got", "'re"})


def _what_you_were_told(sentence: str) -> bool:
    """Asks what "you" were told or asked to do: the second person, then a verb of instructing in
    the passive, followed in English by its infinitive ("what you were asked to look after",
    「あなたが頼まれたこと」); "what you were told about the cat" asks for a fact."""
    words = analyze(sentence)
    you = next((i for i, w in enumerate(words) if is_you(w)), None)
    if you is None:
        return False
    after = words[you + 1 :]
    if language(sentence) == "en":
        return any(w.lemma.lower() in INSTRUCTING and w.surface.lower() != w.lemma.lower() and 0 < i < len(after) - 1
                   and after[i - 1].surface.lower() in PASSIVE_AUXILIARIES and after[i + 1].surface.lower() == "to"
                   for i, w in enumerate(after))
    return any(w.lemma in INSTRUCTING and i + 1 < len(after) and after[i + 1].lemma in ("れる", "られる")
               for i, w in enumerate(after))


def _entrusted(sentence: str) -> bool:
    """Japanese, the doer unsaid: what was entrusted or asked, made a thing to be told, and no one
    else its subject (「今夜の夜番で任されていること」「今夜お願いしたこと」「何を任されてるの」)."""
    sentence = reason_removed(sentence)  # 「新人さんが知りたがっているので、」 gives a reason; its subject is not the doer's
    if language(sentence) != "ja" or subject_lemmas(sentence) - SECOND_PERSON - WHOLE_NIGHT - NOW:
        return False
    words = analyze(sentence)
    if {w.lemma for w in words} & (recall.RECALL_WORDS | {"さっき", "先程", "け"}):
        return False  # 「さっき頼まれたことって何だっけ」 asks what happened
    for i, word in enumerate(words):
        if word.lemma not in INSTRUCTING | {"願う"}:
            continue
        doer = words[i - 2] if i >= 2 and words[i - 1].lemma in ("に", "から") else None
        if doer is not None and not is_you(doer):
            return False  # 「職人さんに頼まれたこと」: asked by someone, a fact of the night
        rest = [w.lemma for w in words[i + 1 : i + 6]]
        passive = bool({"れる", "られる"} & set(rest[:2]))  # 任されて, 頼まれて: what you were given
        made_a_thing = (passive or word.lemma == "願う") and "事" in rest  # 任されていること, お願いしたこと
        asked_what = passive and "何" in [w.lemma for w in words[max(0, i - 3) : i]]  # 何を任されてる
        if made_a_thing or asked_what:
            return True
    return False


EN_PAST_MARKS = frozenset({"did", "was", "were", "had", "'d", "said", "told", "saw", "heard"})


def _what_you_are_doing(sentence: str) -> bool:
    """Asks what "you" are doing now, not what you did: "what are you looking after tonight",
    "remind me what you're on the hook for", 「今夜あなたが任されていることを言って」. A second
    person as the subject of a clause in the present, under "what" (or, in Japanese, nominalised
    with こと/の), and nothing in it in the past tense."""
    words = analyze(sentence)
    lemmas = [w.lemma.lower() for w in words]
    you = next((i for i, w in enumerate(words) if is_you(w)), None)
    if you is None:
        return False
    if language(sentence) == "en":
        surfaces = {w.surface.lower() for w in words}  # "saw", "told": a past form is its surface, not its lemma
        return "what" in lemmas[max(0, you - 3) : you] and not EN_PAST_MARKS & (set(lemmas) | surfaces)
    if you + 1 >= len(words) or words[you + 1].lemma not in ("が", "は"):
        return False
    rest = words[you + 2 :]
    nominalised = next((i for i, w in enumerate(rest) if w.lemma in ("事", "の") and i > 0
                        and rest[i - 1].pos in ("verb", "aux_verb", "aux")), None)
    return nominalised is not None and not any(w.pos == "aux" and w.lemma == "た" for w in rest[:nominalised])


def _you_do(sentence: str) -> bool:
    """"you" (あなた) and, after it with no other subject between, the verb of doing: "what are you here to
    do", 「あなたは何をする」."""
    words = analyze(sentence)
    lemmas = [w.lemma.lower() for w in words]
    you = next((i for i, w in enumerate(words) if is_you(w)), None)
    return you is not None and any(lemma in DOING and not OTHER_SUBJECTS & set(lemmas[you + 1 : j])
                                   for j, lemma in enumerate(lemmas) if j > you)  # not "so they can see what they're doing"


OTHER_SUBJECTS = frozenset({"i", "we", "they", "he", "she", "it", "私", "彼", "彼女"})
