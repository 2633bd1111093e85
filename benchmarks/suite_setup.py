"""Set-up shared by the peers suites (:mod:`benchmarks.quality`, :mod:`benchmarks.cache`).

Both suites read the same options, load the same questions, ingest them into a throw-away Chroma
store, load every model before the clock starts and empty the in-process memo caches between runs;
doing it in one place keeps their figures comparable.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.report import cpu_load
from groundqa.datasets.loaders import Document, Question
from groundqa.experiment_data import DatasetError, DatasetSpec, parse_dataset_spec, stratified_sample
from groundqa.store.chroma_store import CorpusStore

QUICK_QUESTIONS = 9  # one per question type
SQUAD_FULL, SQUAD_QUICK = 200, 6  # held-out articles only (datasets.squad.SQUAD2_TRAIN_ARTICLES are never evaluated)
SQUAD_TRAIN, SQUAD_TRAIN_QUICK = 360, 24  # from the training articles: what the compile may read (360: a 240/120 fit/check split)
COMPILE_MAX, COMPILE_BUDGET = 16, 3
CALIBRATION_TRIALS, CALIBRATION_TRIALS_QUICK = 60, 12
SUITE_DATA_SPECS = "'bundled' or 'squad[:PATH]'"

# DSPy's adapters hand an LM wrapper (MeteredLM, GuardedLM) OpenAI-style messages; forwarding them is
# not the caller's doing.
warnings.filterwarnings("ignore", message="Passing OpenAI-style message dictionaries", category=DeprecationWarning)


# -- output --------------------------------------------------------------------------------------
def say(message: str) -> None:
    """A progress line on stderr (stdout carries the tables)."""
    print(message, file=sys.stderr, flush=True)


def quiet_logs() -> None:
    """Silence DSPy's per-call warnings (truncated replies, adapter fallbacks, Refine retries) so the
    progress output stays readable; failures are counted by the suites themselves."""
    for name in ("dspy.clients.lm", "dspy.adapters.json_adapter", "dspy.predict.predict", "dspy.predict.refine",
                 "dspy.evaluate.evaluate"):
        logging.getLogger(name).setLevel(logging.ERROR)


def load_average_text() -> str:
    """The 1/5/15-minute load averages as ``a/b/c`` for a note (other work inflates latency)."""
    load = cpu_load()
    return "/".join(f"{x:.2f}" for x in load) if load else "?"


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    """A temporary folder for a suite's store and caches, deleted when the suite ends."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


@contextlib.contextmanager
def scratch_home(base: Any, prefix: str) -> Iterator[Path]:
    """A temporary project home whose model cache links ``base``'s (settings): no model is assembled again. When it
    ends, DSPy's, the embedding and the answer judge's caches are let go before their folder goes."""
    with scratch_dir(prefix) as home:
        (home / "cache").mkdir(parents=True)
        models = Path(base.cache_dir) / "models"
        models.mkdir(parents=True, exist_ok=True)
        (home / "cache" / "models").symlink_to(models.resolve(), target_is_directory=True)
        try:
            yield home
        finally:
            import dspy

            from groundqa.judges.answer_judge import set_disk_cache as set_judgment_cache
            from groundqa.store.embeddings import set_disk_cache

            dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
            set_disk_cache(None)
            set_judgment_cache(None)


# -- options and data ----------------------------------------------------------------------------
def suite_option(args: argparse.Namespace, name: str, env: str, default: Any) -> Any:
    """An option from ``args`` (:mod:`benchmarks.peers`' flags), else the environment, else ``default``.

    The registry runner has no suite-specific flags, so there the environment is the only way in.
    """
    value = getattr(args, name, None)
    if value is None:
        value = os.environ.get(env) or None
    return default if value is None else value


def parse_suite_data(data: str) -> DatasetSpec:
    """``--data`` through the project's dataset-spec parser, narrowed to what these suites load:
    ``bundled`` or ``squad[:PATH]`` (a questions JSONL needs a corpus, which the suites take no option for)."""
    try:
        dataset = parse_dataset_spec(data)
    except DatasetError as exc:
        raise DatasetError(f"unknown --data {data!r}: use {SUITE_DATA_SPECS}") from exc
    if dataset.kind == "jsonl":
        raise DatasetError(f"unknown --data {data!r}: use {SUITE_DATA_SPECS}")
    return dataset


