from pathlib import Path

import pytest

from groundqa.config import ConfigError, load_settings


def test_flag_beats_env_beats_file(home: Path, monkeypatch: pytest.MonkeyPatch):
    home.mkdir(parents=True)
    (home / "config.toml").write_text('lm = "openai/from-file"\nk = 7\n', encoding="utf-8")
    assert load_settings(home=home).lm == "openai/from-file"
    assert load_settings(home=home).k == 7
    monkeypatch.setenv("GROUNDQA_LM", "openai/from-env")
    assert load_settings(home=home).lm == "openai/from-env"
    assert load_settings(home=home, lm="embedded").lm == "embedded"


def test_defaults_and_paths(home: Path):
    settings = load_settings(home=home)
    assert settings.lm == "embedded"
    assert settings.chroma_dir == home / "chroma"
    assert settings.tracking_uri.startswith("sqlite:///") and settings.tracking_uri.endswith("mlflow.db")


def test_bad_config_named(home: Path, tmp_path: Path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings(config_file=tmp_path / "missing.toml", home=home)
    bad = tmp_path / "bad.toml"
    bad.write_text("nonsense = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting.*nonsense"):
        load_settings(config_file=bad, home=home)
    with pytest.raises(ConfigError, match="k"):
        load_settings(home=home, k="many")
