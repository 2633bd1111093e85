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
session 20). It runs in llama.cpp on a copy of the embedded model with the adapter merged into its weights
(:mod:`groundqa.lm.finetune.merge`; ``Settings.judge_merged``, else on the model's own GGUF with the adapter applied at
run time, about 1.3 times as long): one judgment of ~75 tokens costs about 0.15–0.18 s on 2 cores, and the last
``CACHE_SIZE`` judgments are cached for the process (a server runs for weeks).

A judgment is a pure function of the prompt, the adapter, the base model and llama.cpp, so it is also kept on disk
once :func:`set_disk_cache` names a file (``<home>/cache/answer-judge.sqlite``; the app turns it on with the other
caches, ``cache = false`` turns it off): a new process (an evaluation run again, a calibration, a restarted server)
reads what an earlier one judged instead of judging it again (``python -m benchmarks run --suite cache``). The key
holds the adapter's sha256, the base model file's name and size and llama.cpp's version and build (its instruction
sets), so another adapter, or another machine's build, never reads a margin it did not give. Benchmarks that time the
judge run with the cache off.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import sqlite3
import struct
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundqa.store.disk_kv import CacheFile, DiskKV

PROMPT = "{title}. {context}\nQuestion: {question}\nDoes the text answer the question? Answer:"
SHIPPED = Path(__file__).parents[1] / "data" / "answer-judge.gguf"
CACHE_SIZE = 65_536  # judgments kept per process, least recently used dropped first (some 30 MB of prompts)
SHIPPED_SHA256 = "47600771d01d0bd46c08a29f827495e3b2a1ccda5fa35e20b6237105acd066ab"
TRAINED_ON = {"bundled": "the bundled train split", "squad": "SQuAD 2.0's six training articles"}
"""Dataset kinds (:func:`groundqa.experiment_data.parse_dataset_spec`) whose train questions the shipped judge was
trained on, and what of them it read. It also read most workbench development corpora; given to a compile as plain
questions files, those are not recognised here."""
CACHE_FILE = CacheFile("answer-judge")
set_disk_cache = CACHE_FILE.set  # keep judgments in this SQLite file too (None: memory only); loads nothing


def judge_prompt(title: str, before: str, sentence: str, question: str) -> str:
    """The judge's prompt; training (``scripts/judge_adapter.py``) and inference both build it here."""
    return PROMPT.format(title=title, context=f"{before} {sentence}".strip(), question=question.strip())


class AnswerJudge:
    """A LoRA adapter on the embedded model in llama.cpp: :meth:`margin` = logit(" yes") - logit(" no")."""

    def __init__(self, adapter: Path | None, base_gguf: Path, threads: int | None = None,
                 cache_size: int = CACHE_SIZE, identity: str | None = None, merged: Path | None = None) -> None:
        """``merged``: ``adapter`` already merged into ``base_gguf``'s weights
        (:func:`~groundqa.lm.finetune.merge.merged_model`), which llama.cpp then runs without applying the adapter,
        in about a quarter less time. ``identity``: what the margins depend on besides the prompt, the disk cache's key prefix (by
        default the adapter's sha256, whether and how it is merged, the base model's name and size, and llama.cpp's
        version and the instruction sets it was built for, :func:`~groundqa.lm.embedded.llama_cpp_build`: another
        build's margins differ a little)."""
        from llama_cpp import Llama

        from groundqa.lm.embedded import _quiet_lora_buffer_warnings, llama_cpp_build

        _quiet_lora_buffer_warnings()
        lora = None if merged is not None or adapter is None else str(adapter)
        # threads as the embedded LM's engine takes them (``Settings.lm_threads``; all cores by default)
        self.llm = Llama(model_path=str(merged or base_gguf), lora_path=lora, n_ctx=1024,
                         n_threads=threads or max(1, os.cpu_count() or 1), verbose=False)
        self.merged = merged is not None
        # freed while llama_cpp is still whole: at interpreter exit its __del__ finds the library's functions gone
        # and prints "Exception ignored ... TypeError" on stderr (a weak reference: a judge let go is freed as before)
        atexit.register(_close_at_exit, weakref.ref(self.llm))
        self.yes, self.no = (self.llm.tokenize(f" {w}".encode(), add_bos=False, special=False)[0] for w in ("yes", "no"))
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, float] = OrderedDict()
        self.cache_size = cache_size
        self.identity = identity or _identity(adapter, base_gguf, llama_cpp_build(), self.merged)
        self._disk: DiskKV | None = None
        self.stats = {"judged": 0, "from_disk": 0}
        """Judgments the model made, and those read from the disk cache, since the judge was loaded."""

    def margin(self, title: str, before: str, sentence: str, question: str) -> float:
        prompt = judge_prompt(title, before, sentence, question)
        with self._lock:
            if prompt in self._cache:
                self._cache.move_to_end(prompt)
                return self._cache[prompt]
            disk = self._disk_cache()
            key = hashlib.sha256(f"{self.identity}\0{prompt}".encode("utf-8", "surrogatepass")).hexdigest()[:40]
            stored = self._disk_read(disk, key)
            if stored is not None:
                self.stats["from_disk"] += 1
                return self._remember(prompt, stored)
            self.stats["judged"] += 1
            value = self._remember(prompt, round(self.evaluate(prompt), 4))
            if disk is not None:
                try:
                    disk.put_many({key: struct.pack("<d", value)})
                except sqlite3.Error as exc:
                    self._disk_failed(exc)
            return value

    def evaluate(self, prompt: str) -> float:
        """The model's margin for a built prompt (:func:`judge_prompt`), evaluated now: no cache is read or written,
        and no lock is taken (:meth:`margin` holds it; the ``judge`` benchmark suite times this alone)."""
        import llama_cpp
        import numpy as np

        ids = self.llm.tokenize(prompt.encode(), add_bos=True, special=False)[-(self.llm.n_ctx() - 1):]
        self.llm.reset()
        self.llm.eval(ids)
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.llm.ctx, -1), shape=(self.llm.n_vocab(),))
        return float(logits[self.yes] - logits[self.no])

    def clear_memory(self) -> None:
        """Empty the process cache (the disk cache, if any, keeps its judgments)."""
        with self._lock:
            self._cache.clear()

    def _remember(self, prompt: str, value: float) -> float:
        self._cache[prompt] = value
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return value

    def _disk_cache(self) -> DiskKV | None:
        """The disk cache :func:`set_disk_cache` names, opened on first use; under ``self._lock``."""
        path = CACHE_FILE.path
        if path is None:
            return None
        if self._disk is None or self._disk.path != path:
            try:
                self._disk = DiskKV(path, "margins", "margin")
            except sqlite3.Error as exc:
                self._disk_failed(exc)
        return self._disk

    def _disk_read(self, disk: DiskKV | None, key: str) -> float | None:
        if disk is None:
            return None
        try:
            blob = disk.get_many([key]).get(key)
        except sqlite3.Error as exc:
            self._disk_failed(exc)
            return None
        return None if blob is None else struct.unpack("<d", blob)[0]

    def _disk_failed(self, exc: Exception) -> None:
        CACHE_FILE.switch_off(exc)
        self._disk = None


