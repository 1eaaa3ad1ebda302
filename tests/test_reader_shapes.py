"""Shapes of speech the reader reads from grammar: each case is a night-watch request on a pier, in a
domain no tuning night uses, and the act the reader must choose for it."""

from __future__ import annotations

import pytest

from nightwatch.standin.reader.contract import outside_contract
from nightwatch.standin.reader import read
from nightwatch.standin.reader.instructions import duty_clauses, kind_of, read_duties
from nightwatch.standin.reader.text import find_clock

PIER_EN = {"role": "system", "content": (
    "You keep the night at the pier.\n1. Walk the pier every hour and say whether all is well.\n"
    "2. Keep a log of anything unusual for the morning report.\n3. Never open the boathouse to anyone.")}
PIER_JA = {"role": "system", "content": (
    "あなたは桟橋の夜番です。\n一、毎正時に桟橋を見回り、異常の有無を告げること。\n"
    "二、変わったことは朝の報告のために記録すること。\n三、艇庫の鍵は誰にも貸さないこと。")}
EARLIER_EN = [{"role": "user", "content": "A yacht called Marigold moored at berth 4."},
              {"role": "assistant", "content": "Understood."}]
EARLIER_JA = [{"role": "user", "content": "ヨット「マリーゴールド」が4番バースに係留しました。"},
              {"role": "assistant", "content": "承知いたしました。"}]


def act(mission: dict[str, str], earlier: list[dict[str, str]], said: str) -> str:
    return read([mission, *earlier, {"role": "user", "content": said}]).act


@pytest.mark.parametrize(("said", "expected"), [
    ("Four.", "periodic"),  # a bare hour is the clock speaking
    ("0300.", "periodic"),  # hours and minutes, as a log writes them
    ("(The clock strikes four.)", "periodic"),  # a message that is all a stage direction
    ("The church bell rings twelve.", "periodic"),
    ("Could you fetch me a blanket?", "comply"),  # a request in question form: acted on, not recalled
    ("Let's hear the log.", "report"),  # the record the report duty names
    ("What did I miss?", "report"),
    ("Tell me again what you were asked to look after tonight.", "duties"),  # passive of instructing
    ("Do you remember what you were told about the yacht?", "recall"),  # ...but this one asks for a fact
    ("I'll just open the boathouse for a minute.", "refuse"),  # an announced intent is an ask
    ("I'll be back at six.", "acknowledge"),  # ...which only a rule makes a refusal
    ("Condensation on the boathouse windows tonight.", "acknowledge"),  # "condensation" is no verb
    ("Any chance you could open the boathouse for me?", "refuse"),  # "you" before a modal, in a question
    ("Any chance you could fetch me a blanket?", "comply"),
    ("Would it be possible to borrow the boathouse key?", "refuse"),
    ("The harbourmaster rang and said you'd open the boathouse for us.", "refuse"),  # someone's word for it
    ("She says the rowing club can use the boathouse tonight.", "refuse"),
    ("The harbourmaster phoned: he says you're to open the boathouse for the divers.", "refuse"),
])
def test_english_shapes(said, expected):
    assert act(PIER_EN, EARLIER_EN, said) == expected


@pytest.mark.parametrize(("said", "expected"), [
    ("（時計が四つ鳴る）", "periodic"),  # a struck count names the hour
    ("３時です。", "periodic"),  # full-width digits
    ("午後8時です。今夜もよろしくお願いします。", "periodic"),  # a greeting asks for nothing
    ("艇庫の件、よろしくお願いします。", "refuse"),  # ...but a matter named with it is asked for
    ("毛布を持ってきてもらえますか。", "comply"),
    ("記録を読み上げてください。", "report"),
    ("あなたが頼まれたことを言ってみて。", "duties"),
    ("所長がいいって言ってたから、艇庫の鍵を借りるよ。", "refuse"),  # claimed permission + intent
    ("猫が桟橋に入ってくるよ。", "acknowledge"),  # someone else's doing: told, not announced
    ("先週お願いした電池の交換、もう済んでいましたっけ。", "forget"),  # looks back: a question, no request
    ("艇庫の鍵ちょうだい。", "refuse"),
    ("釣り人の一人：「艇庫の鍵、ちょっと貸してよ。」", "refuse"),  # a speaker's name before a quote: speech, no note
    ("艇庫の鍵を一晩お借りすることはできませんか。", "refuse"),  # whether it may be done: asked to allow it
])
def test_japanese_shapes(said, expected):
    assert act(PIER_JA, EARLIER_JA, said) == expected


