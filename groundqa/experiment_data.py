"""Datasets for compiling and evaluating: the bundled set, SQuAD 2.0, or your own JSONL files."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from groundqa.datasets.bundled import load_bundled
from groundqa.datasets.loaders import Document, Question, load_corpus, load_questions_jsonl
from groundqa.datasets.squad import default_squad2_path, load_squad2
from groundqa.errors import GroundQAError

DATASET_SPECS = "'bundled', 'squad[:PATH]' or a questions JSONL file"


class DatasetError(GroundQAError, ValueError):
    """The dataset cannot be used as asked; the message says why."""


@dataclass(frozen=True)
class DatasetSpec:
    """A parsed ``bundled | squad[:PATH] | QUESTIONS.jsonl`` (see :func:`parse_dataset_spec`)."""

    kind: Literal["bundled", "squad", "jsonl"]
    path: Path | None = None  # the SQuAD 2.0 file or the questions JSONL; None for bundled

    @property
    def name(self) -> str:
        """``bundled``, ``squad2`` or the questions JSONL's stem (names experiments and collections)."""
        if self.kind == "jsonl" and self.path is not None:
            return self.path.stem
        return "squad2" if self.kind == "squad" else "bundled"


def parse_dataset_spec(spec: str) -> DatasetSpec:
    """The one parser of dataset specs: ``bundled``, ``squad`` (the default SQuAD 2.0 dev file),
    ``squad:PATH`` or an existing questions JSONL file. Whether a SQuAD file exists is left to the
    caller (a benchmark skips, a compile fails); an unknown spec raises :class:`DatasetError`."""
    spec = str(spec).strip()
    if spec == "bundled":
        return DatasetSpec("bundled")
    if spec == "squad" or spec.startswith("squad:"):
        raw = spec.split(":", 1)[1] if ":" in spec else ""
        if spec.startswith("squad:") and not raw.strip():
            raise DatasetError("'squad:' needs a path, e.g. squad:dev-v2.0.json (or just 'squad')")
        return DatasetSpec("squad", Path(raw) if raw else default_squad2_path())
    if not spec:
        raise DatasetError(f"no dataset given: use {DATASET_SPECS}")
    path = Path(spec)
    if not path.exists():
        raise DatasetError(f"unknown dataset {spec!r}: use {DATASET_SPECS}")
    return DatasetSpec("jsonl", path)


@dataclass
class ExperimentData:
    """A corpus with train and dev questions, and a digest that identifies them."""

    name: str
    corpus: list[Document]
    train: list[Question]
    dev: list[Question]

    @property
    def digest(self) -> str:
        payload = json.dumps(
            [[d.model_dump() for d in self.corpus], [q.model_dump() for q in self.train],
             [q.model_dump() for q in self.dev]], sort_keys=True, ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def collection(self) -> str:
        """A Chroma collection of its own, so experiments never mix with the user's corpus."""
        return f"gqa-{self.name}-{self.digest[:8]}"


def _split(questions: list[Question], seed: int, train_share: float = 0.5) -> tuple[list[Question], list[Question]]:
    if any(getattr(q, "split", None) for q in questions):
        train = [q for q in questions if getattr(q, "split", None) == "train"]
        dev = [q for q in questions if getattr(q, "split", None) in ("dev", "validation", "val")]
        return train, dev
    shuffled = list(questions)
    random.Random(seed).shuffle(shuffled)
    cut = int(len(shuffled) * train_share)
    return shuffled[:cut], shuffled[cut:]


def stratified_sample(items: list[Question], limit: int | None, seed: int) -> list[Question]:
    """At most ``limit`` of ``items``, drawn round-robin across question types so that every type is
    represented (each type's pool shuffled with ``seed``), returned in their original order.

    ``items`` itself comes back when ``limit`` is None or not below ``len(items)``.
    """
    if limit is None or len(items) <= limit:
        return items
    by_type: dict[str, list[Question]] = {}
    for q in items:
        by_type.setdefault(q.type, []).append(q)
    rng = random.Random(seed)
    for group in by_type.values():
        rng.shuffle(group)
    chosen: list[Question] = []
    while len(chosen) < limit:
        for group in by_type.values():
            if group and len(chosen) < limit:
                chosen.append(group.pop())
    order = {q.id: i for i, q in enumerate(items)}
    return sorted(chosen, key=lambda q: order[q.id])


def load_experiment_data(spec: str | DatasetSpec, corpus: str | Path | None = None, seed: int = 0,
                         sample: int = 200, max_train: int | None = None,
                         max_dev: int | None = None) -> ExperimentData:
    """``bundled`` | ``squad`` | ``squad:PATH`` | ``QUESTIONS.jsonl`` (with ``corpus``)."""
    dataset = spec if isinstance(spec, DatasetSpec) else parse_dataset_spec(spec)
    if dataset.kind == "bundled":
        docs, train = load_bundled("train")
        _, dev = load_bundled("dev")
    elif dataset.kind == "squad":
        # the project's article split: train from the training articles, dev from the held-out ones
        path = require_squad_file(dataset)
        docs, train, _errors = load_squad2(path, sample=sample, seed=seed, articles="train")
        dev_docs, dev, _errors = load_squad2(path, sample=sample, seed=seed, articles="heldout")
        docs = [*docs, *dev_docs]
    else:
        if corpus is None:
            raise DatasetError("a questions JSONL dataset needs --corpus (a corpus JSONL or a folder of text files)")
        loaded = load_questions_jsonl(dataset.path)
        if loaded.errors:
            raise DatasetError("; ".join(str(e) for e in loaded.errors[:5]))
        corpus_report = load_corpus(corpus)
        if corpus_report.errors and not corpus_report.items:
            raise DatasetError("; ".join(str(e) for e in corpus_report.errors[:5]))
        docs = corpus_report.items
        train, dev = _split(loaded.items, seed)
    return ExperimentData(dataset.name, docs, stratified_sample(train, max_train, seed),
                          stratified_sample(dev, max_dev, seed))


def require_squad_file(dataset: DatasetSpec) -> Path:
    """The SQuAD 2.0 file of a ``squad`` spec; DatasetError when it is not there."""
    path = dataset.path or default_squad2_path()
    if not path.exists():
        raise DatasetError(f"SQuAD 2.0 file not found: {path}")
    return path


def check_trainable(data: ExperimentData, minimum: int = 4) -> None:
    """Refuse a train split that cannot teach anything; name what is missing."""
    if not data.train:
        raise DatasetError(f"dataset {data.name!r} has an empty train split")
    if len(data.train) < minimum:
        raise DatasetError(f"dataset {data.name!r} has {len(data.train)} train question(s); at least {minimum} needed")
    if not data.dev:
        raise DatasetError(f"dataset {data.name!r} has an empty dev split")
    if not any(q.should_abstain for q in data.train + data.dev):
        raise DatasetError(
            f"dataset {data.name!r} has no should-abstain questions: the grounding metric would never reward "
            "abstaining, so compiled programs would learn to answer everything"
        )
