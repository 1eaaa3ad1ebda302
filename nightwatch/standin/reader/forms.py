"""Forms: what a sentence does, read from parts of speech and inflection, not from phrases.

* a *request*: a verb in the imperative, or a verb's て-form followed by a helper of giving or
  wanting (くれる, くださる, もらう, いただく, ほしい), お+願う; in English an imperative opening
  (a base-form verb before a determiner), please, a modal question to "you" (could/would/can/will
  you), or a verb of wanting or asking with "you to" — wherever it stands, so a reported ask
  ("the driver says he wants the gate opened") is still one;
* a *permission claim*: 〜てもいい / 構わない / 許可, "fine / okay / allowed to", "permission";
* a *question*: か / の with a question mark, or an English question mark or interrogative opening;
* *negation*: an auxiliary ない / ぬ / ず, 禁止 or the prohibitive な after a dictionary form;
  never / not / no one / nobody / n't in English;
* a *scene* sentence: it only says who or where (a copula and no other verb).

The closed lemma classes below (what counts as a helper, a verb of wanting, a time unit) are the
only vocabulary here; none of it belongs to a story.
"""

from __future__ import annotations

import re

import simplemma

from nightwatch.standin.reader.words import (
    ENGLISH_DETERMINERS, WORD_CACHE_BYTES, WORD_CACHE_ENTRIES, Word, agrees_as_verb, analyze, language,
)
from nightwatch.tokens.bounded_cache import bounded_cache

GIVING_HELPERS = frozenset({"呉れる", "下さる", "貰う", "貰える", "頂く", "頂ける", "欲しい", "呉れ"})
PERMISSION = frozenset({"良い", "構う", "宜しい", "大丈夫", "許可", "許す"})
NEGATORS = frozenset({"ない", "ぬ", "ず", "ん", "無い"})
PROHIBITIVE_NOUNS = frozenset({"禁止", "厳禁", "無用"})
EN_NEGATORS = frozenset({"not", "never", "no", "nobody", "none", "nothing", "neither", "nor"})
EN_NEGATIVE_VERBS = frozenset({"forbid", "prohibit", "refuse", "deny", "ban", "prevent", "avoid"})
EN_MODALS = frozenset({"could", "would", "can", "will", "might"})
ASKING = frozenset({"頼む", "願う", "依頼", "ask", "request", "beg"})
"""Verbs of asking: the form of a request (「誰に頼まれても」, "whoever asks"), never what it is about."""
EN_WH = frozenset({"what", "which", "who", "where", "when", "how", "why"})
EN_WANTING = frozenset({"want", "ask", "need", "like", "tell", "request", "beg", "wish", "insist"})
WANTING_A_THING_DONE = frozenset({"want", "need", "like", "wish"})
"""Lemmas of wanting and asking: any inflection (asks, asked, asking) passes an ask on."""
EN_GRANTED = frozenset({"allowed", "permission", "permitted", "authorised", "authorized", "approved", "cleared", "okayed"})
EN_PERMISSION = frozenset({"fine", "okay", "ok", "alright"})
"""Words that say a thing is all right; they grant something only when what is allowed follows them
("fine to open it", "okay for him to") or when they say it of "it" or "that" (an ask just made)."""
EN_ALLOWING_WHAT = frozenset({"to", "for", "if"})
EN_INTERROGATIVES = frozenset({"what", "who", "when", "where", "why", "how", "which", "is", "are", "was", "were",
                               "do", "does", "did", "have", "has", "can", "could", "will", "would", "should"})
