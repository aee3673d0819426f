import json
from pathlib import Path

import pytest

from patterns.replay import ReplayModel
from patterns.sim import SimModel
from patterns.specs import SPEC_FORMS, describe_model_specs, load_model, parse_sim_knobs

VALID_KNOBS = "valid knobs are " + ", ".join(SimModel.KNOBS)


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    message = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"request": {"max_tokens": 8}, "response": message}) + "\n")
    return path


@pytest.mark.parametrize(
    ("spec", "knobs"),
    [
        ("sim", {}),
        ("  sim  ", {}),
        ("sim:", {}),
        ("SIM:seed=1", {"seed": 1}),
        ("sim:error_rate=0.1,seed=3,fault_rate=0.05", {"error_rate": 0.1, "seed": 3, "fault_rate": 0.05}),
        ("sim: error_rate = 0.2 , seed=7", {"error_rate": 0.2, "seed": 7}),
        ("sim:realtime=false", {"realtime": False}),
        ("sim:realtime=0", {"realtime": False}),
        ("sim:realtime=TRUE", {"realtime": True}),
        ("sim:fault_mix=2/1/1/0,context_window=5000", {"fault_mix": (2.0, 1.0, 1.0, 0.0), "context_window": 5000}),
        ("sim:price_as=claude-haiku-4-5,name=tiny", {"price_as": "claude-haiku-4-5", "name": "tiny"}),
    ],
)
def test_good_sim_specs(spec: str, knobs: dict[str, object]) -> None:
    model = load_model(spec)
    assert isinstance(model, SimModel)
    for name, value in knobs.items():
        assert model.knobs[name] == value
        assert type(model.knobs[name]) is type(value)


def test_every_knob_is_settable_from_a_spec() -> None:
    for name, (kind, default, _) in SimModel.KNOBS.items():
        default = 0.1 if default is None else default  # checker_error_rate: unset means error_rate's value
        text = str(default).lower() if kind is bool else str(default)
        assert parse_sim_knobs([f"{name}={text}"]) == {name: kind(default)}
        assert isinstance(load_model(f"sim:{name}={text}"), SimModel)


def test_replay_spec(cassette: Path) -> None:
    model = load_model(f"replay:{cassette}")
    assert isinstance(model, ReplayModel) and model.price_id == "claude-haiku-4-5"


def test_anthropic_spec_builds_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    from patterns.model import AnthropicModel

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-canary-not-used")
    assert isinstance(load_model("anthropic:claude-sonnet-4-5"), AnthropicModel)


BAD_SPECS: list[tuple[object, str]] = [
    ("foo", f"unknown model spec 'foo': use {SPEC_FORMS}"),
    ("", f"unknown model spec '': use {SPEC_FORMS}"),
    ("gpt-4o:mini", SPEC_FORMS),
    ("simulator", SPEC_FORMS),
    (None, SPEC_FORMS),
    ("sim:eror_rate=0.1", f"unknown sim knob 'eror_rate': {VALID_KNOBS}"),
    ("sim:seed", f"bad sim knob 'seed': write knob=value; {VALID_KNOBS}"),
    ("sim:=3", VALID_KNOBS),
    ("sim:seed=abc", "bad value 'abc' for sim knob 'seed': expected an integer"),
    ("sim:seed=1.5", "expected an integer"),
    ("sim:error_rate=high", "bad value 'high' for sim knob 'error_rate': expected a number"),
    ("sim:error_rate=nan", "expected a finite number"),
    ("sim:realtime=maybe", "use true, false, 1 or 0"),
    ("sim:seed=1,seed=2", "sim knob 'seed' is given twice"),
    ("sim:error_rate=2", "must be in [0, 1]"),  # SimModel's own range check, kept on one line
    ("sim:fault_mix=1/2", "expected 4 non-negative weights"),
    ("anthropic:", "use anthropic:<model-id>"),
    ("anthropic", "use anthropic:<model-id>"),
    ("anthropic:claude sonnet", "use anthropic:<model-id>"),
    ("replay:", "use replay:<path>"),
    ("replay:{tmp}/missing.jsonl", "does not exist: use replay:<path>"),
    ("replay:{tmp}/malformed.jsonl", "line 1: not JSON"),
]


@pytest.mark.parametrize(("spec", "names"), BAD_SPECS)
def test_bad_specs_are_one_line_value_errors_naming_the_choices(tmp_path: Path, spec: object, names: str) -> None:
    (tmp_path / "malformed.jsonl").write_text("{oops\n")
    if isinstance(spec, str):
        spec = spec.format(tmp=tmp_path)
    with pytest.raises(ValueError) as info:
        load_model(spec)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    assert names in message


def test_describe_lists_forms_and_knobs() -> None:
    text = describe_model_specs()
    assert "anthropic:<model-id>" in text and "replay:<path>" in text
    for name, (_, default, description) in SimModel.KNOBS.items():
        assert f"{name} " in text and description in text
        shown = "-" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        assert shown in text
