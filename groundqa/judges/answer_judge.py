"""The tuned answer judge: does this passage sentence answer the question?

The rules of :mod:`groundqa.programs.answerability` accept a sentence that holds a value of the asked type and
the question's words; on a corpus they were not written on they also accept topical near misses (the museum's
opening year for "What is the museum's annual budget?"). The embedded Gemma, tuned with a LoRA to answer
" yes" or " no" after ``{title}. {sentence before} {sentence}\\nQuestion: {q}\\nDoes the text answer the
question? Answer:``, reads the sentence as a whole. Its **margin** logit(" yes") - logit(" no") is the
judgment; the program's ``answer_judge`` gate decides with it (:class:`~groundqa.programs.gates.Gates`).

The shipped adapter (``groundqa/data/answer-judge.gguf``, 7.6 MB, pinned by its sha256 and checked at load) was
trained by ``scripts/judge_adapter.py`` on the program's own candidates on development data only: bundled train,
the workbench corpora except nine kept for validation, and SQuAD 2.0's training articles (docs/BENCHMARKS.md,
session 20). It runs in llama.cpp on the embedded model's own GGUF: one judgment of ~100 tokens costs about
0.2 s on 2 cores, and the last ``CACHE_SIZE`` judgments are cached for the process (a server runs for weeks).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

PROMPT = "{title}. {context}\nQuestion: {question}\nDoes the text answer the question? Answer:"
SHIPPED = Path(__file__).parents[1] / "data" / "answer-judge.gguf"
CACHE_SIZE = 65_536  # judgments kept per process, least recently used dropped first (some 30 MB of prompts)
SHIPPED_SHA256 = "47600771d01d0bd46c08a29f827495e3b2a1ccda5fa35e20b6237105acd066ab"


def judge_prompt(title: str, before: str, sentence: str, question: str) -> str:
    """The judge's prompt; training (``scripts/judge_adapter.py``) and inference both build it here."""
    return PROMPT.format(title=title, context=f"{before} {sentence}".strip(), question=question.strip())


class AnswerJudge:
    """A LoRA adapter on the embedded model in llama.cpp: :meth:`margin` = logit(" yes") - logit(" no")."""

    def __init__(self, adapter: Path | None, base_gguf: Path, threads: int | None = None,
                 cache_size: int = CACHE_SIZE) -> None:
        from llama_cpp import Llama

        from groundqa.lm.embedded import _quiet_lora_buffer_warnings

        _quiet_lora_buffer_warnings()
        # threads as the embedded LM's engine takes them (``Settings.lm_threads``; all cores by default)
        self.llm = Llama(model_path=str(base_gguf), lora_path=str(adapter) if adapter else None, n_ctx=1024,
                         n_threads=threads or max(1, os.cpu_count() or 1), verbose=False)
        self.yes, self.no = (self.llm.tokenize(f" {w}".encode(), add_bos=False, special=False)[0] for w in ("yes", "no"))
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, float] = OrderedDict()
        self.cache_size = cache_size

    def margin(self, title: str, before: str, sentence: str, question: str) -> float:
        import llama_cpp
        import numpy as np

        prompt = judge_prompt(title, before, sentence, question)
        with self._lock:
            if prompt in self._cache:
                self._cache.move_to_end(prompt)
                return self._cache[prompt]
            ids = self.llm.tokenize(prompt.encode(), add_bos=True, special=False)[-(self.llm.n_ctx() - 1):]
            self.llm.reset()
            self.llm.eval(ids)
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.llm.ctx, -1), shape=(self.llm.n_vocab(),))
            value = self._cache[prompt] = round(float(logits[self.yes] - logits[self.no]), 4)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return value


@dataclass(frozen=True)
class _Setup:
    """Where the embedded model's GGUF lives and how many threads run it, as the application configured the LM."""

    cache_dir: Path
    threads: int | None = None


_lock = threading.Lock()
_setup: _Setup | None = None
_shared: dict[Path, AnswerJudge] = {}  # adapter -> judge


def configure_answer_judge(cache_dir: Path, threads: int | None = None) -> _Setup:
    """Load judges from the embedded model of ``cache_dir`` (``Settings.cache_dir``) with ``threads``
    (``Settings.lm_threads``): the application calls it when it builds a program, so a judge runs the very file the
    LM does (``--home``, a config file) and never assembles another. A judge already loaded stays: its model file
    is the same bytes whichever home holds it (its sha256 is pinned)."""
    global _setup
    with _lock:
        _setup = _Setup(Path(cache_dir), threads)
        return _setup


def shared_answer_judge(adapter: Path | None = None) -> AnswerJudge:
    """The process-wide judge for ``adapter`` (the shipped one by default), checked before its first load: a
    missing, damaged or foreign adapter is a one-line :class:`~groundqa.lm.errors.LMBackendError`. Its base model
    is resolved (and its sha256 checked) once, where :func:`configure_answer_judge` said, else under the default
    settings' home."""
    from groundqa.lm.finetune.adapter import verify_adapter
    from groundqa.lm.gemma import model_path

    setup = _setup
    if setup is None:
        from groundqa.config import Settings

        settings = Settings()
        setup = configure_answer_judge(settings.cache_dir, settings.lm_threads)
    path = Path(adapter) if adapter is not None else SHIPPED
    with _lock:
        if path not in _shared:
            base = model_path(setup.cache_dir)
            verify_adapter(path, SHIPPED_SHA256 if adapter is None else None, base)
            _shared[path] = AnswerJudge(path, base, setup.threads)
        return _shared[path]