QUESTION_PARTICLES = frozenset({"か", "かな", "かしら", "っけ", "け", "の", "かい", "だい"})
INTERROGATIVES = frozenset({"何", "誰", "何処", "どこ", "どれ", "どちら", "何方", "何時", "いつ", "如何", "どう", "どの", "どんな", "何故"})
EN_OPENERS = frozenset({"please", "now", "then", "and", "so", "just", "kindly", "also", "right", "okay", "ok", "well"})
EN_COPULAS = frozenset({"am", "is", "are", "was", "were", "be", "'re", "'s"})


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def is_request(sentence: str) -> bool:
    """Does the sentence ask someone to do something, in any voice (direct, polite, reported)?"""
    words = analyze(sentence)
    if language(sentence) == "ja":
        if _greeting(words):
            return False
        for i, word in enumerate(words):
            if word.pos in ("verb", "aux_verb") and word.form.startswith("命令形") and word.lemma not in ("為る",) \
                    or (word.lemma == "為る" and word.form.startswith("命令形") and i > 0):
                return True
            if word.lemma in ("て", "で") and word.pos == "particle" and i + 1 < len(words) \
                    and words[i + 1].lemma in GIVING_HELPERS and _helper_asks(words, i + 1):
                return True
            if word.lemma in ("下さる", "頂戴") or (word.pos == "aux" and word.lemma == "たい"):
                return True  # 〜をください, 〜ちょうだい; a wish (〜したい) voiced to the watchman or passed on
            if word.surface in ("お", "ご", "御") and i + 2 < len(words) and words[i + 1].pos == "verb" \
                    and words[i + 2].lemma in ("出来る", "願う", "頂く", "頂ける"):
                return True  # お借りできませんか, お願いします
            if word.surface == "お" and i + 1 < len(words) and words[i + 1].lemma == "願う":
                return True
            if word.lemma in ("頼む", "依頼"):
                return True
        verbs = [i for i, w in enumerate(words) if w.pos == "verb"]
        if verbs and words[verbs[-1]].lemma == "出来る" and is_question(sentence) \
                and not any(w.pos == "aux" and w.lemma == "た" for w in words[verbs[-1] :]):
            return True  # 「…読むことはできませんか」: asked whether it may be done is asked to allow it
        return _ends_in_te(words)
    lowered = [w.surface.lower() for w in words]
    lemmas = [w.lemma.lower() for w in words]
    if "please" in lowered or "kindly" in lowered or "let's" in lowered:
        return True
    for i, word in enumerate(lowered[:-1]):
        if lemmas[i] in ("like", "love") and i > 0 and lowered[i - 1] in ("would", "'d"):
            return True  # "he'd like the code", "would like to sit in the cab", "would love to come up"
        if word in EN_MODALS and lowered[i + 1] in ("you", "we", "i", "my", "our") and is_question(sentence):
            return True  # "Could you…?", "Could we…?", "Could my kids…?"
        if word in EN_MODALS and lowered[i + 1] == "it" and {"if", "to"} & set(lowered[i + 2 : i + 8]):
            return True  # "Would it be all right if I…", "Would it be possible for us to park…"
        if word in ("you", "i", "we") and lowered[i + 1] in EN_MODALS and i > 0 and is_question(sentence) \
                and not EN_WH & set(lowered[:i]):
            return True  # "Any chance you could…?", "Is there any chance I could…?" (not "Do you know when we can…")
        if word in ("want", "wants", "wanted", "need", "needs"):
            return True  # someone wants something done or had: an ask, however it is passed on
        if lemmas[i] in EN_WANTING and "to" in lowered[i + 1 : i + 5]:
            return True
        if lemmas[i] in EN_WANTING and (lowered[i + 1] == "for" or {"if", "whether"} & set(lowered[i + 1 : i + 3])):
            return True  # "asking whether you'll…", "asking again whether…"
        if lemmas[i] in EN_WANTING and any(_regular_participle(w) for w in lowered[i + 2 : i + 6]):
            return True  # "wants the gate opened"
        if lemmas[i] in WANTING_A_THING_DONE and any(_participle(w) for w in words[i + 2 : i + 6]):
            return True  # "wanting her pony led out" (not "told me he came back": a verb of saying takes a clause)
        if lemmas[i] == "say" and lowered[i + 1] == "to" and i + 2 < len(words) and "VERB" in words[i + 2].readings \
                and words[i + 2].surface.islower() and lowered[i + 3 : i + 4] != ["you"]:
            return True  # "said to open the front door": an order passed on ("said to tell you…" passes a message)
    return any(is_english_imperative(clause) for clause in CLAUSE_BREAK.split(sentence))