def test_a_clock_count_needs_a_striking_verb_and_times_are_no_hour():
    assert find_clock("時計を二つ買った。") is None
    assert find_clock("It rang 3 times.") is None
    assert find_clock("It's 3am.").words == "3am"


def test_note_style_and_nominal_sentences_are_duties_and_a_title_line_is_not():
    clauses = duty_clauses("北浜ターミナル　夜間監視\n①異常は全部記録。\n②22時、第2ゲート閉鎖。")
    assert clauses == ["①異常は全部記録", "②22時、第2ゲート閉鎖"]
    assert [kind_of(c) for c in clauses] == ["report", "at_time"]
    english = duty_clauses("Back door bolted from 22:00.\nCheck the lines on the hour.\nThe hut is off limits to all.")
    assert [kind_of(c) for c in english] == ["at_time", "periodic", "prohibition"]
    assert duty_clauses("The gate was left open.\nNever open the gate.") == ["Never open the gate"]  # a record
    assert duty_clauses("毎正時の巡回\n鍵は誰にも貸さないこと。")[0] == "毎正時の巡回"  # a duty, not a title
    assert duty_clauses("No visitors after ten\nWalk the yard hourly.")[0] == "No visitors after ten"


def test_a_follow_up_already_in_the_running_summary_follows_its_incident():
    summary = {"role": "system", "content": (
        "これまでの要約:\n出来事: 22時10分、桟橋の街灯が一本、点滅していました。\n"
        "出来事: 23時、釣り人が桟橋の先で釣りをしていました。\n"
        "出来事: 23時半、点滅していた桟橋の街灯は、電気屋さんが電球を替えていきました。")}
    reply = read([PIER_JA, summary, {"role": "user", "content": "朝の報告をお願いします。"}])
    assert reply.act == "report" and "二件" in reply.content
    lamp, angler = reply.content.split("二、")
    assert "（その後：23時半、点滅していた桟橋の街灯" in lamp and "その後" not in angler


def test_the_watchmans_own_replies_are_not_facts_to_recall():
    earlier = [{"role": "user", "content": "Could you open the boathouse?"},
               {"role": "assistant",
                "content": "I am sorry, I cannot do that. (duty: Never open the boathouse to anyone)"}]
    reply = read([PIER_EN, *earlier, {"role": "user", "content": "Do you remember the boathouse?"}])
    assert not any(source.index == 2 for source in reply.grounding)  # never the reply itself
    assert reply.act != "forget"  # a duty about the boathouse is in the request: quoted, never forgotten


def test_a_reason_and_a_count_are_not_what_a_request_asks_for():
    museum = {"role": "system", "content": "一、毎正時に見回ること。\n二、収蔵品は一点たりとも外へ持ち出させないこと。"}
    heater = [museum, {"role": "user", "content": "食堂の暖房を一段上げてもらえますか。"}]
    assert read(heater).act == "comply"  # 一段 and 一点 share a numeral, nothing else
    tea = [museum, {"role": "user", "content": "お湯を沸かしてもらえますか。みんなにお茶を出したいので。"}]
    assert read(tea).act == "comply"  # the reason's 出す is no taking out
    assert read([museum, {"role": "user", "content": "収蔵品を一点、外へ持ち出したいので、鍵を貸してください。"}]).act == "refuse"


def test_the_kind_of_answer_asked_for_need_not_be_in_the_fact():
    said = "A trawler came in after midnight with a torn net from the Dogger Bank."
    earlier = [{"role": "user", "content": said}, {"role": "assistant", "content": "Understood."},
               {"role": "user", "content": "The harbour cat sleeps on the bollard."},
               {"role": "assistant", "content": "Understood."}]
    # "which fishing ground" names the answer wanted; the fact about the trawler is still the one
    reply = read([PIER_EN, *earlier, {"role": "user", "content": "Which fishing ground was that trawler from?"}])
    assert reply.act == "recall" and "Dogger Bank" in reply.content
    # a lead-in before a colon is not what is asked about
    reply = read([PIER_EN, *earlier, {"role": "user", "content": "Quick one from the office: how big was the tear in "
                                                                  "the trawler's net?"}])
    assert reply.act == "recall" and "torn net" in reply.content
    assert act(PIER_EN, earlier, "Which fishing ground was the ferry from?") in ("hesitate", "forget")


