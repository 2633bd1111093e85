"""Build the configured LM: the embedded default or any LiteLLM model string.

A LiteLLM model string runs on DSPy's LiteLLM engine (``engine="litellm"``), not its native lm15 one:

* LiteLLM maps ``max_tokens`` per provider. DSPy's native route sends ``openai/...`` models only
  ``max_completion_tokens``, which OpenAI-compatible servers such as llama.cpp's ignore (one call
  generated 3,688 tokens in 512 s); through LiteLLM they receive ``max_tokens``.
* The guarded LM passes each call a ``timeout`` derived from the run's remaining budget; LiteLLM
  hands it to its HTTP client, whereas the native engine would keep one connection pool per
  distinct timeout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy

from groundqa.config import Settings
from groundqa.lm.errors import LMBackendError

EMBEDDED = "embedded"
EMBEDDED_BASE = "embedded-base"  # always the base model, never an adapter
# The LoRA adapter GGUF that ``embedded`` runs (None: the base model). Switching the default to a
# shipped adapter is this one line.
DEFAULT_ADAPTER: Path | None = None
# Providers reached without an API key (local servers).
_KEYLESS_PROVIDERS = {"ollama", "ollama_chat", "lm_studio", "llamafile", "vllm", "hosted_vllm", "openai_like"}


def check_model_string(model: str, api_base: str | None = None) -> str:
    """Validate a LiteLLM model string; return its provider. Raises :class:`LMBackendError`
    naming the problem (unknown provider, missing key) — never the key itself.

    The key check holds with or without ``api_base``: a provider whose client needs a key (``openai/``
    in front of a local server included) fails here, up front, instead of ending every question with
    ``LM_ERROR`` inside an abstention and exit code 0."""
    if "/" not in model:
        raise LMBackendError(
            f"unknown --lm {model!r}: use 'embedded', 'embedded-base' or a LiteLLM model string such as "
            "'openai/gpt-4o-mini' or 'ollama_chat/llama3.2'"
        )
    try:
        import litellm

        _, provider, _, _ = litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception as exc:
        raise LMBackendError(f"unknown --lm {model!r}: LiteLLM does not know this provider") from exc
    if provider not in _KEYLESS_PROVIDERS:
        try:
            missing = litellm.validate_environment(model=model, api_base=api_base).get("missing_keys") or []
        except Exception:  # some providers cannot be checked up front; let the first call tell
            missing = []
        if missing:
            hint = ""
            if api_base is not None:
                hint = ("; a local server that takes no key still needs a value (any), or use a keyless "
                        "prefix such as hosted_vllm/ or ollama_chat/")
            raise LMBackendError(
                f"--lm {model!r} needs {', '.join(missing)} in the environment (not set){hint}"
            )
    return str(provider)


def build_lm(settings: Settings, **overrides: Any) -> dspy.LM:
    """The LM named by ``settings.lm`` (flag > env > config file), configured from ``settings``."""
    model = overrides.pop("lm", None) or settings.lm
    temperature = overrides.pop("temperature", settings.temperature)
    max_tokens = overrides.pop("max_tokens", settings.max_tokens)
    cache = overrides.pop("cache", settings.cache)
    if model in (EMBEDDED, EMBEDDED_BASE):
        from groundqa.lm.embedded import EmbeddedLM

        adapter = overrides.pop("adapter", settings.adapter or DEFAULT_ADAPTER)
        if model == EMBEDDED_BASE:
            adapter = None
        return EmbeddedLM(
            cache_dir=Path(settings.cache_dir) / "models", temperature=temperature, max_tokens=max_tokens,
            n_ctx=settings.n_ctx, n_threads=settings.lm_threads, cache=cache, adapter=adapter, **overrides,
        )
    check_model_string(model, settings.api_base)
    kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens, "cache": cache, "num_retries": 0,
                              "engine": "litellm"}
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    return dspy.LM(model, **{**kwargs, **overrides})


def configure_dspy_cache(settings: Settings) -> None:
    """Keep DSPy's LM cache under the project home (``<home>/cache/dspy``)."""
    directory = Path(settings.cache_dir) / "dspy"
    directory.mkdir(parents=True, exist_ok=True)
    dspy.configure_cache(enable_disk_cache=settings.cache, enable_memory_cache=settings.cache,
                         disk_cache_dir=str(directory))