def _regular_participle(surface: str) -> bool:
    """"opened", "taken": a past participle by its ending."""
    return surface.endswith(("ed", "en")) and len(surface) > 4


def _participle(word: Word) -> bool:
    """A past participle: a regular one, or an irregular form of a verb ("led", "shut" read as lead, shut)."""
    surface = word.surface.lower()
    return _regular_participle(surface) or (
        "VERB" in word.readings and surface != word.lemma.lower() and not surface.endswith(("s", "ing")))


def _greeting(words: tuple[Word, ...]) -> bool:
    """「今夜もよろしくお願いします」: 宜しく with a verb of asking and nothing asked for (no other
    verb, and no noun but one with も: 今夜も): a greeting. 「報告をよろしくお願いします」 and
    「鍵の件、よろしく」 ask for something."""
    verbs = {w.lemma for w in words if w.pos == "verb"} - {"為る"}
    named = [i for i, w in enumerate(words) if w.pos == "noun" and w.is_content]
    return any(w.lemma == "宜しく" for w in words) and verbs <= {"願う", "頼む"} \
        and all(i + 1 < len(words) and words[i + 1].lemma == "も" for i in named)


def _helper_asks(words: tuple[Word, ...], at: int) -> bool:
    """A helper of giving after a て-form asks for the deed (「開けてもらえますか」「開けてほしい」「開けて
    くれ」「開けていただけると助かります」) unless it only tells who does it for whom: a statement
    (「11時までやってくれます。」「運んでもらいました」), the past asked back included (「開けてくれた？」).
    Read from what follows the helper to the sentence's end: a question, a wish or a condition asks."""
    helper = words[at]
    if helper.lemma == "欲しい" or helper.form.startswith(("命令形", "仮定形")):
        return True
    rest = words[at + 1 :]  # the helper's own ending: up to the next verb (「…かって言ってました」) or the sentence's end
    end = next((n for n, w in enumerate(rest) if w.surface in SENTENCE_ENDS or w.pos == "verb"), len(rest))
    rest = rest[: end + 1]
    if any(w.pos == "aux" and w.lemma == "た" and not w.form.startswith("仮定形") for w in rest):
        return False
    return any(w.lemma in ("か", "たい", "ば", "たら", "と", "なら") or w.surface in ("?", "？")
               or (w.pos == "particle" and w.lemma in QUESTION_PARTICLES - {"の"} and n > 0
                   and rest[n - 1].lemma in NEGATORS)  # 「出してくれんけ」, not 「…くれるんだっけ」
               or w.form.startswith("仮定形") for n, w in enumerate(rest))


SENTENCE_ENDS = frozenset({"。", "！", "!", "？", "?"})


def _ends_in_te(words: tuple[Word, ...]) -> bool:
    """A sentence that stops at a verb's て-form (「注いでよ」「再起動して。」, or passed on: 「渡してあげてって」):
    the casual request."""
    tail = [w for w in words if w.pos != "symbol"]
    while tail and tail[-1].pos == "particle" and (tail[-1].detail == "終助詞" or tail[-1].surface == "って"):
        tail.pop()  # 「渡してあげてって」: the request, passed on
    return len(tail) >= 2 and tail[-1].lemma in ("て", "で") and tail[-1].pos == "particle" \
        and tail[-2].pos in ("verb", "aux_verb", "aux")


CLAUSE_BREAK = re.compile(r"[,;:—–]|\([^)]*\)")