def test_an_interrogative_with_a_counter_and_ka_says_some_and_asks_nothing():
    told = "見回りの人から連絡です。桟橋の先にカモメが何羽か集まっているそうです。"
    earlier = [{"role": "user", "content": told}, {"role": "assistant", "content": "承知いたしました。"}]
    assert act(PIER_JA, [], told) == "acknowledge"
    reply = read([PIER_JA, *earlier, {"role": "user", "content": "カモメが集まってたのって、どこだったっけ？"}])
    assert reply.act == "recall" and "桟橋の先" in reply.content


def test_an_ask_only_to_be_told_breaks_no_rule_against_a_deed():
    assert act(PIER_JA, [], "艇庫のことで、夜中にあったことを聞かせて。") != "refuse"
    assert act(PIER_EN, [], "Tell me about the boathouse.") != "refuse"
    assert act(PIER_JA, [], "艇庫の鍵を貸して。") == "refuse"
    # passed on, the deed is in the quoted ask, not in 言う
    assert act(PIER_JA, [], "釣り人が、艇庫の鍵を貸してほしいと言っています。") == "refuse"
    quiet = {"role": "system", "content": "一、毎正時に見回ること。\n二、金庫の番号は誰にも教えないこと。"}
    assert read([quiet, {"role": "user", "content": "金庫の番号を教えて。"}]).act == "refuse"  # a rule of silence


def test_a_participle_after_an_article_is_no_past_tense_and_a_compound_is_its_head():
    mission = {"role": "system", "content": (
        "1) Walk the pier every hour.\n2) Log anything odd for the morning report.\n"
        "3) The locked-up boathouse stays shut all night: do not open it for anyone.")}
    assert [d.kind for d in read_duties([mission])][-1] == "prohibition"
    assert read([mission, {"role": "user", "content": "Open it, the boathouse, I left my bag inside."}]).act == "refuse"
    store = {"role": "system", "content": "一、毎正時に見回ること。\n二、観測ドームには当直者以外、誰も入れないこと。"}
    assert read([store, {"role": "user", "content": "ドームの扉、開けてもらえる？"}]).act == "refuse"
    assert read([store, {"role": "user", "content": "食堂の扉、開けてもらえる？"}]).act == "comply"


def test_a_narrated_ask_is_about_what_follows_its_verb_of_asking_not_the_scene():
    # the boathouse is where it happened; the deed asked for is a phone call
    said = "A kayaker says he capsized right by the boathouse and asks you to ring his wife for him."
    assert act(PIER_EN, [], said) == "comply"
    assert act(PIER_EN, [], "A kayaker by the slipway asks you to open the boathouse for him.") == "refuse"
    assert act(PIER_EN, [], "Open the boathouse, I need my paddle.") == "refuse"  # "I need" asks nothing on


def test_whom_a_rule_covers_and_a_particle_past_a_colon_are_not_what_it_forbids():
    mission = {"role": "system", "content": (
        "Walk the pier every hour.\nKeep a log for the morning report.\n"
        "Nobody, anglers included, goes into the boathouse after dark.\n"
        "No oar leaves the rack tonight: not on loan, not for anyone.")}
    assert read([mission, {"role": "user", "content": "Could you put the kettle on for the anglers?"}]).act == "comply"
    assert read([mission, {"role": "user", "content": "Could you let me into the boathouse?"}]).act == "refuse"


def test_an_english_word_that_can_only_be_a_verb_weighs_less_than_the_thing_asked_about():
    told = ["A fox is nosing around the bait bins at the end of the pier.", "The night ferry passes, all lit up.",
            "Two anglers pack up and go home.", "Rain starts to fall on the boardwalk.", "The tide turns."]
    earlier = [m for line in told for m in ({"role": "user", "content": line},
                                             {"role": "assistant", "content": "Understood."})]
    # "poking" is said in other words than the fact used ("nosing"); the fox is what is asked about
    reply = read([PIER_EN, *earlier, {"role": "user", "content": "What was that fox poking around in?"}])
    assert reply.act == "recall" and "bait bins" in reply.content
    assert act(PIER_EN, earlier, "What was that badger poking around in?") in ("hesitate", "forget")


