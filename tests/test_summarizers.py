"""The summarizers: the growing fake, the three-line contract, and the model-backed one."""

from __future__ import annotations

import pytest

from nightwatch.memory import Exchange
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.summarizers import LLMSummarizer, SummaryTruncatedError, concatenating_summarizer
from nightwatch.tokens import count_text_tokens
from nightwatch.standin.reader import read


def night_exchanges() -> list[Exchange]:
    """The celebration eve's turns with the replies the stand-in gives while the mission is present."""
    return [
        Exchange(user_text=t.text, watchman_reply=read(
            [{"role": "system", "content": MISSION}, {"role": "user", "content": t.text}]).content)
        for t in celebration_eve().turns
    ]


def fold_in_chunks(summarizer, exchanges, chunk=3) -> list[str]:
    summaries, summary = [], ""
    for start in range(0, len(exchanges), chunk):
        summary = summarizer(summary, exchanges[start : start + chunk])
        summaries.append(summary)
    return summaries


def test_concatenating_fake_grows_without_bound():
    lengths = [count_text_tokens(s) for s in fold_in_chunks(concatenating_summarizer, night_exchanges())]
    assert all(later > earlier for earlier, later in zip(lengths, lengths[1:]))


def test_three_line_summary_keeps_its_contract_and_the_incidents():
    summaries = fold_in_chunks(ThreeLineSummarizer(), night_exchanges())
    assert all(len(s.splitlines()) <= 3 for s in summaries)
    final = summaries[-1]
    for incident in celebration_eve().incidents:
        assert incident.stated_in(final), incident.label
    assert "西回廊へ届きます" in final  # the dusk handover, word for word
    assert "八時〜五時 10回" in final  # the hours striking, collapsed into a count
    assert "舞台袖を出入りしています" not in final  # routine comings and goings lose their words
    night = "\n".join(e.user_text + e.watchman_reply for e in night_exchanges())
    assert max(count_text_tokens(s) for s in summaries) < count_text_tokens(night) / 3


def test_incidents_outrank_routine_when_the_line_is_full():
    summarizer = ThreeLineSummarizer(max_items=2)
    exchanges = night_exchanges()
    final = fold_in_chunks(summarizer, exchanges)[-1]
    incidents = next(line for line in final.splitlines() if line.startswith("出来事"))
    assert "ハーロウ" not in incidents  # the delivery made room for newer ones
    shutter, door = celebration_eve().incidents[1:]
    assert shutter.follow_up_stated_in(incidents) and door.follow_up_stated_in(incidents)  # the newest two, with his deeds


def test_llm_summarizer_through_the_stand_in_matches_the_deterministic_one():
    standin = StandInModel()
    llm = LLMSummarizer(standin.client(), max_completion_tokens=400)
    exchanges = night_exchanges()
    assert fold_in_chunks(llm, exchanges) == fold_in_chunks(ThreeLineSummarizer(), exchanges)
    assert all(r.messages[0]["role"] == "system" for r in standin.requests)


def test_llm_summary_cut_at_the_reply_cap_is_refused():
    llm = LLMSummarizer(StandInModel().client(), max_completion_tokens=5)
    with pytest.raises(SummaryTruncatedError, match="max_completion_tokens=5"):
        llm("", night_exchanges()[:6])


class ReasonedAway:
    """An endpoint that answers as a reasoning model does when its reasoning fills the cap."""

    def __init__(self, reasoning: int) -> None:
        self.reasoning = reasoning
        self.chat = self.completions = self

    def create(self, **request):
        from openai.types.chat import ChatCompletion
        cap = request["max_completion_tokens"]
        return ChatCompletion.model_validate({
            "id": "x", "object": "chat.completion", "created": 0, "model": "o-model",
            "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": ""}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": cap, "total_tokens": 50 + cap,
                      "completion_tokens_details": {"reasoning_tokens": self.reasoning}}})


def test_an_empty_answer_cut_by_reasoning_names_the_cap_and_the_reasoning_tokens():
    llm = LLMSummarizer(ReasonedAway(400), max_completion_tokens=400)  # type: ignore[arg-type]
    with pytest.raises(SummaryTruncatedError, match="400 of the 400 tokens went to the model's reasoning"):
        llm("", night_exchanges()[:2])
    plain = LLMSummarizer(ReasonedAway(0), max_completion_tokens=400)  # type: ignore[arg-type]
    with pytest.raises(SummaryTruncatedError) as cut:
        plain("", night_exchanges()[:2])
    assert "reasoning" not in str(cut.value)


@pytest.mark.parametrize("bad", [{"max_items": 0}, {"max_chars": 1}])
def test_three_line_summarizer_refuses_bad_settings(bad):
    with pytest.raises(ValueError):
        ThreeLineSummarizer(**bad)