def is_english_imperative(sentence: str) -> bool:
    """A clause opening with a base-form verb before its object: "Open the gate." "Never let ..."
    (a first word the lexicon knows only as something else is no verb)."""
    lowered = [w.surface.lower() for w in analyze(sentence)]
    while lowered and lowered[0] in EN_OPENERS:
        lowered = lowered[1:]
    if not lowered:
        return False
    if lowered[0] in ("never", "always", "don't", "do") and len(lowered) > 1:
        return lowered[0] != "do" or lowered[1] in ("not", "n't")
    words = [w for w in analyze(sentence) if w.surface.lower() not in EN_OPENERS]
    first = words[0]
    if first.pos != "noun" or first.surface[:1].isupper() and first is not analyze(sentence)[0]:
        return False
    if first.readings and "VERB" not in first.readings or (len(first.surface) > 1 and first.surface.isupper()
                                                               and not first.readings):
        return False  # "Humidity on the mast jumps…": the lexicon knows no verb "humidity"; "CO in the bore…"
    base = first.lemma == first.surface.lower()
    second = words[1] if len(words) > 1 else None
    named = second is not None and second.surface[:1].isupper() and second.surface.isalpha() and len(second.surface) > 1 \
        and second.pos == "noun" \
        and simplemma.is_known(first.surface.lower(), lang="en")  # "Let Meg in", not "Sumburgh Head" nor "code E-27"
    return base and len(lowered) > 1 and (lowered[1] in ENGLISH_DETERMINERS or lowered[1] in EN_WH or named)  # "List what…"


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def claims_permission(sentence: str) -> bool:
    """Does the sentence say someone allowed something (〜てもいい, "it is fine to")?"""
    words = analyze(sentence)
    if language(sentence) == "ja":
        for i, word in enumerate(words):
            if word.lemma in ("許可", "許す", "了承", "承知"):
                return True
            if word.lemma in ("て", "で") and i + 2 < len(words) and words[i + 1].lemma == "も" \
                    and words[i + 2].lemma in PERMISSION:
                return True
            if word.lemma in ("て", "で") and i + 1 < len(words) and words[i + 1].lemma == "構う":
                return True  # 消して構わない
            if word.lemma in ("て", "で") and word.pos == "particle" and i + 1 < len(words) \
                    and words[i + 1].lemma in PERMISSION and words[i + 1].pos in ("aux_adj", "adj"):
                return True  # 入っていい
        return False
    lowered = [w.surface.lower() for w in words]
    if any(word in EN_GRANTED for word in lowered):
        return True
    okay = [i for i, word in enumerate(lowered) if word in EN_PERMISSION or lowered[i - 1 : i + 1] == ["all", "right"]]
    if any(set(lowered[i + 1 : i + 4]) & EN_ALLOWING_WHAT or {"it", "that"} & set(lowered[max(0, i - 3) : i])
           for i in okay):
        return True  # "it's fine to open it", "okay for him to", "she said it's fine"; not "the lamps are fine"
    # "you may take them up", "told me I could come in", "says the agent can go through",
    # "said you'd lift it for them", "says you're to let them in": someone's word that a thing may or will be done
    told = [i for i, w in enumerate(lowered) if w in ("told", "said", "says", "tells", "has", "had")]
    said = [i for i in told if lowered[i] not in ("has", "had")]
    return any(told and told[0] < i and (
        word in ("may", "can", "could") and lowered[i - 1] in ("you", "i", "we", "he", "she", "they")
        or said and said[0] < i - 1 and word in ("may", "can", "could") and words[i - 1].pos == "noun"
        or said and said[0] < i and word in ("'d", "would") and lowered[i - 1] == "you" and i + 1 < len(words)
        and _base_verb(words[i + 1])
        or word == "to" and lowered[i - 2 : i] in (["you", "'re"], ["you", "are"])) or
        (word == "may" and i > 0 and lowered[i - 1] == "you") for i, word in enumerate(lowered))


def _base_verb(word: Word) -> bool:
    """A verb in its base form ("lift", not "locked" or "already")."""
    return word.surface.lower() == word.lemma.lower() and "VERB" in word.readings


REASON_ENDINGS = frozenset({"ので", "から", "ため", "為"})


def gives_a_reason(sentence: str) -> bool:
    """A Japanese sentence that ends on a reason (「お茶を出したいので。」): why the ask before it is
    made, not an ask of its own."""
    words = [w for w in analyze(sentence) if w.pos != "symbol"]
    if language(sentence) != "ja" or not words:
        return False
    if len(words) >= 2 and words[-2].lemma == "の" and words[-1].surface == "で":
        return True  # ので, which the analyzer splits into の + で
    return words[-1].lemma in REASON_ENDINGS and words[-1].pos in ("particle", "noun")


