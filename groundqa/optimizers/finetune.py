"""``FinetuneEmbedded``: a DSPy optimizer that compiles the embedded LM's weights for GroundedQA.

Gemma 3 270M is a base model: demos and instructions barely move it (it never says "not in sources" on
its own), so the embedded default's answers are mostly the extractive fallback. Its weights are the
part of the program an optimizer can still compile. This optimizer does what ``dspy.BootstrapFinetune``
does for a hosted LM, for the embedded one, with grounding targets:

1. **data** -- the program runs over the trainset with a gold-label teacher in place of the LM
   (:mod:`groundqa.optimizers.finetune_data`): every cited-answer prompt the program sends, exactly as
   it sends it, paired with the passage sentence that holds the gold answer, cited ``[n]``, or ``NOT IN
   SOURCES`` when the question should be refused or the passages do not hold the answer. Questions the
   program refuses before asking the LM add nothing (the LM never sees them). Extra data written by
   ``python -m groundqa.optimizers.finetune_data`` (e.g. the SQuAD training articles) can be added;
2. **weights** -- a LoRA trained on CPU (:func:`groundqa.lm.finetune.train_lora`: loss on the answer
   tokens only, seeded, resumable), written as a llama.cpp adapter GGUF;
3. **program** -- the compiled program records the adapter (``program.adapter``, saved next to
   ``program.json`` and pinned by sha256); the app runs the embedded LM with it, under the same guard
   (budgets, traces) as any LM. The LM itself is never stored in the program.

Bad input is said, not hidden: an empty trainset, or one on which the program never asks the LM (no
successful trace), is a one-line :class:`FinetuneError` before any training starts; an interrupted
training run keeps its checkpoint and the next compile resumes from it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel, Field

from groundqa.errors import GroundQAError
from groundqa.lm.finetune.adapter import Adapter

DEFAULT_REFUSAL_SHARE = 0.2
"""At most this share of the training examples are NOT IN SOURCES refusals (see ``refusal_share``)."""


class FinetuneError(GroundQAError, ValueError):
    """A fine-tune that cannot start; the message says why."""


class FinetuneReport(BaseModel):
    """What the fine-tune did (also logged to MLflow by the compile)."""

    records: int = Field(description="training examples (prompt and target)")
    answers: int = Field(description="examples whose target is a cited sentence")
    refusals: int = Field(description="examples whose target is NOT IN SOURCES")
    from_trainset: int = 0
    from_data: int = Field(0, description="examples read from the extra data file")
    data_sha256: str = Field("", description="sha256 of the training data as serialised")
    manifest: dict[str, Any] = Field(default_factory=dict)
    adapter: str = ""
    adapter_sha256: str = ""
    steps: int = 0
    resumed_from: int = 0
    losses: list[float] = Field(default_factory=list)
    seconds: float = 0.0
    train_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    options: dict[str, Any] = Field(default_factory=dict)


def read_chat_data(path: str | Path) -> list[dict[str, Any]]:
    """Chat-format examples from a JSONL file (one ``{"messages": [...]}`` a line); one-line errors."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FinetuneError(f"cannot read the fine-tuning data {path}: {exc}") from exc
    data: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FinetuneError(f"{path}:{number} is not JSON: {exc.msg}") from exc
        if not isinstance(item, dict) or not isinstance(item.get("messages"), list):
            raise FinetuneError(f"{path}:{number} is not a chat example (an object with a 'messages' list)")
        data.append(item)
    return data


