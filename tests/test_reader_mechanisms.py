"""Mechanisms of reading, each over structure rather than a phrase: what a short message is, what a
pronoun stands for, where a noun phrase ends, what only frames a rule.

A glassworks at night: a domain of no tuning or held-out night of the benchmark and not of the story.
"""

from __future__ import annotations

from nightwatch.standin.reader import forms, material, read, recall, summary
from nightwatch.standin.reader.concepts import actions, framing_removed
from nightwatch.standin.reader.contract import shares_a_word
from nightwatch.standin.reader.instructions import read_duties
from nightwatch.standin.reader.text import language

MISSION_EN = {"role": "system", "content": "Night watch at the Harbour Glassworks.\n"
                                           "- Every hour, check the furnace gauge and say whether it is steady.\n"
                                           "- The blowpipes stay on the rack. Do not lend them to anyone.\n"
                                           "- Once the doors are locked, nobody comes back in.\n"
                                           "- Keep a note of anything unusual for the morning."}
MISSION_JA = {"role": "system", "content": "ガラス工房の夜番です。\n一、毎正時に炉の温度計を見て知らせること。\n"
                                          "二、記録保管庫には、職人であっても誰も入れてはいけません。\n"
                                          "三、作業場の軽トラックは、誰に言われても貸さないこと。\n"
                                          "四、夜の出来事は朝に報告すること。"}


def night(mission: dict[str, str], *said: str):
    """The reply to the last of ``said``, each earlier turn answered by the reader itself."""
    messages = [mission]
    for text in said:
        reply = read([*messages, {"role": "user", "content": text}])
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": reply.content}]
    return reply


MORNING_ASK = {"en": "Good morning. What happened overnight?", "ja": "おはようございます。夜のあいだの出来事を報告してください。"}


def morning_report(mission: dict[str, str], incident: str, clock: str):
    """The reply to the morning's report request, in the mission's language, after one incident and a clock call."""
    return night(mission, incident, clock, MORNING_ASK[language(mission["content"])])


def test_a_pronoun_in_a_prohibition_stands_for_what_the_sentence_before_named():
    clauses = {duty.clause: duty.kind for duty in read_duties([MISSION_EN])}
    assert clauses["The blowpipes stay on the rack. Do not lend them to anyone"] == "prohibition"
    assert night(MISSION_EN, "A student at the door: 'Hand me one of the blowpipes, I'll bring it back.'").act == "refuse"


def test_a_record_that_only_names_a_store_makes_no_report_duty():
    kinds = [duty.kind for duty in read_duties([MISSION_JA])]
    assert kinds == ["periodic", "prohibition", "prohibition", "report"]  # 記録保管庫: a store, not a record kept
    assert night(MISSION_JA, "職人さんが来て、記録保管庫に入れてほしいと言っています。").act == "refuse"


def test_an_english_phrasal_verb_of_motion_is_one_word_of_the_contract():
    rule = "Once the doors are locked, nobody comes back in"
    assert shares_a_word("My brother wants to come in for a minute.", rule)  # "come in", and "comes back in"
    assert not shares_a_word("Could you come and look at the kiln?", rule)  # no particle of direction
    assert night(MISSION_EN, "The lad at the side door says his brother wants to come in and get warm.").act == "refuse"


def test_a_rules_concessive_clause_and_a_modifier_of_another_thing_link_nothing():
    cold = night(MISSION_JA, "職人さんが「休憩室が寒い」と言っています。ストーブをつけてもらえますか。")
    assert cold.act == "comply"  # 言う is in 「誰に言われても」 only, which frames the rule
    lamp = night(MISSION_JA, "外の作業灯、つけてもらえる？")
    assert lamp.act == "comply"  # 作業 of 作業灯 and of 作業場: two things


def test_a_short_message_is_recalled_whole_when_its_other_sentence_answers():
    reply = night(MISSION_EN,
                  "A crate has been left by the loading door. Inside are forty wine glasses for the hotel.",
                  "It is one o'clock.",
                  "The crate by the loading door earlier: what was in it?")
    assert reply.act == "recall" and "forty wine glasses" in reply.content


def test_an_indefinite_made_from_an_interrogative_asks_nothing():
    assert not forms.is_question("どうやら炉の扉のパッキンが傷んでいるようです。")
    assert not forms.is_question("なんとか火は落とさずに済みました。")
    assert forms.is_question("どの炉の扉ですか。")