INTENT_PARTICLES = frozenset({"よ", "ね", "ぞ", "わ", "な"})
EN_FUTURE = frozenset({"'ll", "will", "'m", "am"})


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def announces_intent(sentence: str) -> bool:
    """The speaker says what they are about to do, to the listener (「鍵、借りていくよ」, "I'll just
    take the keys"): as good as an ask when a rule forbids it. Japanese: the last clause ends on a
    verb in the non-past plain or ます form with a sentence-final よ/ね, and names no one else as
    its subject (「猫が入ってくるよ」 tells, it does not announce). English: I + will/'ll/am + a verb."""
    words = [w for w in analyze(sentence) if w.pos != "symbol" or w.surface in ("、", ",")]
    if language(sentence) == "ja":
        if len(words) < 3 or words[-1].lemma not in INTENT_PARTICLES or words[-1].detail != "終助詞":
            return False
        last = words[-2]
        if not (last.form.startswith("終止形") and (last.pos in ("verb", "aux_verb") or last.lemma == "ます")):
            return False
        clause_start = max((i for i, w in enumerate(words[:-2]) if w.surface in ("、", ",") or w.lemma == "から"),
                           default=-1)
        return not any(w.lemma == "が" and w.pos == "particle" for w in words[clause_start + 1 :])
    lowered = [w.surface.lower() for w in words]
    for i, word in enumerate(lowered[:-1]):
        if word == "i" and lowered[i + 1] in EN_FUTURE:
            rest = [w for w in lowered[i + 2 : i + 5] if w not in EN_OPENERS | {"only", "quickly", "go"}]
            return bool(rest) and (lowered[i + 1] not in ("'m", "am") or rest[0].endswith("ing"))
    return False


def _indefinite(words, i: int) -> bool:
    """An interrogative that asks nothing: followed, past its counter, by か, も, でも or やら (誰も no
    one, 何か something, 何房か some bunches, 何度も many times, どうやら apparently), or by と/に and
    か (なんとか, どうにか: somehow)."""
    j = i + 1
    if words[i].pos == "num":  # 何房, 何人: the counter belongs to the interrogative
        while j < len(words) and words[j].pos in ("suffix", "noun"):
            j += 1
    if j + 1 < len(words) and words[j].lemma == "の" and words[j + 1].pos == "noun":
        k = j + 2 + (j + 2 < len(words) and words[j + 2].lemma == "に")  # いつの間に
        if k + 1 < len(words) and words[k].lemma == "か":  # いつの間にか, and the clause goes on
            return words[k + 1].pos not in ("verb", "aux_verb", "particle", "aux")  # not 「何時の便か教えて」「何の音かな」
    if j + 1 < len(words) and words[j].lemma in ("と", "に") and words[j + 1].lemma == "か":
        return True
    return j < len(words) and words[j].lemma in ("も", "か", "でも", "やら")


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def is_question(sentence: str) -> bool:
    """Asks something: a question mark, a question particle (か, っけ, かな), or an interrogative."""
    stripped = sentence.strip()
    if stripped.endswith(("?", "？")):
        return True
    words = analyze(stripped)
    if language(stripped) == "ja":
        tail = [w for w in words if w.pos != "symbol"]
        if tail and tail[-1].pos == "particle" and tail[-1].lemma in QUESTION_PARTICLES:
            return True
        asking = [w for i, w in enumerate(words) if w.lemma in INTERROGATIVES and not _indefinite(words, i)]
        return bool(asking) and bool(tail) and tail[-1].pos in ("aux", "particle", "verb", "aux_verb")
    if words and words[0].surface.lower() in SUBORDINATORS:
        head, comma, rest = stripped.partition(",")
        asking = any(word.lower() in EN_WH for word in rest.split()[:1])
        return bool(comma) and (asking or is_question(rest.strip()))  # "When you get a sec, what did the driver want"
    return bool(words) and words[0].surface.lower() in EN_INTERROGATIVES and len(words) > 2 \
        and words[1].surface.lower() in ("you", "anyone", "there", "it", "he", "she", "they", "we", "i")