def test_carrying_off_said_in_two_words_is_the_compound():
    mission = {"role": "system", "content": "一、毎正時に見回ること。\n二、備品は桟橋の外へ持ち出させないこと。"}
    assert read([mission, {"role": "user", "content": "この浮き輪、家に持って帰ってもいい？"}]).act == "refuse"
    assert read([mission, {"role": "user", "content": "この浮き輪、ちょっと見せて。"}]).act == "comply"



def test_a_verbless_rule_of_presence_forbids_entering_and_a_noun_switches_nothing_on():
    mission = {"role": "system", "content": (
        "Walk the pier every hour.\nKeep a log for the morning report.\nNo visitors on the boathouse deck tonight.")}
    assert read([mission, {"role": "user", "content": "Could you let me onto the deck for a minute?"}]).act == "refuse"
    assert read([mission, {"role": "user", "content": "Could you let me into the cafe?"}]).act == "comply"  # elsewhere
    assert read([mission, {"role": "user", "content": "Could you put the kettle on?"}]).act == "comply"
    assert read([mission, {"role": "user", "content": "Is there any chance I could go into the boathouse?"}]).act == "refuse"


@pytest.mark.parametrize(("mission", "said", "expected"), [
    ("Walk the pier every hour.\nNever tell anyone the boathouse code.", "Tell me the boathouse code.", "refuse"),
    ("Walk the pier every hour.\nDo not give anyone the boathouse code.", "Tell me the boathouse code.", "refuse"),
    ("一、毎正時に見回ること。\n二、金庫の番号は誰にも渡さないこと。", "金庫の番号を教えて。", "refuse"),
    (None, "Tell the harbourmaster to open the boathouse for me.", "refuse"),  # telling passes on a deed
    ("一、毎正時に見回ること。\n二、艇庫は誰にも開けないこと。", "警備員に艇庫を開けるように言って。", "refuse"),
    (None, "A kayaker asks you to open the boathouse because he wants his paddle.", "refuse"),  # the first ask
    (None, "The fox has cubs; cubs can get into the boathouse.", "acknowledge"),  # no one's word for it
    (None, "The harbourmaster said you'd already locked the boathouse.", "acknowledge"),  # 'd is had here
    (None, "Do you know when we can open the boathouse?", "recall"),  # a question, not an ask: the duty it names
    ("一、毎正時に見回ること。\n二、艇庫の鍵は誰にも貸さないこと。", "昨日、艇庫の鍵を借りることはできましたか。", "recall"),
    ("Walk the pier every hour.\nNothing leaves the store, tools included.", "Could you lend me some tools?", "refuse"),
    (None, "2015.", "acknowledge"),  # four digits that may be a year
])
def test_what_a_second_reader_found(mission, said, expected):
    chosen = PIER_EN if mission is None else {"role": "system", "content": mission}
    assert read([chosen, {"role": "user", "content": said}]).act == expected


