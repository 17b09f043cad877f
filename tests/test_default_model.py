"""With no model named, each strategy runs on the bundled model with the adapter tuned for it (over the
registry); `llamacpp` names the plain bundled model; how the model that answered is shown."""

from __future__ import annotations

import pytest

import arkg.session
from arkg.agents import REGISTRY
from arkg.data import TUNED_ADAPTERS
from arkg.errors import SpecError
from arkg.llm import ModelSpec, parse_model_spec
from arkg.llm.scripted import ScriptedModel
from arkg.llm.spec import default_model_spec, model_name_parts
from arkg.session import Session, model_label

TUNED_NAME = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf+smollm2-135m-arkg-lora.gguf"
KG_AGENT_NAME = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf+smollm2-135m-arkg-kg-agent-lora.gguf"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The specs a Session opens, each answered by a scripted model named after its spec."""
    specs: list[str] = []

    def open_model(spec, **options):
        specs.append(spec)
        return ScriptedModel.from_replies([], name=spec)

    monkeypatch.setattr(arkg.session, "open_model", open_model)
    return specs


@pytest.mark.parametrize("strategy", sorted(REGISTRY))
def test_the_default_spec_is_the_bundled_model_with_the_strategys_adapter(strategy: str) -> None:
    adapter = REGISTRY[strategy].tuned_adapter
    assert adapter is None or adapter in TUNED_ADAPTERS
    assert parse_model_spec(default_model_spec(adapter)) == ModelSpec("llamacpp", adapter=adapter)


def test_the_shipped_adapters_are_each_some_strategys_default() -> None:
    assert {info.tuned_adapter for info in REGISTRY.values()} - {None} == set(TUNED_ADAPTERS)


def test_a_session_without_a_model_opens_each_strategys_default_once(opened: list[str]) -> None:
    with Session() as session:
        assert opened == []  # nothing loads before a strategy asks
        for strategy in REGISTRY:
            assert session.model_for(strategy).name == default_model_spec(REGISTRY[strategy].tuned_adapter)
        session.model_for("ark")
    assert sorted(opened) == sorted({default_model_spec(info.tuned_adapter) for info in REGISTRY.values()})


def test_the_spec_llamacpp_is_the_plain_bundled_model_for_every_strategy(opened: list[str]) -> None:
    with Session(model="llamacpp") as session:
        assert {session.model_for(strategy).name for strategy in REGISTRY} == {"llamacpp"}
    assert opened == ["llamacpp"]
    assert parse_model_spec("llamacpp") == ModelSpec("llamacpp")


def test_a_mistyped_spec_is_refused_before_anything_opens(opened: list[str]) -> None:
    with pytest.raises(SpecError, match="unknown backend 'lamacpp'"):
        Session(model="lamacpp:tuned")
    assert opened == []


def test_the_default_sessions_name_lists_the_adapter_of_each_strategy(opened: list[str]) -> None:
    with Session() as session:
        assert session.model_name == (
            "llamacpp with the adapter tuned for each strategy (ark: tuned, kg-agent: tuned-kg-agent; none for the others)"
        )


def test_after_arkg_adapt_the_name_lists_the_kgs_own_adapter(opened: list[str], tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapted_records import write_record

    from arkg.llm.adapted import adapted_folder

    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path))
    write_record(adapted_folder(None))  # an adapter for ark only
    with Session() as session:
        assert session.model_name == (
            "llamacpp with the adapter tuned for each strategy (ark: adapted-ark, kg-agent: tuned-kg-agent; none for the others)"
        )


@pytest.mark.parametrize(
    ("name", "parts", "label"),
    [
        (TUNED_NAME, ("SmolLM2-135M-Instruct", "tuned"), "SmolLM2-135M-Instruct + tuned (the adapter tuned for ark)"),
        (KG_AGENT_NAME, ("SmolLM2-135M-Instruct", "tuned-kg-agent"),
         "SmolLM2-135M-Instruct + tuned-kg-agent (the adapter tuned for kg-agent)"),
        ("llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf", ("SmolLM2-135M-Instruct", None), "SmolLM2-135M-Instruct, no adapter"),
        ("llamacpp:qwen-q4_k_m.gguf+run-7.gguf", ("qwen", "run-7"), "qwen + run-7"),
        ("openai:gpt-4o-mini@http://127.0.0.1:9/v1", ("gpt-4o-mini", None), "openai:gpt-4o-mini@http://127.0.0.1:9/v1"),
        ("scripted", ("scripted", None), "scripted"),
    ],
)  # fmt: skip
def test_which_model_answered_reads_from_its_name(name: str, parts: tuple[str, str | None], label: str) -> None:
    assert model_name_parts(name) == parts
    assert model_label(name) == label