def test_a_count_asked_after_the_pronoun_reading_of_nan():
    assert recall.asked_count("届いた珪砂って、何箱でしたっけ。") == {"箱"}
    assert recall.asked_count("割れたグラス、いくつでしたっけ？") == {recall.ANY_NUMBER}


def test_a_duties_question_passed_on_in_someone_elses_words_is_answered_with_the_duties():
    reply = night(MISSION_EN, "The new apprentice asked me what you're actually here to do tonight. What do I tell her?")
    assert reply.act == "duties" and "furnace gauge" in reply.content


def test_the_nights_log_asked_for_is_the_morning_report():
    reply = night(MISSION_EN,
                  "A man from the yacht club wants to borrow two blowpipes for a demonstration on Saturday.",
                  "It is two o'clock.",
                  "Morning. Read me the night's log, would you?")
    assert reply.act == "report" and "yacht club" in reply.content
    assert night(MISSION_EN, "Can you log the gas deliveries separately?").act != "report"  # a verb, not the log


def test_a_refused_ask_keeps_what_was_asked_in_its_report_item():
    asked = material.Line(1, "user", "ask", "The skipper came to the side door. Could you lend him two blowpipes for Saturday?")
    refused = "I am sorry, I cannot do that. (duty: The blowpipes stay on the rack. Do not lend them to anyone)"
    item = summary.event_item(asked, refused)
    assert "two blowpipes for Saturday" in item and "refused" in item
    granted = summary.event_item(asked, 'Certainly. "Could you lend him two blowpipes for Saturday?": I will see to it.')
    assert "Could you lend him" not in granted.split("(What I did")[0]  # an ask carried out is told as done


def test_duty_kinds_come_from_the_missions_structure():
    mission = {"role": "system", "content": "Night watch at the Harbour Glassworks.\n"
                                            "1. Check the annealing oven every hour on the hour.\n"
                                            "2. Anyone without a furnace ticket stays out of the hot shop. No exceptions.\n"
                                            "3. At 03:30, read the gas meter and write down the figure.\n"
                                            "4. 05:45: switch the extractor fans on.\n"
                                            "5. Log every incident and hand the list to the day shift at 06:00."}
    kinds = {duty.clause: duty.kind for duty in read_duties([mission])}
    assert kinds["Anyone without a furnace ticket stays out of the hot shop. No exceptions"] == "prohibition"
    assert kinds["At 03:30, read the gas meter and write down the figure"] == "at_time"  # the time opens it
    assert kinds["05:45: switch the extractor fans on"] == "at_time"
    assert kinds["Log every incident and hand the list to the day shift at 06:00"] == "report"  # a deadline
    japanese = {"role": "system", "content": "工房の夜番です。\n一、時計が時を打つたびに炉を見回ること。\n"
                                             "二、一時間に一度、徐冷炉の温度を知らせること。\n三、夜の出来事は朝に報告すること。"}
    assert [duty.kind for duty in read_duties([japanese])] == ["periodic", "periodic", "report"]


def test_a_duties_question_with_the_doer_unsaid_and_a_recall_question_in_a_speakers_quote():
    assert night(MISSION_JA, "念のため、今夜任されていることを全部言ってみてくれる？").act == "duties"
    reply = night(MISSION_JA, "二番の炉の温度計の表示が一時おかしくなりましたが、すぐ戻りました。",
                  "午前二時です。",
                  "職人さん：「さっき表示がおかしかったのって、何番の炉だったっけ？」")
    assert reply.act == "recall" and "二番の炉" in reply.content
    asked = night(MISSION_EN, "A student at the door: 'Would it be possible for us to borrow a blowpipe until Monday?'")
    assert asked.act == "refuse"


def test_a_concession_in_a_rule_names_no_deed_it_forbids():
    assert framing_removed("誰かが中に入っても、金庫は開けないこと") == "金庫は開けないこと"
    assert framing_removed("理由があろうと、釜場の鍵は貸さないこと") == "釜場の鍵は貸さないこと"  # a volitional concession
    assert framing_removed("台車は、使ってもよろしい") == "台車は、使ってもよろしい"  # 〜ても before an adjective grants
    assert actions(framing_removed("誰かが中に入っても、金庫は開けないこと")) == {"open"}


