"""make_client resolves provider prefixes; unknown names list the registered ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memsys.errors import UnknownNameError
from memsys.llm import (
    AnthropicClient,
    ModelKind,
    OpenAIChatClient,
    make_client,
    model_kind,
    registered_providers,
    resolve_model,
)
from memsys.llm.registry import register_provider


def test_builtin_providers_are_registered() -> None:
    assert {"openai", "openai-compatible", "anthropic"} <= set(registered_providers())


def test_make_client_builds_each_provider() -> None:
    openai = make_client("openai/gpt-4.1-mini", api_key="k")
    assert isinstance(openai, OpenAIChatClient) and openai.name == "openai/gpt-4.1-mini"
    claude = make_client("anthropic/claude-haiku-4-5", api_key="k")
    assert isinstance(claude, AnthropicClient) and claude.name == "anthropic/claude-haiku-4-5"
    local = make_client("openai-compatible/qwen3:0.6b", base_url="http://127.0.0.1:11434/v1")
    assert isinstance(local, OpenAIChatClient)
    assert local.name == "openai-compatible/qwen3:0.6b"
    assert local.base_url == "http://127.0.0.1:11434/v1"


@pytest.mark.parametrize("name", ["mistral/large", "gpt-4.1-mini", "openai/"])
def test_unknown_names_list_the_prefixes(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        make_client(name)
    message = str(info.value)
    assert repr(name) in message
    assert "openai/<model>" in message and "anthropic/<model>" in message


def test_a_prefix_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):

        @register_provider("openai", ModelKind.REAL)
        def other(model: str, **options: object) -> OpenAIChatClient:
            raise AssertionError

    with pytest.raises(ValueError, match="no '/'"):
        register_provider("a/b", ModelKind.REAL)


def test_sim_models_build_from_memsys_llm_alone() -> None:
    # A fresh interpreter: nothing but memsys.llm is imported before the call.
    code = "from memsys.llm import make_client; print(make_client('sim/careful').kind)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "simulated"


def test_kinds_come_from_the_registration_without_building_a_client() -> None:
    assert model_kind("sim/naive") is ModelKind.SIMULATED
    # No base URL, no key: a real client could not be built, but its kind is known.
    assert model_kind("openai-compatible/anything") is ModelKind.REAL
    assert resolve_model("openai-compatible/anything") is ModelKind.REAL


def test_an_unknown_sim_model_is_resolved_before_a_run() -> None:
    with pytest.raises(UnknownNameError, match="sim/careful, sim/naive"):
        resolve_model("sim/nonexistent")
