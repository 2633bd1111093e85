"""Settings: command-line flag > environment (``GROUNDQA_*``) > config file > default.

The config file is TOML: ``--config PATH``, else ``$GROUNDQA_CONFIG``, else ``<home>/config.toml``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from groundqa.errors import GroundQAError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(GroundQAError, ValueError):
    """A configuration value is missing or wrong; the message names it."""


class Settings(BaseModel):
    """Every knob of groundqa, with its default."""

    home: Path = Field(default=Path(".groundqa"), description="project home: Chroma, caches, MLflow store")
    lm: str = Field(default="embedded", description="'embedded' (Gemma 3 270M with groundqa's adapter), "
                                                   "'embedded-base' (without it) or any LiteLLM model string")
    adapter: Path | None = Field(default=None, description="a LoRA adapter GGUF for the embedded LM (set by a "
                                                           "fine-tuned program; default: the shipped one)")
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 256
    n_ctx: int = 4096
    lm_threads: int | None = None
    judge_merged: bool = Field(default=True, description="run the tuned answer judge on a copy of the embedded model "
                               "with its adapter merged into the weights (about a quarter less time per judgment; "
                               "written once, about 290 MB under <home>/cache/merged); false: llama.cpp applies the "
                               "adapter at run time")
    collection: str = "groundqa"
    chroma_url: str | None = Field(default=None, description="a Chroma server (http://host:port); default: persistent")
    chunk_size: int = 600
    chunk_overlap: int = 120
    embed_sentences: bool = Field(default=True, description="embed each chunk's sentences at ingestion, in the forms "
                                  "the program reads them, into the embedding cache (with cache = true): a question "
                                  "then embeds only itself and its queries; false: each sentence when first read")
    k: int = 4
    cache: bool = True
    mlflow_tracking_uri: str | None = None

    @property
    def chroma_dir(self) -> Path:
        return self.home / "chroma"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def tracking_uri(self) -> str:
        """MLFLOW_TRACKING_URI wins; otherwise a SQLite store under the home."""
        uri = self.mlflow_tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
        if uri:
            return uri
        return f"sqlite:///{(self.home / 'mlflow.db').resolve()}"


_ENV_PREFIX = "GROUNDQA_"


def _from_env() -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in Settings.model_fields:
        raw = os.environ.get(_ENV_PREFIX + name.upper())
        if raw is not None and raw != "":
            values[name] = raw
    return values


def _from_file(path: Path | None, home: Path) -> dict[str, Any]:
    candidate = path or (Path(os.environ["GROUNDQA_CONFIG"]) if os.environ.get("GROUNDQA_CONFIG") else None)
    if candidate is None:
        candidate = home / "config.toml"
        if not candidate.exists():
            return {}
    elif not candidate.exists():
        raise ConfigError(f"config file not found: {candidate}")
    try:
        data = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {candidate}: {exc}") from exc
    section = data.get("groundqa", data)
    unknown = set(section) - set(Settings.model_fields)
    if unknown:
        raise ConfigError(f"unknown setting(s) in {candidate}: {', '.join(sorted(unknown))}")
    return dict(section)


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Resolve settings; ``overrides`` are command-line values (``None`` means not given)."""
    flags = {k: v for k, v in overrides.items() if v is not None}
    env = _from_env()
    home = Path(flags.get("home") or env.get("home") or Settings.model_fields["home"].default)
    merged: dict[str, Any] = {**_from_file(config_file, home), **env, **flags}
    try:
        return Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid settings: {problems}") from exc