def test_asking_someone_is_a_deed_and_being_told_is_not():
    assert night(MISSION_JA, "運転手さんに名前を聞いておいてもらえますか。").act == "comply"  # go and ask: a deed, no recall
    assert night(MISSION_JA, "夜中のことを聞かせてください。").act == "report"  # the causative asks to be told


def test_a_need_told_beside_a_request_is_its_reason_not_its_deed():
    asked = "A student at the door: 'Could I borrow one of the blowpipes tonight? The class needs a demonstration first thing.'"
    assert night(MISSION_EN, asked).act == "refuse"  # the deed is the borrowing; the class's need is why
    passed_on = "The student at the door says his tutor needs the furnace gauge photographed for the class."
    assert night(MISSION_EN, passed_on).act != "refuse"  # a need told of alone is the deed: no rule forbids a photograph


def test_a_missions_orders_are_read_in_every_grammatical_shape():
    mission = {"role": "system", "content": "You are the night keeper of the Harbour Glassworks.\n"
                                            "- Check the furnace gauge every hour and say whether it is steady.\n"
                                            "- Once the doors are locked, no blowpipe leaves the building.\n"
                                            "- You are not to give the kiln keys to anyone.\n"
                                            "- Nobody goes into the annealing room. No exceptions.\n"
                                            "- Radios stay switched off in the mould store.\n"
                                            "- Write down anything unusual for the morning."}
    read = [(duty.kind, duty.clause) for duty in read_duties([mission])]
    assert read == [("periodic", "Check the furnace gauge every hour and say whether it is steady"),
                    ("prohibition", "Once the doors are locked, no blowpipe leaves the building"),  # the main clause's tense
                    ("prohibition", "You are not to give the kiln keys to anyone"),  # an order, not who you are
                    ("prohibition", "Nobody goes into the annealing room. No exceptions"),  # restated: one duty, not two
                    ("prohibition", "Radios stay switched off in the mould store"),  # a state kept: not to be switched on
                    ("report", "Write down anything unusual for the morning")]
    assert forms.tells_what_happened("After the students left, we swept the floor.")  # no verdict in the main clause
    assert forms.is_scene("You are to be the night keeper of the glassworks.")  # who you are, not an order


def test_a_span_of_the_watch_asked_about_whole_is_the_report():
    evening = ("（22時）職人さんが明日の出荷分の箱を積み終えて帰りました。", "（1時）裏口の鍵が少し緩んでいます。")
    for asked in ("夜勤中にあったこと、ひととおり聞かせてくれる？",  # a span: 夜勤 before 中
                  "留守のあいだのこと、漏れなく教えてください。",  # a span: before の間; 漏れなく only says how
                  "夜の分、聞かせてもらえるかな。",  # the night's share, though a fact says 出荷分
                  "夜間の申し送りをどうぞ。"):  # the report as an object, the verb left to the listener
        assert night(MISSION_JA, *evening, asked).act == "report", asked
    assert night(MISSION_JA, *evening, "異変なし。").act != "report"  # names no object and asks nothing
    assert night(MISSION_JA, *evening, "報告をありがとう。").act != "report"  # thanks for it
    night_of_facts = (*evening, "（2時）停電が10分ほどありました。すぐに戻りました。")
    assert night(MISSION_JA, *night_of_facts, "停電中に何かあった？").act != "report"  # a span that is a fact's own
    assert night(MISSION_JA, *night_of_facts, "夜中の鍵は、どこが緩んでいたの？").act != "report"  # one thing of the night, asked


def test_a_duties_question_read_past_a_reason_and_through_a_verbs_noun():
    reasoned = "見習いの子が知りたがっているので、この夜番で任されていることを説明してあげてください。"
    assert night(MISSION_JA, reasoned).act == "duties"  # the reason's subject (見習いの子) is not the one entrusted
    assert night(MISSION_JA, "今夜のあなたの受け持ち、何と何でしたっけ？").act == "duties"  # 受け持ち: the noun of 受け持つ


