"""The DSPy provider of the embedded LM: what makes ``dspy.BootstrapFinetune`` work on it unchanged.

``BootstrapFinetune`` collects the traces that pass the metric, formats them as chat data and calls
``lm.finetune(train_data, "chat", train_kwargs)``; DSPy runs ``lm.provider.finetune(...)`` in a thread,
then ``lm.copy(model=<returned id>)``. :class:`EmbeddedProvider` trains a LoRA on CPU
(:func:`~groundqa.lm.finetune.lora.train_lora`), remembers the adapter under its id
(``embedded/gemma-3-270m-q4_k_m+lora-<sha12>``), and ``EmbeddedLM.copy`` turns that id into an
``EmbeddedLM`` running the base GGUF with the adapter.

``train_kwargs`` (all optional): the keyword arguments of ``train_lora`` — ``seed``, ``epochs``,
``max_steps``, ``lr``, ``rank``, ``alpha``, ``dropout``, ``max_len``, ``max_grad_norm``,
``checkpoint_every``, ``threads``, ``progress``, ``resume`` — and ``out_dir``. Without ``out_dir`` a
run lives in ``<cache_dir>/adapters/<digest of data and settings>``, so rerunning an interrupted
compile resumes it, and rerunning a finished one reuses its adapter.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dspy.clients.provider import Provider, TrainingJob
from dspy.clients.utils_finetune import TrainDataFormat, TrainingStatus

from groundqa.lm.finetune.adapter import Adapter
from groundqa.lm.finetune.lora import StepReport, TrainResult, train_lora
from groundqa.lm.finetune.records import TrainRecord, records_from_chat
from groundqa.lm.gemma import MODEL_ID, model_path

logger = logging.getLogger(__name__)

_TRAIN_OPTIONS = frozenset(inspect.signature(train_lora).parameters) - {"records", "base_gguf"}


class EmbeddedTrainingJob(TrainingJob):
    """A fine-tune of the embedded LM running in DSPy's training thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.last_step: StepReport | None = None
        self.train_result: TrainResult | None = None

    def status(self) -> TrainingStatus:
        if self.done():
            return TrainingStatus.failed if isinstance(self.result(), Exception) else TrainingStatus.succeeded
        return TrainingStatus.running if self.last_step is not None else TrainingStatus.pending


def lora_model_id(sha256: str) -> str:
    """The model id of the base model with the adapter whose sha256 is ``sha256``."""
    return f"{MODEL_ID}+lora-{sha256[:12]}"


def run_digest(records: list[TrainRecord], options: dict[str, Any]) -> str:
    """A short digest of the training data and settings: the default run folder's name."""
    settings = {k: v for k, v in options.items() if k not in ("progress", "resume", "threads", "out_dir")}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    for record in records:
        digest.update(json.dumps([record.prompt, record.completion]).encode())
    return digest.hexdigest()[:16]


def _log_step(report: StepReport) -> None:
    logger.info("LoRA step %d/%d: loss %.4f (%.2f s)", report.step, report.total_steps, report.loss, report.seconds)


class EmbeddedProvider(Provider):
    """Fine-tunes the embedded Gemma 3 270M with a LoRA; see the module docstring.

    Args:
        cache_dir: the embedded LM's model cache (base GGUF; default home of the training runs).
        gguf_path: the base GGUF when it is not the packaged one in ``cache_dir``.
    """

    def __init__(self, cache_dir: str | Path, gguf_path: str | Path | None = None) -> None:
        super().__init__()
        self.finetunable = True
        self.TrainingJob = EmbeddedTrainingJob
        self.cache_dir = Path(cache_dir)
        self.gguf_path = Path(gguf_path) if gguf_path else None
        self.adapters: dict[str, Adapter] = {}  # adapter tag (sha256[:12]) -> trained adapter

    @staticmethod
    def is_provider_model(model: str) -> bool:
        return model.startswith(MODEL_ID)

    def finetune(  # type: ignore[override]  # an instance method: it needs the model cache
        self,
        job: TrainingJob,
        model: str,
        train_data: list[dict[str, Any]],
        train_data_format: TrainDataFormat | str | None,
        train_kwargs: dict[str, Any] | None = None,
    ) -> str:
        """Train a LoRA on ``train_data`` (chat format) and return the tuned model's id."""
        if train_data_format not in (TrainDataFormat.CHAT, TrainDataFormat.CHAT.value, None):
            raise ValueError(f"the embedded LM fine-tunes on chat data, not {train_data_format!r}")
        options = dict(train_kwargs or {})
        unknown = sorted(set(options) - _TRAIN_OPTIONS)
        if unknown:
            raise ValueError(f"unknown train_kwargs {unknown}; known: {sorted(_TRAIN_OPTIONS)}")
        records = records_from_chat(train_data)
        base = self.gguf_path or model_path(self.cache_dir)
        out_dir = Path(options.pop("out_dir", None) or self.cache_dir / "adapters" / run_digest(records, options))
        options["progress"] = self._progress(job, options.get("progress") or _log_step)
        result = train_lora(records, out_dir, base_gguf=base, **options)
        if isinstance(job, EmbeddedTrainingJob):
            job.train_result = result
        self.adapters[result.sha256[:12]] = Adapter(path=result.adapter_path, sha256=result.sha256)
        logger.info("LoRA adapter %s (%d steps, final loss %.4f)", result.adapter_path, result.steps,
                    result.losses[-1] if result.losses else float("nan"))
        return lora_model_id(result.sha256)

    @staticmethod
    def _progress(job: TrainingJob, user: Callable[[StepReport], None]) -> Callable[[StepReport], None]:
        def report(step: StepReport) -> None:
            if isinstance(job, EmbeddedTrainingJob):
                job.last_step = step
            user(step)

        return report