def _close_at_exit(llm: weakref.ref[Any]) -> None:
    engine = llm()
    if engine is not None:
        engine.close()


def _identity(adapter: Path | None, base_gguf: Path, engine: str, merged: bool = False) -> str:
    from groundqa.lm.finetune.adapter import adapter_sha256
    from groundqa.lm.finetune.merge import MERGE_FORMAT

    tuned = adapter_sha256(adapter) if adapter is not None else "base"
    if merged and adapter is not None:
        tuned += f" merged {MERGE_FORMAT}"
    return f"{tuned}:{Path(base_gguf).name}:{Path(base_gguf).stat().st_size}:llama.cpp {engine}"


@dataclass(frozen=True)
class _Setup:
    """Where the embedded model's GGUF lives and how many threads run it, as the application configured the LM."""

    cache_dir: Path
    threads: int | None = None
    merged: bool = True
    """Run the judge on a copy of the model with its adapter merged into the weights (``Settings.judge_merged``)."""


_lock = threading.Lock()
_setup: _Setup | None = None
_shared: dict[Path, AnswerJudge] = {}  # adapter -> judge


def configure_answer_judge(cache_dir: Path, threads: int | None = None, merged: bool = True) -> _Setup:
    """Load judges from the embedded model of ``cache_dir`` (``Settings.cache_dir``) with ``threads``
    (``Settings.lm_threads``), the adapter merged into a copy of the model there or not (``Settings.judge_merged``):
    the application calls it when it builds a program, so a judge runs the very file the LM does (``--home``, a
    config file) and never assembles another. A judge already loaded stays: its model file is the same bytes
    whichever home holds it (its sha256 is pinned)."""
    global _setup
    with _lock:
        _setup = _Setup(Path(cache_dir), threads, merged)
        return _setup


def shared_answer_judge(adapter: Path | None = None) -> AnswerJudge:
    """The process-wide judge for ``adapter`` (the shipped one by default), checked before its first load: a
    missing, damaged or foreign adapter is a one-line :class:`~groundqa.lm.errors.LMBackendError`. Its base model
    is resolved (and its sha256 checked) once, where :func:`configure_answer_judge` said, else under the default
    settings' home."""
    from groundqa.lm.finetune.adapter import verify_adapter
    from groundqa.lm.finetune.merge import merged_model
    from groundqa.lm.gemma import model_path

    setup = _setup
    if setup is None:
        from groundqa.config import Settings

        settings = Settings()
        setup = configure_answer_judge(settings.cache_dir, settings.lm_threads, settings.judge_merged)
    path = Path(adapter) if adapter is not None else SHIPPED
    with _lock:
        if path not in _shared:
            base = model_path(setup.cache_dir)
            info = verify_adapter(path, SHIPPED_SHA256 if adapter is None else None, base)
            merged = merged_model(base, info, setup.cache_dir / "merged") if setup.merged else None
            _shared[path] = AnswerJudge(path, base, setup.threads, merged=merged)
        return _shared[path]


def loaded_judges() -> list[str]:
    """How each judge loaded in this process runs: its adapter's file name and whether the adapter is merged into the
    model's weights (:mod:`groundqa.lm.finetune.merge`) or applied by llama.cpp at run time (benchmarks record it)."""
    from groundqa.lm.finetune.merge import MERGE_FORMAT

    with _lock:
        judges = dict(_shared)
    return [f"{path.name} {'merged, ' + MERGE_FORMAT if judge.merged else 'applied at run time'}"
            for path, judge in judges.items()]


def clear_memory_caches() -> None:
    """Empty the process cache of every loaded judge (their disk cache keeps its judgments), so that a benchmark
    can start a program cold."""
    with _lock:
        judges = list(_shared.values())
    for judge in judges:
        judge.clear_memory()