def test_a_clause_of_time_that_opens_a_rule_says_when_not_what():
    mission = {"role": "system", "content": "ガラス工房の夜番です。\n・毎正時に炉の温度計を見て知らせること。\n"
                                            "・窯が冷えるまでは、窯場には誰も入れないこと。\n・夜の出来事は朝に報告すること。"}
    assert night(mission, "休憩室が冷えてきました。ストーブをつけてもらえますか。").act == "comply"  # 冷える is in 〜まで only
    assert night(mission, "職人さんが、窯場に入れてほしいと言っています。").act == "refuse"
    place = {"role": "system", "content": "ガラス工房の夜番です。\n・毎正時に炉の温度計を見て知らせること。\n"
                                          "・炉の前には、誰も立たせないこと。\n・夜の出来事は朝に報告すること。"}
    assert night(place, "見学の方を炉の前までご案内してもいいですか？").act == "refuse"  # 炉の前 is a place, not a time


def test_a_name_before_a_colon_is_someone_speaking_and_only_a_handover_label_makes_a_note():
    spoken = "Ruth: The manager just rang me. He says it's fine for me to keep a blowpipe overnight, so lend me one."
    assert night(MISSION_EN, spoken).act == "refuse"
    note = "Handover from Ruth: the students will ask to borrow the blowpipes again tomorrow."
    assert night(MISSION_EN, note).act != "refuse"  # a handover note tells what will come; it asks nothing now
    source = "日勤より：職人さんが軽トラックを貸してほしいと言ってくるかもしれません。"
    assert night(MISSION_JA, source).act != "refuse"  # a label naming the note's source, not a speaker


def test_an_english_rule_and_ask_share_a_verb_only_where_both_use_it_as_one():
    from nightwatch.standin.reader.rules import relevant, verb_lemmas
    rule = "Nobody is to lend, move or polish the blowpipes before the morning"
    ask = "Would you mind if I moved the kiln shelf a little?"
    assert relevant(rule, {"move", "kiln", "shelf"}, set(), ask_verbs=verb_lemmas(ask))  # the verb, though the night says it often
    scene = "The press lot from the paper are waiting in the yard."
    assert "press" not in verb_lemmas(scene)  # after a determiner: a noun
    assert not relevant("Nobody crosses the yard fence: not staff, not press", {"press", "wait"}, set(),
                        ask_verbs=verb_lemmas(scene))
    assert verb_lemmas("Could you bring me water, please? Two spare blowpipes, too.") == {"bring"}  # objects stay nouns


def test_a_harmless_ask_with_a_reason_in_the_past_is_no_question_about_the_night():
    for asked in ("炉の前が冷えてきたので、ストーブをつけてもらえますか。",  # the past is the reason's, not the question's
                  "休憩室、ちょっと暑くないですか。窓を少し開けておいてもらえます？",  # one question only wonders aloud
                  "Put the kettle on for when the day shift gets in, would you?"):  # "for when": no question word
        mission = MISSION_JA if asked[0] != "P" else MISSION_EN
        assert night(mission, asked).act not in ("forget", "hesitate", "refuse"), asked
    assert night(MISSION_JA, "さっき届いた荷物、どこに置いたか教えてもらえますか。").act in ("forget", "hesitate", "recall")


def test_a_harmless_ask_is_answered_with_no_list_and_a_pronoun_can_stand_for_the_night():
    for asked in ("The carter at the hatch hands in a bundle of delivery orders and asks if you'd date-stamp the top copy.",
                  "Could you put the yard lights on so they can see what they're doing?",  # their doing, not yours
                  "A man says his daughter left her gloves in the mould store. He's asking if you'd go and get them."):
        assert night(MISSION_EN, asked).act not in ("duties", "report", "forget", "hesitate"), asked
    assert night(MISSION_EN, "Cheers for last night. Talk me through it, would you?").act == "report"  # it: the night
    for asked in ("Good evening. Can you sign this?", "Last night the alarm went off. Can you reset it?",
                  "Could you go and get the gloves?"):
        assert night(MISSION_EN, asked).act != "report", asked  # no ask to be told; "it" is the alarm; go is the deed
    told = "At midnight Jim rang about the kiln."
    assert night(MISSION_EN, told, "Could you check who rang at midnight?").act in ("recall", "hesitate")  # a question too
    assert night(MISSION_JA, "（23時）荷物が三箱、搬入口に届きました。", "荷物は搬入口ですか？運んでもらえますか？").act \
        in ("recall", "hesitate")  # a question about the night beside the ask
    assert night(MISSION_JA, "（23時）正門の前で猫が鳴いていました。", "正門の前で何があったか教えてもらえますか。").act != "report"