def load_questions(data: str | DatasetSpec, quick: bool, seed: int, max_questions: int | None = None,
                   squad_eval: str = "heldout") -> tuple[list[Document], list[Question], list[Question], str | None]:
    """``(corpus, eval questions, train questions, skip reason)`` for ``bundled`` or ``squad[:PATH]``.

    Bundled: a stratified sample of the test split (:data:`QUICK_QUESTIONS` when quick, else all of it)
    and the whole train split. SQuAD: a balanced sample of the held-out articles for evaluation and one
    of the training articles for compiling (the project's fixed article split,
    :data:`groundqa.datasets.squad.SQUAD2_TRAIN_ARTICLES`); the corpus holds the paragraphs of both. A
    missing file is a skip reason, not an error. ``squad_eval="train"`` (development, not a held-out
    measurement) evaluates on other questions of the training articles instead, drawn with the compile's
    and split from them, never the same question twice: does a calibration carry over to new questions
    about the documents it was fitted on?
    """
    dataset = data if isinstance(data, DatasetSpec) else parse_suite_data(data)
    if dataset.kind == "bundled":
        from groundqa.datasets.bundled import load_bundled

        docs, test = load_bundled("test")
        _, train = load_bundled("train")
        limit = QUICK_QUESTIONS if quick else None
        if max_questions:
            limit = min(limit or max_questions, max_questions)
        return docs, stratified_sample(test, limit, seed), train, None
    if dataset.kind == "squad" and dataset.path is not None:
        from groundqa.datasets.squad import load_squad2

        path = dataset.path
        if not path.exists():
            return [], [], [], f"SQuAD 2.0 file not found at {path}; suite skipped"
        n_eval = SQUAD_QUICK if quick else SQUAD_FULL
        if max_questions:
            n_eval = min(n_eval, max_questions)
        n_train = SQUAD_TRAIN_QUICK if quick else SQUAD_TRAIN
        if squad_eval == "train":
            docs, drawn, _errors = load_squad2(path, sample=n_train + n_eval, seed=seed, articles="train")
            questions, train = split_off(drawn, n_eval, seed)
            return docs, questions, train, None
        if squad_eval != "heldout":
            raise DatasetError(f"unknown SQuAD evaluation set {squad_eval!r}: use 'heldout' or 'train'")
        docs, questions, _errors = load_squad2(path, sample=n_eval, seed=seed, articles="heldout")
        train_docs, train, _errors = load_squad2(path, sample=n_train, seed=seed, articles="train")
        return [*docs, *train_docs], questions, train, None
    raise DatasetError(f"unknown --data {data!r}: use {SUITE_DATA_SPECS}")