SUBORDINATORS = frozenset({"when", "where"})
"""Without a question mark, "when you look" and "where he stood" open a clause of time or place, not a
question (a question inverts: "When did you look"); what follows its comma may ask."""


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def is_negated(sentence: str) -> bool:
    """Does the sentence negate or forbid what it says (a prohibition, when it is an order)?"""
    words = analyze(sentence)
    if language(sentence) == "ja":
        for i, word in enumerate(words):
            if word.lemma in PROHIBITIVE_NOUNS:
                return True
            if word.pos in ("aux", "aux_adj") and word.lemma in NEGATORS and i > 0 \
                    and words[i - 1].pos in ("verb", "aux_verb", "aux") \
                    and not (i + 1 < len(words) and words[i + 1].lemma == "か" and not _no_one(words[:i])):
                return True  # 「凍っていないか確かめる」 asks whether; 「誰も入らないか見張る」 still forbids
            if word.lemma == "な" and word.pos == "particle" and i > 0 and words[i - 1].pos == "verb" \
                    and words[i - 1].form.startswith("終止形"):
                return True
        return False
    lowered = [w.surface.lower() for w in words]
    numbered = {i for i, w in enumerate(lowered[:-1]) if w == "no" and words[i + 1].surface.isdigit()} \
        if re.search(r"\bNo\.\s*\d", sentence) else set()  # "pump No. 4" (not "No 2 people go up")
    return any((w in EN_NEGATORS and i not in numbered) or w.endswith("n't") for i, w in enumerate(lowered)) or \
        any(w.lemma in EN_NEGATIVE_VERBS for w in words) or \
        any(w == "off" and nxt.startswith("limit") for w, nxt in zip(lowered, lowered[1:]))  # off limits


def _no_one(words) -> bool:
    """An interrogative with も (誰も, 何も): no one, nothing."""
    return any(w.lemma in INTERROGATIVES and after.lemma == "も" for w, after in zip(words, words[1:]))


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def is_scene(sentence: str) -> bool:
    """Only who or where: a copula and no other verb ("You are X." 「あなたは…です。」). A Japanese
    sentence that ends on a noun taking する (「異常は全部記録。」) states an action, like a verb."""
    words = analyze(sentence)
    if language(sentence) == "ja":
        last = next((w for w in reversed(words) if w.pos not in ("symbol", "particle", "aux")), None)
        return not any(w.pos in ("verb", "aux_verb") for w in words) and not is_negated(sentence) \
            and not (last is not None and last.verbal)
    lowered = [w.surface.lower() for w in words]
    obliged = "to" in lowered[2:4] and lowered[2] in ("to", "not", "never") \
        and "be" not in lowered[3:5]  # "You are (not) to give out…": an order; "You are to be the keeper" is who you are
    return len(lowered) > 1 and lowered[0] in ("you", "you're", "this", "tonight") and \
        (lowered[1] in EN_COPULAS or lowered[0] == "you're") and not is_request(sentence) and not obliged and \
        not any(w in ("must", "should", "will", "shall", "never", "always") for w in lowered)


def lemmas(sentence: str) -> set[str]:
    return {w.lemma.lower() for w in analyze(sentence)}


EN_PAST = frozenset({"was", "were", "had", "did", "said", "went", "came", "left", "took", "made", "got", "saw",
                     "told", "gave", "found", "ran", "put", "brought", "kept", "heard", "rang", "fell", "broke"})


