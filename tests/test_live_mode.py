"""Live mode is an explicit opt-in; a key alone never switches it on, and is never shown."""

from __future__ import annotations

import pytest

from nightwatch.live import choose_model, live_mode_requested

SECRET = "sk-test-0123456789abcdef"


def test_default_is_the_offline_stand_in():
    choice = choose_model({})
    assert not choice.live and choice.standin is not None
    assert "オフライン" in choice.describe()


def test_a_key_alone_does_not_switch_to_live():
    choice = choose_model({"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert not choice.live


@pytest.mark.parametrize("flag", ["0", "", "yes", "true"])
def test_only_the_exact_flag_opts_in(flag):
    assert not live_mode_requested({"NIGHTWATCH_LIVE": flag, "OPENAI_API_KEY": SECRET})


def test_live_mode_uses_the_environment_and_hides_the_key():
    choice = choose_model({"NIGHTWATCH_LIVE": "1", "OPENAI_API_KEY": SECRET,
                           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "NIGHTWATCH_MODEL": "local-model"})
    assert choice.live and choice.model == "local-model"
    assert str(choice.client.base_url).startswith("http://127.0.0.1:9/v1")
    assert SECRET not in choice.describe() and SECRET not in repr(choice)


def test_live_mode_without_credentials_is_refused_clearly():
    with pytest.raises(RuntimeError, match="OPENAI_API_KEY"):
        choose_model({"NIGHTWATCH_LIVE": "1"})