def split_off(questions: Sequence[Question], n: int, seed: int) -> tuple[list[Question], list[Question]]:
    """``(taken, rest)``: ``n`` of ``questions`` taken half answerable, half should-abstain (seeded)."""
    taken: list[Question] = []
    rest: list[Question] = []
    for flag, share in ((False, n - n // 2), (True, n // 2)):
        group = [q for q in questions if q.should_abstain is flag]
        random.Random(seed).shuffle(group)
        taken.extend(group[:share])
        rest.extend(group[share:])
    return taken, rest


@dataclass
class SuiteData:
    """The options every peers suite reads (``--quick``, ``--seed``, ``--data``) and the questions they give."""

    quick: bool
    seed: int
    data: str  # as given, for the result's config
    dataset: DatasetSpec
    docs: list[Document]
    questions: list[Question]
    train: list[Question]
    skip: str | None  # why the suite cannot run (no SQuAD file), else None
    squad_eval: str = "heldout"  # SQuAD: the held-out articles, or ("train") other training-article questions

    @property
    def description(self) -> str:
        """What the questions are, for a note: ``bundled test`` or ``SQuAD 2.0``."""
        if self.dataset.kind == "bundled":
            return "bundled test"
        return ("SQuAD 2.0 training-article (development: other questions of the articles the compile read, "
                "not held out)" if self.squad_eval == "train" else "SQuAD 2.0")

    def collection(self, prefix: str) -> str:
        """A Chroma collection name of the suite's own for this data (``peers-bundled``, ``cache-squad``)."""
        return f"{prefix}-{self.dataset.kind}"


def suite_data(args: argparse.Namespace) -> SuiteData:
    """Read the common options from ``args`` (or ``GROUNDQA_BENCH_DATA``) and load the questions."""
    quick = bool(getattr(args, "quick", False))
    seed = int(getattr(args, "seed", 13))
    data = str(suite_option(args, "data", "GROUNDQA_BENCH_DATA", "bundled"))
    dataset = parse_suite_data(data)
    squad_eval = str(suite_option(args, "squad_eval", "GROUNDQA_BENCH_SQUAD_EVAL", "heldout"))
    docs, questions, train, skip = load_questions(dataset, quick, seed, getattr(args, "max_questions", None),
                                                  squad_eval=squad_eval)
    return SuiteData(quick, seed, data, dataset, docs, questions, train, skip, squad_eval)


def skipped_result(title: str, config: dict[str, Any], reason: str) -> dict[str, Any]:
    """The result of a suite that could not run (``reason`` becomes its only note)."""
    return {"title": f"{title}: skipped", "config": config, "results": {}, "tables": [], "notes": [reason]}


# -- store, models and caches --------------------------------------------------------------------
def build_store(directory: Path, docs: Sequence[Document], settings: Any, name: str) -> CorpusStore:
    """A Chroma collection of its own under ``directory`` holding ``docs``."""
    from groundqa.programs.passage_reading import texts_embedded

    store = CorpusStore(directory, collection=name, reading=texts_embedded if settings.embed_sentences else None)
    report = store.ingest(list(docs), settings.chunk_size, settings.chunk_overlap)
    say(f"ingested {report.documents} documents -> {report.chunks_total} chunks in {report.seconds:.1f} s")
    return store


def warm_up(inner_lm: Any, store: CorpusStore, judge_settings: Any = None) -> float:
    """Load the LM, the embedding model, the offline judge and, given ``judge_settings`` (the suite's settings, on the
    embedded default, whose gates ask it), the tuned answer judge from that home's model cache before anything is timed
    (on a fresh home that writes its merged model once, about 15 s: :mod:`groundqa.lm.finetune.merge`); returns
    seconds."""
    from groundqa.judges import get_judge
    from groundqa.judges.answer_judge import configure_answer_judge, shared_answer_judge

    started = time.perf_counter()
    with contextlib.suppress(Exception):
        inner_lm(messages=[{"role": "user", "content": "Warm-up."}], max_tokens=4)
    store.query("warm-up", 1)
    get_judge("offline").judge("The harbor has lights.", ["The harbor has twelve lights."])
    if judge_settings is not None and str(judge_settings.lm).startswith("embedded"):
        configure_answer_judge(judge_settings.cache_dir, judge_settings.lm_threads, judge_settings.judge_merged)
        shared_answer_judge()
    return time.perf_counter() - started


class IngestedEmbeddings:
    """The embedding disk cache as a user's ingestion leaves it (the chunks' vectors and, with ``embed_sentences``,
    each chunk's sentences as questions read them), handed to every timed program afresh.

    A suite that runs with the caches off still ingests as the default home does: :meth:`start` points the embedding
    cache at a working file before the store is built, :meth:`freeze` keeps a copy once ingestion is done, and
    :meth:`fresh` gives each program its own copy of that: it reads what ingestion embedded, and nothing another
    program, a compile or the scoring embedded."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.frozen = directory / "embeddings-ingested.sqlite"
        self.copies = 0

    def start(self) -> None:
        from groundqa.store.embeddings import set_disk_cache

        set_disk_cache(self.directory / "embeddings-0.sqlite")

    def freeze(self) -> None:
        _copy_sqlite(self.directory / "embeddings-0.sqlite", self.frozen)

    def fresh(self) -> None:
        from groundqa.store.embeddings import set_disk_cache

        self.copies += 1
        copy = self.directory / f"embeddings-{self.copies}.sqlite"
        _copy_sqlite(self.frozen, copy)
        set_disk_cache(copy)

    @staticmethod
    def stop() -> None:
        from groundqa.store.embeddings import set_disk_cache

        set_disk_cache(None)


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite file in WAL mode (the backup API), whoever else has it open."""
    import sqlite3

    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def drop_process_caches() -> None:
    """Empty the in-process memo caches (MiniLM embeddings, offline-judge vectors and verdicts, the answer
    judge's margins, parsed premises, lexical features) so every program starts cold; the models themselves stay loaded. Without
    this, a program evaluated later would reuse embeddings computed for an earlier one (and for its scoring)."""
    from groundqa.judges import clear_caches
    from groundqa.store import embeddings

    embeddings.get_embedder().clear_memory()
    clear_caches()


def compile_quick(student: Any, train: Sequence[Question], settings: Any, seed: int,
                  max_questions: int = COMPILE_MAX, budget: int = COMPILE_BUDGET,
                  trials: int = CALIBRATION_TRIALS, calibrate_on: int | None = None,
                  group: Any = None, fixed: tuple[tuple[str, ...], str] = ((), "")) -> tuple[Any, dict[str, Any]]:
    """BootstrapFewShot with the extractive teacher on at most ``max_questions`` answerable train questions,
    then :class:`~groundqa.optimizers.calibrate.CalibrateGates` on the whole train split (``trials`` trials;
    its winner checked on a held-back third of train, grouped by ``group`` (default: gold documents); at
    most ``calibrate_on`` questions, stratified; ``fixed``: gates left alone, and why, as
    :func:`groundqa.compile.judge_read` gives them). Nothing here reads the questions it is evaluated on.

    Quick enough to run inside a benchmark, so the compiled program can be measured without a
    separate ``groundqa optimize`` run.
    """
    from groundqa.compile import CompileOptions, demo_counts, make_optimizer, optimizer_trainset
    from groundqa.datasets.examples import to_example
    from groundqa.metrics.composite import make_grounding_metric
    from groundqa.optimizers.calibrate import CalibrateGates

    options = CompileOptions(optimizer="bootstrap", teacher_lm="extractive", budget=budget, seed=seed,
                             mlflow=False, progress=False)
    answerable = [q for q in train if not q.should_abstain]
    chosen = stratified_sample(answerable, max_questions, seed)
    trainset = optimizer_trainset(options, [to_example(q) for q in chosen])
    metric = make_grounding_metric("offline", pass_threshold=options.metric_threshold)
    optimizer = make_optimizer(options, metric, settings)
    started = time.perf_counter()
    compiled = optimizer.compile(student, trainset=trainset)
    bootstrap_s = time.perf_counter() - started
    calibrate = CalibrateGates(metric=metric, n_trials=trials, seed=seed, progress=False, say=say, group=group,
                               fixed=fixed[0], fixed_reason=fixed[1])
    calibration_set = stratified_sample(list(train), calibrate_on, seed)
    compiled = calibrate.compile(compiled, trainset=[to_example(q) for q in calibration_set])
    report = compiled.calibration
    info = {"how": "BootstrapFewShot (teacher 'extractive') + CalibrateGates", "train_questions": len(trainset),
            "budget": budget, "demos": demo_counts(compiled), "bootstrap_seconds": round(bootstrap_s, 2),
            "calibration": {"kept": report.kept, "trials": len(report.trials), "fit": [report.fit_start, report.fit_best],
                            "check": [report.check_start, report.check_best], "n_fit": report.n_fit,
                            "n_check": report.n_check, "gates": compiled.gates.changed(), "pruned": report.pruned,
                            "reasons": report.reasons,
                            "seconds": report.seconds},
            "seconds": round(time.perf_counter() - started, 2)}
    return compiled, info