EN_ARTICLES = frozenset("the a an this that these those my your his her its our their all some any every each no".split())
EN_ARTICLES_AND_PRONOUNS = EN_ARTICLES | frozenset("i you he she we they it me him us them".split())
EN_SUBORDINATORS = frozenset("once when whenever after before until till if while since as unless".split())


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def tells_what_happened(sentence: str) -> bool:
    """A statement in the past tense (「…緩んでいた。」 "The gate was left open."): a record, not an
    order, even when it reports an ask ("was told never to open")."""
    if is_question(sentence):
        return False
    words = [w for w in analyze(sentence) if w.pos != "symbol" and not w.surface.startswith("'")]
    if language(sentence) == "ja":
        tail = [w for w in words if w.pos not in ("particle",)]
        return bool(tail) and tail[-1].pos == "aux" and tail[-1].lemma == "た"
    if is_english_imperative(sentence):
        return False
    lowered = [w.surface.lower() for w in words]
    if any(w in ("must", "should", "will", "shall", "please", "always") for w in lowered):
        return False
    if not {w.surface.lower() for w in words} & EN_ARTICLES_AND_PRONOUNS:
        return False  # note style, articles dropped ("Back door bolted from 22:00."): an order, not a record
    if lowered[0] in EN_SUBORDINATORS and "," in sentence:  # "Once we're closed, no artwork leaves": the main clause has the tense
        main = [w for w in analyze(sentence.split(",", 1)[1]) if w.pos != "symbol" and not w.surface.startswith("'")]
        verdict = _tense_is_past(main)
        if verdict is not None:
            return verdict
    return bool(_tense_is_past(words))  # else the sentence's first inflected verb ("After the guests left, …")


def _tense_is_past(words: list[Word]) -> bool | None:
    """The tense the first inflected verb says (True for the past), or None when none says it."""
    for before, word in zip(words, words[1:6]):  # "stays locked" is present
        surface = word.surface.lower()
        if before.surface.lower() in EN_ARTICLES:
            continue  # a participle after an article modifies a noun: "the controlled-drugs cage"
        if surface in EN_PAST or (surface.endswith("ed") and len(surface) > 4 and word.lemma != surface):
            return True
        if surface in ("is", "are", "am", "'s", "'re") or (surface.endswith("s") and word.pos == "noun"
                                                          and word.lemma != surface and word is not words[0]) \
                or (before.pos == "noun" and before.is_content and agrees_as_verb(before, word)):
            return False  # "Phones *stay* switched off": a present verb agreeing with its subject
    return None


REPORTING_VERBS = frozenset({"言う", "おっしゃる", "仰る", "申す", "頼む", "話す", "伝える"})
EN_REPORTED = frozenset({"says", "said", "asks", "asked", "wants", "wanted", "needs", "needed", "tells", "told",
                         "requests", "requested", "insists", "wonders", "begs"})


@bounded_cache(WORD_CACHE_ENTRIES, WORD_CACHE_BYTES)
def _passes_on(quotative: Word, following) -> bool:
    """After a quotative と/って: a verb of saying (「開けてほしいと言っています」), or, at the sentence's end,
    〜とのことです or a bare って (「渡してあげてって」): what was said, passed on."""
    if any(w.lemma in REPORTING_VERBS for w in following[:3]):
        return True
    after = [w for w in following if w.pos != "symbol"]
    return ([w.lemma for w in after[:2]] == ["の", "事"] and all(w.lemma in ("です", "だ", "た") for w in after[2:])) \
        or (quotative.surface == "って" and not after)


def is_direct_request(sentence: str) -> bool:
    """A request made to the listener in the speaker's own voice, not one passed on in narration
    ("A woman asks for a wake-up call", 「開けてほしいと言っています」 are things that happened)."""
    if not is_request(sentence):
        return False
    words = analyze(sentence)
    if language(sentence) == "ja":
        for i, word in enumerate(words):
            if word.lemma in ("と", "って") and word.pos == "particle" and _passes_on(word, words[i + 1 :]):
                return False
            if word.surface == "そう" and i > 0 and words[i - 1].pos in ("aux", "verb", "aux_adj"):
                return False  # 〜たいそうです: hearsay
        return True
    lowered = [w.surface.lower() for w in words]
    direct = "please" in lowered or "let's" in lowered or any(
        clause_words and clause_words[0] in EN_MODALS for clause_words in
        ([w.surface.lower() for w in analyze(c)] for c in CLAUSE_BREAK.split(sentence))) or any(
        is_english_imperative(c) for c in CLAUSE_BREAK.split(sentence))
    return direct and not (set(lowered[:6]) & EN_REPORTED and not is_question(sentence))