class FinetuneEmbedded(dspy.teleprompt.Teleprompter):
    """Fine-tune the embedded LM on the program's own cited-answer prompts (see the module docstring).

    Args:
        cache_dir: the embedded LM's model cache (the base GGUF; training runs go under ``adapters/``).
        data: extra chat-format training data (JSONL), e.g. from the SQuAD training articles.
        epochs: passes over the examples (one optimizer step per example).
        max_steps: optimizer steps instead of ``epochs`` passes.
        lr: the LoRA's learning rate.
        rank: the LoRA's rank.
        seed: seeds the data order, the refusal cap and the LoRA initialisation.
        refusal_share: at most this share of all examples (trainset and extra data) are refusals. A short,
            always-identical target is learnt far faster than cited sentences: at 48% refusals the first
            adapter answered NOT IN SOURCES to every bundled dev question.
        out_dir: where the training run lives (default: under ``cache_dir``, named by a digest of data and
            settings, so an interrupted compile resumes).
        on_step: called with each training step's report (the compile logs the loss curve).
    """

    def __init__(self, cache_dir: str | Path, *, data: str | Path | None = None, epochs: int = 1,
                 max_steps: int | None = None, lr: float = 2e-4, rank: int = 16, seed: int = 0,
                 refusal_share: float | None = DEFAULT_REFUSAL_SHARE,
                 out_dir: str | Path | None = None,
                 on_step: Callable[[Any], None] | None = None, say: Callable[[str], None] | None = None,
                 progress: bool = True) -> None:
        super().__init__()
        self.cache_dir = Path(cache_dir)
        self.data = Path(data) if data else None
        self.epochs, self.max_steps, self.lr, self.rank, self.seed = epochs, max_steps, lr, rank, seed
        self.refusal_share = refusal_share
        self.out_dir = Path(out_dir) if out_dir else None
        self.on_step = on_step
        self.say = say or (lambda text: print(f"finetune: {text}", file=sys.stderr))
        self.progress = progress

    def compile(self, student: dspy.Module, *, trainset: Sequence[dspy.Example], **_: Any) -> dspy.Module:
        from groundqa.lm.finetune import records_from_chat, train_lora
        from groundqa.lm.gemma import model_path
        from groundqa.optimizers.finetune_data import (
            cap_chat_refusals,
            finetune_examples,
            is_refusal,
            serialise,
        )

        started = time.perf_counter()
        extra = read_chat_data(self.data) if self.data else []
        if not trainset and not extra:
            raise FinetuneError("the trainset is empty: there is nothing to fine-tune on")
        program = student.deepcopy()
        self.say(f"collecting the cited-answer prompts of {len(trainset)} train question(s) (gold-label teacher)")
        built = finetune_examples(program, list(trainset), source="trainset", seed=self.seed, max_refusal_share=None)
        chat = cap_chat_refusals([*built.data, *extra], self.refusal_share, self.seed)  # one cap, over all of it
        if not chat:
            raise FinetuneError(f"no successful trace: on these {len(trainset)} train question(s) the program never "
                                "asked the LM (it refused each one before synthesis), so there is nothing to learn")
        records = records_from_chat(chat)
        refusals = sum(map(is_refusal, chat))
        serialised = serialise(chat)
        options = {"epochs": self.epochs, "max_steps": self.max_steps, "lr": self.lr, "rank": self.rank,
                   "seed": self.seed}
        self.say(f"training a LoRA on {len(records)} example(s) ({len(records) - refusals} answers, {refusals} "
                 f"refusals; {len(built.data)} from the trainset, {len(extra)} from {self.data or 'no extra data'})")
        base = model_path(self.cache_dir)
        out_dir = self.out_dir or self.cache_dir / "adapters" / _digest(serialised, options)
        result = train_lora(records, out_dir, base_gguf=base, seed=self.seed, epochs=self.epochs,
                            max_steps=self.max_steps, lr=self.lr, rank=self.rank, progress=self._step_callback())
        program.adapter = Adapter(path=Path(result.adapter_path), sha256=result.sha256)
        program.finetune = FinetuneReport(
            records=len(records), answers=len(records) - refusals, refusals=refusals, from_trainset=len(built.data),
            from_data=len(extra), data_sha256=_sha256(serialised), manifest=built.manifest.model_dump(mode="json"),
            adapter=str(result.adapter_path), adapter_sha256=result.sha256, steps=result.steps,
            resumed_from=result.resumed_from or 0, losses=list(result.losses), train_seconds=round(result.seconds, 1),
            seconds=round(time.perf_counter() - started, 1), peak_rss_mb=result.peak_rss_mb,
            options={**options, "data": str(self.data) if self.data else None,
                     "refusal_share": self.refusal_share},
        )
        self.say(f"adapter {result.adapter_path} (sha256 {result.sha256[:12]}…, {result.steps} steps, final loss "
                 f"{_mean_tail(result.losses):.3f}, {result.seconds:.0f}s)")
        return program

    def _step_callback(self) -> Callable[[Any], None]:
        started = time.perf_counter()

        def step(report: Any) -> None:
            if self.on_step is not None:
                self.on_step(report)
            if self.progress and (report.step == 1 or report.step % 10 == 0 or report.step == report.total_steps):
                elapsed = time.perf_counter() - started
                left = elapsed / max(report.step, 1) * (report.total_steps - report.step)
                print(f"\rfinetune: step {report.step}/{report.total_steps}, loss {report.loss:.3f}, "
                      f"~{left / 60:.0f} min left", end="\n" if report.step == report.total_steps else "",
                      file=sys.stderr, flush=True)

        return step


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _digest(serialised: str, options: dict[str, Any]) -> str:
    return _sha256(serialised + json.dumps(options, sort_keys=True))[:16]


def _mean_tail(losses: Sequence[float], n: int = 20) -> float:
    tail = list(losses)[-n:]
    return sum(tail) / len(tail) if tail else float("nan")


__all__ = ["DEFAULT_REFUSAL_SHARE", "FinetuneEmbedded", "FinetuneError", "FinetuneReport", "read_chat_data"]