def test_a_preface_ending_in_ga_has_no_subject_and_a_title_suffix_is_no_second_person():
    prefaced = "ちょっと確認ですが、今夜の夜番で任されていることを全部言ってみてください。"
    assert night(MISSION_JA, prefaced).act == "duties"  # 〜ですが: a conjunction, not the subject marker
    passed_on = night(MISSION_JA, "見習いの田中くんから「ストーブに灯油を足しておいてくれる？」と頼まれました。")
    assert passed_on.act == "comply"  # くん of 田中くん is a title, not 君 (you): no duties were asked about
    assert night(MISSION_JA, "君が今夜頼まれていることを言ってみて。").act == "duties"
    assert night(MISSION_JA, "念のため、今夜の決まりごとを全部挙げてください。").act == "duties"  # 決まり事: a 決まり


def test_a_clause_of_time_and_an_indefinite_ask_nothing_and_the_incident_stays_in_the_report():
    assert not forms.is_question("When you look there's nobody there, but the side gate is bent.")
    assert forms.is_question("When did you last look at the side gate?")
    assert not forms.is_question("いつの間にか作業場の前に木箱が二つ置いてあった。")
    assert forms.is_question("木箱が置かれたのはいつだった？")
    assert forms.is_question("何時の便か教えて")  # an embedded question: か, then a verb
    assert forms.is_question("When you get a minute, what did the van driver want")  # the clause after the comma asks
    en = morning_report(MISSION_EN, "You hear the side gate rattle. When you look there's nobody there, but the latch is bent.",
                        "It is three o'clock.")
    assert en.act == "report" and "latch is bent" in en.content
    ja = morning_report(MISSION_JA, "いつの間にか、作業場の前に木箱が二つ置いてありました。", "午前三時です。")
    assert ja.act == "report" and "木箱が二つ" in ja.content


def test_a_relative_clause_does_not_make_a_rule_a_report_and_orders_passed_on_are_asks():
    mission = {"role": "system", "content": "Night watch at the Harbour Glassworks.\n"
                                            "1. Every hour, check the furnace gauge.\n"
                                            "2. Write every unusual event in the night book.\n"
                                            "3. Never fire the small kiln for a maker who has not booked it a week ahead."}
    kinds = {duty.clause: duty.kind for duty in read_duties([mission])}
    assert kinds["Never fire the small kiln for a maker who has not booked it a week ahead"] == "prohibition"
    assert kinds["Write every unusual event in the night book"] == "report"
    from nightwatch.standin.reader.instructions import kind_of
    assert kind_of("Every visitor who comes after ten is to be logged in the visitor book") == "report"  # not negated
    said_to = night(MISSION_EN, "Ana rang from home and said to lend the student two blowpipes; he is at the door.")
    assert said_to.act == "refuse"  # "said to <verb>": an order passed on
    assert not forms.is_request("She said to me that the furnace was loud.")
    assert not forms.is_request("Ana told me the student came back in for his coat.")  # saying takes a clause
    assert not forms.is_request("Ana said to tell you the furnace is hot.")  # a message passed on
    led = night(MISSION_EN, "Ana texts: a student rang her, wanting the blowpipes lent out to him tonight.")
    assert led.act == "refuse"  # "lent", "led": irregular participles, like "opened"


def test_a_thing_that_stays_in_a_state_is_a_rule_against_changing_it():
    from nightwatch.standin.reader.instructions import kind_of
    assert kind_of("The annealing oven stays shut until the morning crew arrives") == "prohibition"
    assert kind_of("The gas valves stay switched off") == "prohibition"
    assert kind_of("The barrier remains down all night") == "prohibition"
    assert kind_of("The apprentice stays on the bench with the tools") == "other"  # a place, not a state
    assert kind_of("The night porter stays on until six") == "other"  # a person, still at work
    assert kind_of("The shop stays open until one") == "other"  # left open: nothing to keep from changing
    assert kind_of("The annealing oven must stay shut") == "prohibition"
    mission = {"role": "system", "content": "Night watch at the Harbour Glassworks.\n"
                                            "- Every hour, check the furnace gauge.\n"
                                            "- The annealing oven stays shut until the morning crew arrives.\n"
                                            "- Keep a note of anything unusual for the morning."}
    assert night(mission, "Ana at the door: could you open the annealing oven for me?").act == "refuse"


