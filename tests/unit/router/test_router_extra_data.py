"""Router build configs with `extra_data`: foreign labels through a label-mapping CSV, sampling weights, a
stratified dev split per file, held-out decontamination, and a clear error for a missing file."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from checkpoints.router_config import ConfigError, load_router_config
from checkpoints.router_data import DataError, epoch_rows, load_training_data

REPO = Path(__file__).resolve().parents[3]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _config(tmp_path: Path, extra: list[dict], heldout: Path | None = None) -> Path:
    team = _jsonl(
        tmp_path / "team.jsonl",
        [
            {"text": f"where is my parcel number {i}", "intent": "order_tracking", "lang": "en"}
            for i in range(10)
        ]
        + [{"text": f"我的快递{i}到哪了", "intent": "order_tracking", "lang": "zh"} for i in range(10)],
    )
    config = {
        "version": 1,
        "name": "tiny",
        "data": {
            "train": [str(team)],
            "heldout": str(heldout) if heldout else None,
            "dev_fraction": 0.2,
            "extra_data": extra,
        },
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture()
def logs(tmp_path: Path) -> tuple[Path, Path]:
    """An operator's logs labelled with their own scheme, and the CSV that maps it onto our intents."""
    rows = (
        [{"text": f"refund for ticket {i} please", "tag": "MONEY_BACK"} for i in range(20)]
        + [{"text": f"whats the weather on day {i}", "tag": "CHITCHAT_WEATHER"} for i in range(10)]
        + [{"text": f"upgrade or refund {i}?", "tag": "AMBIGUOUS"} for i in range(5)]
    )
    mapping = tmp_path / "map.csv"
    mapping.write_text("label,intent\nMONEY_BACK,refund\nCHITCHAT_WEATHER,out_of_scope\nAMBIGUOUS,\n")
    return _jsonl(tmp_path / "logs.jsonl", rows), mapping


def test_extra_data_with_a_label_mapping_is_mapped_weighted_and_split(
    tmp_path: Path, logs: tuple[Path, Path]
) -> None:
    data_file, mapping = logs
    heldout = _jsonl(
        tmp_path / "heldout.jsonl", [{"text": "Refund for ticket 3, please!", "intent": "refund"}]
    )
    config = load_router_config(
        _config(
            tmp_path,
            [
                {
                    "name": "ops",
                    "path": str(data_file),
                    "label_field": "tag",
                    "label_map": str(mapping),
                    "lang": "en",
                    "weight": 0.5,
                }
            ],
            heldout,
        )
    )
    data = load_training_data(config.data, seed=13)
    extra_train = [e for e in data.train if e.source == "ops"]
    extra_dev = [e for e in data.dev if e.source == "ops"]
    assert Counter(e.intent for e in extra_train + extra_dev) == {
        "refund": 19,
        "out_of_scope": 10,
    }  # AMBIGUOUS skipped
    assert not any(
        "ticket 3 " in e.text for e in extra_train + extra_dev
    )  # equal to a held-out line: dropped
    assert Counter(e.intent for e in extra_dev) == {"refund": 4, "out_of_scope": 2}  # stratified 20 %
    assert {e.lang for e in extra_train} == {"en"}
    weights = {e.source: w for e, w in zip(data.train, data.weights, strict=True)}
    assert weights == {"team": 1.0, "ops": 0.5}
    sources = {s["name"]: s for s in data.sources}
    assert sources["ops"]["label_map"] == str(mapping) and sources["ops"]["dev"] == 6
    assert data.dropped_heldout == 1


def test_sampling_weights_set_how_often_a_row_is_seen_per_epoch() -> None:
    rng = random.Random(0)
    counts = Counter(i for _ in range(200) for i in epoch_rows([1.0, 0.25, 2.0], rng))
    assert counts[0] == 200 and counts[2] == 400
    assert 30 < counts[1] < 70  # a quarter of 200 epochs


def test_a_missing_extra_data_file_is_a_one_line_error(tmp_path: Path) -> None:
    config = load_router_config(_config(tmp_path, [{"path": "../nowhere/train.jsonl"}]))
    with pytest.raises(DataError) as info:
        load_training_data(config.data, seed=13)
    message = str(info.value)
    assert "\n" not in message and "nowhere/train.jsonl" in message and "not found" in message


def test_a_foreign_label_without_a_mapping_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a label_map"):
        load_router_config(_config(tmp_path, [{"path": "x.jsonl", "label_field": "tag"}]))


def test_labels_the_mapping_does_not_cover_stop_the_build(tmp_path: Path, logs: tuple[Path, Path]) -> None:
    data_file, _ = logs
    partial = tmp_path / "partial.csv"
    partial.write_text("label,intent\nMONEY_BACK,refund\n")
    config = load_router_config(
        _config(
            tmp_path,
            [{"name": "ops", "path": str(data_file), "label_field": "tag", "label_map": str(partial)}],
        )
    )
    with pytest.raises(DataError, match="extra_data ops: .*CHITCHAT_WEATHER"):
        load_training_data(config.data, seed=13)


def test_shipped_configs_validate_and_only_public_reads_outside_the_project() -> None:
    default = load_router_config(REPO / "build_configs/router/default.yaml")
    public = load_router_config(REPO / "build_configs/router/public.yaml")
    assert default.data.extra_data == [] and not any(".." in p for p in default.data.train)
    assert {e.display_name for e in public.data.extra_data} == {"banking77", "clinc150", "bitext"}
    assert all(e.label_map and e.label_field == "source_label" for e in public.data.extra_data)


def test_a_team_file_can_be_weighted_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    path = _config(tmp_path, [])
    raw = yaml.safe_load(path.read_text())
    team = raw["data"]["train"][0]
    raw["data"]["train_weights"] = {team: 0.4}
    path.write_text(yaml.safe_dump(raw))
    data = load_training_data(load_router_config(path).data, seed=1)
    assert set(data.weights) == {0.4} and data.sources[0]["weight"] == 0.4
    raw["data"]["train_weights"] = {"data/intents/not_listed.jsonl": 0.5}
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="not in train"):
        load_router_config(path)
