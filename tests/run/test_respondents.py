"""Each respondent's settings: a Gemini 3 respondent is sent no temperature unless one is asked (Google's guidance
is to keep its default 1.0), while every other model gets the command's temperature, 0 unless told."""

from __future__ import annotations

import pytest

from cobe.models.capabilities import capabilities
from cobe.models.fitting import fit
from cobe.models.google_chat import contents_and_config
from cobe.models.model_args import ModelArgs
from cobe.run.config import EvalConfig
from cobe.run.respondents import respondent_settings

GEMINI_3 = ["google/gemini-3.1-pro-preview", "google/gemini-3-flash-preview", "google/gemini-3-pro-preview"]


@pytest.mark.parametrize("spec", GEMINI_3)
def test_gemini_3_is_sent_no_temperature_unless_one_is_asked(spec):
    caps = capabilities(spec)
    unasked = respondent_settings(EvalConfig(), caps)
    assert unasked.temperature is None
    _, fields = contents_and_config([], fit(caps, unasked))
    assert "temperature" not in fields  # on the wire: the provider's own default
    assert respondent_settings(EvalConfig(temperature=0.0), caps).temperature == 0.0  # asked: sent
    told = ModelArgs.parse([f"{spec}:temperature=0.4"], None)
    assert respondent_settings(EvalConfig(), caps, told).temperature == 0.4


@pytest.mark.parametrize("spec", ["google/gemini-2.5-flash", "google/gemini-2.0-flash", "openai/gpt-4.1", "mock/echo"])
def test_other_models_keep_the_commands_temperature(spec):
    assert respondent_settings(EvalConfig(), capabilities(spec)).temperature == 0.0