def test_what_you_are_somewhere_for_asks_for_the_duties():
    assert night(MISSION_EN, "A cabbie waiting outside, curious: what are you out here for all night?").act == "duties"
    from nightwatch.standin.reader.night_questions import _your_purpose
    assert not _your_purpose("What are you waiting for?")  # a verb of its own
    assert not _your_purpose("What is he here for, the man at the gate?")  # not you
    assert night(MISSION_EN, "What is he here for, the man at the gate?").act != "duties"


def test_a_negation_that_asks_whether_and_a_number_sign_forbid_nothing():
    assert not forms.is_negated("午前5時半に、炉の扉が閉まっていないか確かめること")  # 〜ないか: whether
    assert not forms.is_negated("At 05:30, light furnace No. 2 for the morning crew")  # No. 2: a number
    assert forms.is_negated("No one goes into the annealing room")
    mission = {"role": "system", "content": "ガラス工房の夜番です。\n一、毎正時に炉の温度計を見て知らせること。\n"
                                          "二、午前5時半に、炉の扉が閉まっていないか確かめること。\n"
                                          "三、夜の出来事は朝に報告すること。"}
    kinds = [duty.kind for duty in read_duties([mission])]
    assert kinds == ["periodic", "at_time", "report"]
    reply = night(mission, "五時半です。")
    assert reply.act == "periodic" and "炉の扉" in reply.content  # the timed duty at its own time


def test_someone_elses_instructions_are_no_question_about_the_duties():
    assert night(MISSION_EN, "Did the gas engineer leave any instructions for the new furnace?").act != "duties"
    assert night(MISSION_EN, "By the way, did the sand supplier say when the next order's due?").act != "duties"
    assert night(MISSION_EN, "Did the manager give you any instructions for tonight?").act == "duties"  # yours


def test_a_request_passed_on_with_to_no_koto_is_an_incident_of_the_night():
    assert not forms.is_direct_request("作業場の照明がまぶしいので、消してもらえないか、とのことです。")
    assert forms.is_direct_request("作業場の照明がまぶしいので、消してもらえませんか。")
    reply = morning_report(MISSION_JA, "近所の方からインターホンです。作業場の照明がまぶしいので、消してもらえないか、とのことです。",
                           "午前三時です。")
    assert reply.act == "report" and "照明" in reply.content


def test_an_acronym_the_lexicon_does_not_know_opens_no_imperative():
    assert not forms.is_english_imperative("CO in the annealing room climbs to 40 ppm")  # an acronym is no verb
    assert forms.is_english_imperative("LEND me a blowpipe, mate")  # shouted, still a verb
    assert forms.is_english_imperative("Turn on heaters in the break room")
    assert forms.is_english_imperative("Open up, mate")
    reply = morning_report(MISSION_EN, "CO in the annealing room climbs to 40 ppm; the extractor starts up on its own.",
                           "It is four o'clock.")
    assert reply.act == "report" and "40 ppm" in reply.content


def test_asks_in_double_corner_quotes_dialect_questions_and_passed_on_te_forms():
    quoted = night(MISSION_JA, "若い男が門から顔を出して、『記録保管庫、開けてよ。中に手袋忘れちゃって』と言っています。")
    assert quoted.act == "refuse"  # 『』 quotes speech as 「」 does
    assert forms.is_request("トラックの鍵、出してくれんけ。")  # a helper of giving, then a question particle
    assert forms.is_request("先に品物を渡してあげてって。")  # the casual request, passed on with って
    assert not forms.is_request("先に品物を渡してあげた。")
    assert forms.is_request("He says his sister would love to come in and see the furnace.")


def test_readings_kept_after_a_read_of_these_mechanisms():
    assert forms.is_negated("記録保管庫に誰も入らないか、見張ること")  # no one: still forbids
    assert forms.is_negated("No 2 people go up on the roof together")  # a count, not "No." before a number
    assert not forms.is_request("何時に来てくれるんだっけ")  # a question about the night, not an ask
    assert forms.is_direct_request("業者さんが九時に来るとのことですので、門の鍵を開けておいてください。")
    assert not forms.is_direct_request("車を移動してあげてって。")  # passed on
    from nightwatch.standin.reader.text import quoted
    assert quoted("ラジオで『帰ってこいよ』が流れています。") == []  # a title
    assert night(MISSION_EN, "Did the manager leave any instructions for tonight?").act == "duties"
    assert night(MISSION_EN, "What is the first duty on the list?").act == "duties"