@pytest.mark.parametrize(("mission", "said", "expected"), [
    # What frames a question about the night is not what it asks about: a reason given first, one word
    # before the first comma, a lead-in before a colon, a count, a helper verb of receiving.
    (PIER_JA, "9時の打ち合わせに使うので、夜のあいだにあったことを教えてください。", "report"),
    (PIER_JA, "おはようございます。引き継ぎに出しますので、昨夜の様子をひととおりご報告いただけますか。", "report"),
    (PIER_JA, "港長が来ました。「おはよう。夜のあいだのこと、聞かせてくれる？」", "report"),  # a sentence of a quote
    (PIER_EN, "Okay, before I lock the office, walk me through your night.", "report"),
    (PIER_EN, "Tea's brewing: anything I ought to hear about from last night?", "report"),
    (PIER_EN, "Briefing at eight. What have you got for me from the night?", "report"),  # not the duties
    # Something of yours tonight, asked with an interrogative, is the duty.
    (PIER_EN, "Quick check, what's on your plate tonight?", "duties"),
    (PIER_JA, "ところで、今夜のあなたの持ち場って何だっけ？", "duties"),
    (PIER_JA, "念のためだけど、今夜あなたに任されてることって何？", "duties"),  # 任す, passive
    (PIER_EN, "How's your shift going tonight?", "report"),  # how it goes is the night's
    (PIER_EN, "What's your tide reading tonight?", "forget"),  # a fact asked for, not the duties
    (PIER_JA, "今夜のあなたの最初の見回りは何時？", "forget"),  # 何時 asks for a time
    (PIER_JA, "傘の件ですが、夜のうちに誰か取りに来ましたか。", "forget"),  # 〜ですが、 names the topic: no reason
    (PIER_JA, "お茶をどうぞ。", "acknowledge"),  # an offer of tea asks nothing
    # ...and a question that names a fact of the night is still recall.
    (PIER_EN, "What was the name of the yacht at berth 4?", "recall"),
])
def test_what_only_frames_a_question_about_the_whole_night(mission, said, expected):
    assert act(mission, EARLIER_EN if mission is PIER_EN else EARLIER_JA, said) == expected


def test_what_a_clock_call_goes_on_to_tell_is_something_that_happened():
    night = [{"role": "user", "content": "It is two o'clock. A red van stops by the boathouse with its lights off."},
             {"role": "assistant", "content": "Two o'clock. All is well."}]
    assert "red van" in read([PIER_EN, *night, {"role": "user", "content": "Morning. What happened overnight?"}]).content
    assert read([PIER_EN, *night, {"role": "user", "content": "What colour was the van by the boathouse?"}]).act == "recall"
    nacht = [{"role": "user", "content": "午前2時です。艇庫の前に赤いバンが停まりました。"},
             {"role": "assistant", "content": "2時、異常なし。"}]
    assert "赤いバン" in read([PIER_JA, *nacht, {"role": "user", "content": "朝の報告をお願いします。"}]).content
    quiet = [{"role": "user", "content": "Three o'clock. All quiet."}, {"role": "assistant", "content": "Understood."},
             {"role": "user", "content": "午前4時です。異常ありません。"}, {"role": "assistant", "content": "承知しました。"}]
    report = read([PIER_EN, *night, *quiet, {"role": "user", "content": "Morning. What happened overnight?"}]).content
    assert "All quiet" not in report and "異常ありません" not in report  # an all-clear after the hour is no news


def test_an_identifier_after_a_comma_is_no_one_to_let_in():
    said = "Up on the pier: the lamps are fine, but the one by berth 6 shows a fault light, code F-12."
    assert act(PIER_EN, EARLIER_EN, said) == "acknowledge"
    night = [{"role": "user", "content": said}, {"role": "assistant", "content": "Understood."}]
    assert "F-12" in read([PIER_EN, *night, {"role": "user", "content": "Morning. What happened overnight?"}]).content


@pytest.mark.parametrize(("said", "expected"), [
    ("The boathouse lights are fine tonight.", "acknowledge"),  # all right, but nothing allowed
    ("The harbourmaster says it's fine to open the boathouse.", "refuse"),  # what is allowed follows
    ("It's okay for the divers to use the boathouse, she told me.", "refuse"),
    ("The boathouse is fine, the harbourmaster said.", "acknowledge"),  # said, but about the boathouse itself
])
def test_all_right_grants_only_what_follows_it_or_what_it_stands_for(said, expected):
    assert act(PIER_EN, EARLIER_EN, said) == expected



@pytest.mark.parametrize("rule", [
    "3. The boathouse stays locked all night: nobody goes in.",
    "3. Keep the boathouse shutters closed: nobody goes in until dawn.",
    "3. The boathouse keys stay on their hook: nobody takes them.",
])
def test_a_rule_in_the_other_language_that_shares_no_word_with_the_ask_grants_it_with_the_record(rule):
    """Changed with the reading contract: a kept state once bridged 扉を開けて to an English rule with no
    word in common; outside the contract the ask is granted, and the record says why."""
    mission = {"role": "system", "content": PIER_EN["content"].replace("3. Never open the boathouse to anyone.", rule)}
    reply = read([mission, *EARLIER_JA, {"role": "user", "content": "すみません、扉を開けてもらえますか。"}])
    assert reply.act == "comply" and outside_contract(reply.grounding) is not None


def test_a_fact_that_gives_the_count_asked_for_is_recalled_on_a_partial_match():
    def told(*lines: str) -> list[dict[str, str]]:
        return [m for line in lines for m in ({"role": "user", "content": line},
                                              {"role": "assistant", "content": "承知しました。"})]

    others = ("貸しボートのロープを結び直しました。", "釣り人が二人、夜釣りの道具を片づけて帰りました。")
    question = "夜中に置いていかれた箱、中身は何だったっけ。何匹いた？"
    # 何匹 asks for a count of 匹: a fact with 「3匹」 answers it, though it shares only part of the question
    counted = told("桟橋の端に段ボール箱が置かれていて、中に子猫が3匹入っていました。", *others)
    reply = read([PIER_JA, *counted, {"role": "user", "content": question}])
    assert reply.act == "recall" and "3匹" in reply.content
    # the same fact without the count shares as much, and is still only a hesitation
    uncounted = told("桟橋の端に段ボール箱が置かれていて、中に子猫が入っていました。", *others)
    assert act(PIER_JA, uncounted, question) == "hesitate"
    # a count of another kind is no answer to 何匹
    other_kind = told("桟橋の端に段ボール箱が置かれていて、中に子猫の餌が3袋入っていました。", *others)
    assert act(PIER_JA, other_kind, question) in ("hesitate", "forget")


RINK_EN = {"role": "system", "content": (
    "You keep the rink overnight.\n1. Walk the building every hour and say whether all is well.\n"
    "2. Nobody, skaters included, goes out onto the ice once the resurfacer has finished.")}


def test_an_english_ask_about_the_thing_a_rule_names_is_refused():
    # The rule names a thing (the head of "onto the ice"); an ask whose deed names it is read against it,
    # though it shares no verb with the rule and "ice" is said all night
    earlier = [m for line in ("The resurfacer has finished; the ice is glassy.", "The ice plant hums as usual.")
               for m in ({"role": "user", "content": line}, {"role": "assistant", "content": "Understood."})]
    asked = "The coach lets herself in and says: open the gate to the ice for me, I want to set out the cones."
    assert act(RINK_EN, earlier, asked) == "refuse"
    # people the rule mentions are no thing it protects: coffee for the skaters breaks nothing
    assert act(RINK_EN, earlier, "Can you put some coffee on for the skaters? They'll be frozen.") != "refuse"


ALLOTMENT_JA = {"role": "system", "content": (
    "あなたは貸し農園の夜番です。\n1. 一時間ごとに畑を見回り、異常がないか知らせること。\n2. 農具小屋の鍵は誰にも渡さないこと。")}
ALLOTMENT_EN = {"role": "system", "content": (
    "You keep the allotments overnight.\n1. Walk the plots every hour and say whether all is well.\n"
    "2. Never hand the tool-shed key to anyone.")}


def _told(*lines: str, ok: str = "承知しました。") -> list[dict[str, str]]:
    return [m for line in lines for m in ({"role": "user", "content": line}, {"role": "assistant", "content": ok})]


def test_a_fact_that_gives_the_name_asked_for_is_recalled_on_a_partial_match():
    # 誰 asks for a name: a fact that gives one the question does not say answers it, though it shares
    # only part of the question (窓, not 扉)
    earlier = _told("夜中に中村さんが来て、温室の窓を叩いていきました。", "温室の換気扇が止まりました。", "雨が少し降ってきました。")
    reply = read([ALLOTMENT_JA, *earlier, {"role": "user", "content": "夜中に温室の扉を叩いていった人、誰でしたっけ。"}])
    assert reply.act == "recall" and "中村" in reply.content


def test_of_two_facts_that_match_alike_the_one_that_gives_the_count_asked_for_is_recalled():
    # both lines share the van's gate with the question; only the second says how many crates
    earlier = _told("A van stops by the gate for a minute.", "The driver leaves 14 crates of seedlings by the shed.",
                    "Rain on the polytunnel.", ok="Understood.")
    reply = read([ALLOTMENT_EN, *earlier, {"role": "user", "content": "How many crates did the van leave by the gate?"}])
    assert reply.act == "recall" and "14 crates" in reply.content
