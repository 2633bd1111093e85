"""Training data for ``--optimizer finetune``: what the embedded LM should say to GroundedQA's
cited-answer prompts.

The program is run over training questions exactly as deployed with the embedded LM
(``QAConfig.for_lm("embedded")``: premise checks on, heuristic planner, offline judges), with
:class:`~groundqa.programs.extractive_teacher.GoldTeacherLM` standing in for the LM. DSPy's own
trace (``dspy.context(trace=[])``) gives, for the synthesizer's predictor, the inputs it was called
with and the teacher's reply; the adapter's ``format_finetune_data`` turns each into the chat
messages the LM was sent plus the assistant reply (what ``dspy.BootstrapFinetune`` builds, and
what :func:`groundqa.lm.finetune.records_from_chat` reads). So the data holds only prompts the LM
will really see: a question the program abstains on before asking the LM (a failed premise, too few
passages above the evidence floor) yields no record.

Only training data is read (:func:`training_questions`): the bundled *train* split, and SQuAD 2.0
questions and paragraphs of :data:`~groundqa.datasets.squad.SQUAD2_TRAIN_ARTICLES`. Anything else
raises ``ValueError``; the held-out splits stay untouched for evaluation.

Refusals (``NOT IN SOURCES``) are capped to a share of each source's records, chosen with the seed,
so that the LM does not learn that refusing is the safe bet.

Run ``python -m groundqa.optimizers.finetune_data --out FILE.jsonl --source bundled,squad --limit N``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import dspy
from pydantic import BaseModel, Field

from groundqa.config import Settings
from groundqa.datasets.loaders import Document, Question
from groundqa.programs.extractive_teacher import GoldLabel, GoldTeacherLM, question_key
from groundqa.programs.gates import Gates
from groundqa.signatures.qa import NOT_IN_SOURCES, CitedAnswer

if TYPE_CHECKING:
    from groundqa.programs.grounded_qa import GroundedQA
    from groundqa.store.chroma_store import CorpusStore

SOURCES: tuple[str, ...] = ("bundled", "squad")
"""The data sources training data may come from (each restricted to its training part)."""
EVALUATION_SPLITS: dict[str, tuple[str, ...]] = {"bundled": ("dev", "test"), "squad": ("heldout", "all")}
DEFAULT_MAX_REFUSAL_SHARE = 0.5
_DEFAULTS = Settings()
"""The store and program as `groundqa ask` builds them by default (chunking, k)."""

Target = Literal["answer", "refusal"]
Progress = Callable[[str], None]


# -- training questions ---------------------------------------------------------------------------
@dataclass
class TrainingQuestions:
    """One source's training questions (as ``dspy.Example``) and the corpus they are asked over."""

    source: str
    documents: list[Document]
    examples: list[dspy.Example]
    description: str = ""


def _parse_source(source: str) -> tuple[str, str]:
    """``bundled`` | ``bundled:train`` | ``squad`` | ``squad:train`` -> (name, split); ``ValueError``
    for an unknown source and for an evaluation split (which no training may read)."""
    name, _, split = str(source).strip().partition(":")
    split = split or "train"
    if name not in SOURCES:
        raise ValueError(f"unknown training source {source!r}: use one of {', '.join(SOURCES)}")
    if split in EVALUATION_SPLITS[name]:
        raise ValueError(f"{source!r} is an evaluation split: fine-tuning data may come only from the "
                         f"training part of {name!r}")
    if split != "train":
        raise ValueError(f"unknown split {split!r} of {name!r}: only 'train' may be used for fine-tuning")
    return name, split


def _article_names(names: Iterable[str]) -> set[str]:
    """SQuAD article titles as the loader stores them on documents and questions (``_`` -> space)."""
    return {str(n).replace("_", " ") for n in names}


def check_squad_training_only(documents: Sequence[Document], questions: Sequence[Question]) -> None:
    """Raise ``ValueError`` unless every document and question comes from a SQuAD training article
    (:data:`~groundqa.datasets.squad.SQUAD2_TRAIN_ARTICLES`): a held-out article leaking into the
    fine-tuning data would make every later SQuAD evaluation of the tuned LM meaningless."""
    from groundqa.datasets.squad import SQUAD2_TRAIN_ARTICLES

    allowed = _article_names(SQUAD2_TRAIN_ARTICLES)
    bad_docs = sorted({d.title for d in documents if d.title not in allowed})
    bad_questions = sorted({str(getattr(q, "article", None)) for q in questions
                            if getattr(q, "article", None) not in allowed})
    if bad_docs or bad_questions:
        raise ValueError("SQuAD fine-tuning data may only use the training articles "
                         f"({', '.join(sorted(SQUAD2_TRAIN_ARTICLES))}); got documents of {bad_docs or 'none'} "
                         f"and questions of {bad_questions or 'none'}")


def check_bundled_training_only(questions: Sequence[Question]) -> None:
    """Raise ``ValueError`` unless every question is one of the bundled train split (by id)."""
    from groundqa.datasets.bundled import load_bundled

    _, train = load_bundled("train")
    allowed = {q.id for q in train}
    outside = sorted(q.id for q in questions if q.id not in allowed)
    if outside:
        raise ValueError(f"bundled fine-tuning data may only use the train split; not in it: {outside[:5]}")


def _bundled_questions(seed: int, limit: int | None) -> TrainingQuestions:
    from groundqa.datasets.bundled import load_bundled
    from groundqa.datasets.examples import to_examples
    from groundqa.experiment_data import stratified_sample

    docs, train = load_bundled("train")  # never dev or test: not even to compare with them
    chosen = stratified_sample(train, limit, seed)
    check_bundled_training_only(chosen)
    return TrainingQuestions("bundled", docs, to_examples(chosen), "bundled train split")


def _squad_questions(seed: int, limit: int | None, path: str | Path | None) -> TrainingQuestions:
    from groundqa.datasets.examples import to_examples
    from groundqa.datasets.squad import SQUAD2_TRAIN_ARTICLES, default_squad2_path, load_squad2

    path = Path(path) if path is not None else default_squad2_path()
    if not path.exists():
        raise FileNotFoundError(f"SQuAD 2.0 file not found: {path}")
    # the whole of each chosen training article is the corpus: its other paragraphs are the distractors
    docs, questions, _errors = load_squad2(path, sample=limit, seed=seed, full_corpus=True, articles="train")
    check_squad_training_only(docs, questions)
    articles = ", ".join(sorted(SQUAD2_TRAIN_ARTICLES))
    return TrainingQuestions("squad", docs, to_examples(questions), f"SQuAD 2.0 training articles ({articles})")


def training_questions(source: str, seed: int = 0, limit: int | None = None,
                       squad_path: str | Path | None = None) -> TrainingQuestions:
    """At most ``limit`` training questions of ``source`` and their corpus, from allowed data only.

    ``bundled`` (or ``bundled:train``): a stratified sample of the bundled train split over the bundled
    corpus; ``squad`` (or ``squad:train``): a balanced sample of SQuAD 2.0 questions of the training
    articles over every paragraph of those articles (``squad_path``: the SQuAD 2.0 dev file, default
    ``../shared/data/squad2/dev-v2.0.json``). An evaluation split (``bundled:dev``, ``bundled:test``,
    ``squad:heldout``) or anything else raises ``ValueError``."""
    name, _split = _parse_source(source)
    if name == "bundled":
        return _bundled_questions(seed, limit)
    return _squad_questions(seed, limit, squad_path)


# -- capturing the cited-answer calls --------------------------------------------------------------
@dataclass(frozen=True)
class FinetuneRecord:
    """One chat-format example and where it came from."""

    source: str
    question_id: str
    target: Target
    reason: str  # the gold teacher's decision: answer, refusal:abstain, refusal:absent
    data: dict[str, list[dict[str, str]]]  # {"messages": [system, user, assistant]}


@dataclass
class Collection:
    """What running one source's questions gave: the records and why other questions gave none."""

    source: str
    questions: int = 0
    records: list[FinetuneRecord] = field(default_factory=list)
    no_record: Counter[str] = field(default_factory=Counter)
    other_lm_calls: int = 0
    """LM calls that were not the synthesizer's: with the embedded config there are none; any would
    have gone to the real LM in deployment, so they are counted, not trained on."""


def gold_labels(examples: Iterable[dspy.Example]) -> tuple[dict[str, GoldLabel], set[str]]:
    """(labels by :func:`question_key`, keys dropped because two examples disagree on them): a question
    asked twice with different labels would teach the LM two replies to one prompt."""
    labels: dict[str, GoldLabel] = {}
    conflicts: set[str] = set()
    for ex in examples:
        key = question_key(ex.question)
        label: GoldLabel = (list(ex.get("answers") or []), bool(ex.get("should_abstain", False)))
        if key in labels and (labels[key][1] != label[1]):
            conflicts.add(key)
        elif key in labels:
            labels[key] = (list(dict.fromkeys([*labels[key][0], *label[0]])), label[1])
        else:
            labels[key] = label
    for key in conflicts:
        labels.pop(key, None)
    return labels, conflicts


def cited_answer_predictors(program: dspy.Module) -> list[dspy.Predict]:
    """The predictors whose signature is :class:`CitedAnswer` (the synthesizer's ``generate``)."""
    wanted_in, wanted_out = set(CitedAnswer.input_fields), set(CitedAnswer.output_fields)
    found = [p for _name, p in program.named_predictors()
             if wanted_out <= set(p.signature.output_fields) and wanted_in <= set(p.signature.input_fields)]
    if not found:
        raise ValueError("the program has no cited-answer predictor to collect fine-tuning data for")
    return found


def _why_no_record(prediction: Any, kinds: list[str]) -> str:
    """Why a question produced no record: the teacher skipped it, or the program stopped before the LM."""
    skipped = [k for k in kinds if k.startswith("skip") or k == "unknown"]
    if skipped:
        return skipped[-1]
    result = getattr(prediction, "result", None)
    reason = getattr(result, "abstain_reason", None) or getattr(result, "exit_reason", None)
    value = getattr(reason, "value", reason)
    return f"before_lm:{value}" if value else "before_lm"


def collect_records(program: dspy.Module, examples: Sequence[dspy.Example], source: str = "train",
                    progress: Progress | None = None, every: int = 25,
                    teacher: GoldTeacherLM | None = None) -> Collection:
    """Run ``program`` over ``examples`` with the gold teacher as its LM and keep, for each call of the
    cited-answer predictor, the chat messages it sent and the teacher's reply (DSPy's trace, formatted by
    the ChatAdapter's ``format_finetune_data``, as ``dspy.BootstrapFinetune`` does). ``teacher``: one
    built by the caller (to inspect what it was asked); by default one labelled from ``examples``."""
    labels, conflicts = gold_labels(examples)
    teacher = teacher if teacher is not None else GoldTeacherLM(labels)
    adapter = dspy.ChatAdapter(use_json_adapter_fallback=False)  # what the embedded LM is driven with
    targets = cited_answer_predictors(program)
    out = Collection(source=source, questions=len(examples))
    # every question that gets past the gates prompts the LM while data is collected (a program that answers
    # from the passages first, gates.extractive_first < 1, would leave those prompts out of the data)
    gates = getattr(program, "gates", None)
    with gates.overridden(extractive_first=1.0) if isinstance(gates, Gates) else contextlib.nullcontext():
        _collect(program, examples, source, teacher, adapter, targets, conflicts, out, progress, every)
    return out


def _collect(program: dspy.Module, examples: Sequence[dspy.Example], source: str, teacher: GoldTeacherLM,
             adapter: dspy.ChatAdapter, targets: list[dspy.Predict], conflicts: set[str], out: Collection,
             progress: Progress | None, every: int) -> None:
    started = time.perf_counter()
    for i, ex in enumerate(examples, start=1):
        if question_key(ex.question) in conflicts:
            out.no_record["conflicting_labels"] += 1
            continue
        first = len(teacher.decisions)
        with dspy.context(lm=teacher, adapter=adapter, trace=[]):
            prediction = program(question=ex.question)
            trace = list(dspy.settings.trace or [])
        kinds = [d.kind for d in teacher.decisions[first:]]
        out.other_lm_calls += kinds.count("other")  # every LM call whose prompt is not a cited answer
        records = _records_of(trace, targets, adapter, source, str(ex.get("id", i)), kinds)
        if records:
            out.records.extend(records)
        else:
            out.no_record[_why_no_record(prediction, kinds)] += 1
        if progress is not None and (i % every == 0 or i == len(examples)):
            progress(f"{source}: {i}/{len(examples)} questions, {len(out.records)} records "
                     f"({time.perf_counter() - started:.0f} s)")


def _records_of(trace: list[Any], targets: list[dspy.Predict], adapter: dspy.ChatAdapter, source: str,
                question_id: str, kinds: list[str]) -> list[FinetuneRecord]:
    """The trace's cited-answer calls as records (the teacher's decision names the refusal's reason)."""
    reasons = [k for k in kinds if k == "answer" or k.startswith("refusal")]
    records = []
    for pred, inputs, outputs in trace:
        if not any(pred is t for t in targets):
            continue
        data = adapter.format_finetune_data(signature=pred.signature, demos=list(pred.demos), inputs=inputs,
                                            outputs=outputs)
        answer = str(outputs.get("answer", "") or "").strip()
        target: Target = "refusal" if answer == NOT_IN_SOURCES else "answer"
        reason = reasons.pop(0) if reasons else target
        records.append(FinetuneRecord(source, question_id, target, reason, data))
    return records


# -- assembling the data set ----------------------------------------------------------------------
class SourceManifest(BaseModel):
    """What one source contributed."""

    description: str = ""
    documents: int = 0
    questions: int = 0
    records: int = 0
    answers: int = 0
    refusals: int = 0
    refusal_reasons: dict[str, int] = Field(default_factory=dict)
    refusals_dropped: int = Field(0, description="refusals left out by the refusal cap")
    duplicates_dropped: int = 0
    no_record: dict[str, int] = Field(default_factory=dict, description="questions without a record, by reason")
    other_lm_calls: int = Field(0, description="LM calls other than the cited answer (0 with the embedded config)")


class FinetuneManifest(BaseModel):
    """Where the fine-tuning data came from and what it holds; ``sha256`` is that of the JSONL file."""

    format: str = "dspy-chat-jsonl"
    predictor: str = "CitedAnswer"
    program: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    max_refusal_share: float | None = DEFAULT_MAX_REFUSAL_SHARE
    records: int = 0
    answers: int = 0
    refusals: int = 0
    sha256: str = ""
    sources: dict[str, SourceManifest] = Field(default_factory=dict)
    question_ids: list[str] = Field(default_factory=list, description="source:id of each record, in file order")


@dataclass
class FinetuneData:
    """Chat-format data (``[{"messages": [...]}]``) and its manifest."""

    data: list[dict[str, Any]]
    manifest: FinetuneManifest
    records: list[FinetuneRecord] = field(default_factory=list)


def serialise(data: Sequence[dict[str, Any]]) -> str:
    """The JSONL text of ``data`` (one example a line, keys sorted): what is written and hashed."""
    return "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in data)


def _key(record: FinetuneRecord) -> str:
    return json.dumps(record.data["messages"][:-1], sort_keys=True, ensure_ascii=False)


def deduplicate(records: Sequence[FinetuneRecord]) -> tuple[list[FinetuneRecord], Counter[str]]:
    """One record per prompt; a prompt seen with two different replies is dropped entirely (it cannot
    teach one answer). Returns the records and, per source, how many were dropped."""
    replies: dict[str, set[str]] = {}
    for r in records:
        replies.setdefault(_key(r), set()).add(r.data["messages"][-1]["content"])
    kept, seen, dropped = [], set(), Counter()
    for r in records:
        key = _key(r)
        if key in seen or len(replies[key]) > 1:
            dropped[r.source] += 1
            continue
        seen.add(key)
        kept.append(r)
    return kept, dropped


def cap_refusals(records: Sequence[FinetuneRecord], max_share: float | None, seed: int
                 ) -> tuple[list[FinetuneRecord], Counter[str]]:
    """Keep at most ``max_share`` refusals among each source's records (a seeded choice of which);
    ``None`` or 1 keeps all. Returns the kept records (in their order) and the drops per source."""
    rng = random.Random(seed)
    drop: set[int] = set()
    dropped: Counter[str] = Counter()
    for source in dict.fromkeys(r.source for r in records):
        answers = sum(1 for r in records if r.source == source and r.target == "answer")
        refusals = [i for i, r in enumerate(records) if r.source == source and r.target == "refusal"]
        gone = refusals_to_drop(refusals, answers, max_share, rng)
        drop |= gone
        dropped[source] += len(gone)
    return [r for i, r in enumerate(records) if i not in drop], dropped


def refusals_to_drop(refusals: Sequence[int], answers: int, max_share: float | None, rng: random.Random) -> set[int]:
    """Which of the ``refusals`` (indices) to drop, a seeded choice, so that they make at most ``max_share``
    of what is kept with ``answers`` answers (``None`` or 1: none)."""
    if max_share is None or max_share >= 1:
        return set()
    if max_share < 0:
        raise ValueError(f"the refusal share must be between 0 and 1, got {max_share}")
    allowed = int(max_share * answers / (1 - max_share))
    return set(rng.sample(list(refusals), len(refusals) - allowed)) if len(refusals) > allowed else set()


def is_refusal(example: dict[str, Any]) -> bool:
    """Whether a chat example's target (its last message) is ``NOT IN SOURCES``."""
    messages = example.get("messages") or [{}]
    return NOT_IN_SOURCES in str(messages[-1].get("content", ""))


def cap_chat_refusals(chat: Sequence[dict[str, Any]], max_share: float | None, seed: int) -> list[dict[str, Any]]:
    """Chat examples (order kept) with refusals dropped until they are at most ``max_share`` of them."""
    refusals = [i for i, example in enumerate(chat) if is_refusal(example)]
    drop = refusals_to_drop(refusals, len(chat) - len(refusals), max_share, random.Random(seed))
    return [example for i, example in enumerate(chat) if i not in drop]


def assemble(collections: Sequence[Collection], seed: int = 0,
             max_refusal_share: float | None = DEFAULT_MAX_REFUSAL_SHARE,
             sources: dict[str, SourceManifest] | None = None, program: dict[str, Any] | None = None) -> FinetuneData:
    """The records of ``collections`` deduplicated, refusal-capped and shuffled with ``seed``, with the
    manifest (``sources``: per-source facts known before collecting, completed here)."""
    records = [r for c in collections for r in c.records]
    records, duplicates = deduplicate(records)
    records, capped = cap_refusals(records, max_refusal_share, seed)
    random.Random(seed).shuffle(records)
    data = [r.data for r in records]
    text = serialise(data)
    per_source = dict(sources or {})
    for c in collections:
        mine = [r for r in records if r.source == c.source]
        info = per_source.get(c.source) or SourceManifest()
        per_source[c.source] = info.model_copy(update={
            "questions": c.questions, "records": len(mine),
            "answers": sum(r.target == "answer" for r in mine), "refusals": sum(r.target == "refusal" for r in mine),
            "refusal_reasons": dict(Counter(r.reason for r in mine if r.target == "refusal")),
            "refusals_dropped": capped[c.source], "duplicates_dropped": duplicates[c.source],
            "no_record": dict(c.no_record), "other_lm_calls": c.other_lm_calls,
        })
    manifest = FinetuneManifest(
        program=program or {}, seed=seed, max_refusal_share=max_refusal_share, records=len(records),
        answers=sum(r.target == "answer" for r in records), refusals=sum(r.target == "refusal" for r in records),
        sha256=hashlib.sha256(text.encode()).hexdigest(), sources=per_source,
        question_ids=[f"{r.source}:{r.question_id}" for r in records],
    )
    return FinetuneData(data, manifest, records)


def finetune_examples(program: dspy.Module, examples: Sequence[dspy.Example], source: str = "train", seed: int = 0,
                      max_refusal_share: float | None = DEFAULT_MAX_REFUSAL_SHARE,
                      progress: Progress | None = None) -> FinetuneData:
    """Chat-format fine-tuning data for ``program``'s cited-answer predictor from labelled ``examples``
    (``question``, ``answers``, ``should_abstain``): :func:`collect_records` then :func:`assemble`.
    ``examples`` must be training questions; see :func:`training_questions`."""
    collection = collect_records(program, examples, source, progress)
    return assemble([collection], seed, max_refusal_share)


# -- end to end -----------------------------------------------------------------------------------
def training_program(store: CorpusStore, k: int = _DEFAULTS.k) -> GroundedQA:
    """GroundedQA over ``store`` configured as deployed with the embedded LM (premise checks on)."""
    from groundqa.programs.grounded_qa import GroundedQA, QAConfig
    from groundqa.programs.retriever import Retriever

    return GroundedQA(Retriever(store, k=k), QAConfig.for_lm("embedded", k=k))


def program_description(program: GroundedQA) -> dict[str, Any]:
    """The program facts that shape the prompts (for the manifest)."""
    cfg = program.config
    return {"config": "QAConfig.for_lm('embedded')", "verify_premises": cfg.verify_premises,
            "premise_extractor": cfg.premise_extractor, "premise_judge": cfg.premise_judge,
            "multi_hop": cfg.multi_hop, "max_attempts": cfg.max_attempts, "k": program.gates.k,
            "max_passages": program.gates.max_passages, "max_context_chars": cfg.budgets.max_context_chars,
            "chunk_size": _DEFAULTS.chunk_size, "chunk_overlap": _DEFAULTS.chunk_overlap,
            "adapter": "ChatAdapter(use_json_adapter_fallback=False)"}


def build_finetune_data(sources: Sequence[str], limit: int | None = None, seed: int = 0,
                        max_refusal_share: float | None = DEFAULT_MAX_REFUSAL_SHARE,
                        squad_path: str | Path | None = None, workdir: str | Path | None = None,
                        progress: Progress | None = None) -> FinetuneData:
    """Fine-tuning data from each source's training questions (at most ``limit`` per source): each
    source's corpus goes into a throw-away Chroma store of its own (so one source's passages never
    show up in another's prompts), the deployed program runs with the gold teacher, and the records
    are assembled into one data set."""
    from groundqa.store.chroma_store import CorpusStore

    say = progress or (lambda _m: None)
    collections: list[Collection] = []
    infos: dict[str, SourceManifest] = {}
    program_info: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gq-ftdata-", dir=workdir) as tmp:
        for source in sources:
            questions = training_questions(source, seed, limit, squad_path)
            say(f"{questions.source}: {len(questions.examples)} questions over {len(questions.documents)} "
                f"documents ({questions.description})")
            store = CorpusStore(Path(tmp) / questions.source, collection=f"ftdata-{questions.source}")
            report = store.ingest(list(questions.documents), _DEFAULTS.chunk_size, _DEFAULTS.chunk_overlap)
            say(f"{questions.source}: ingested {report.documents} documents -> {report.chunks_total} chunks "
                f"in {report.seconds:.1f} s")
            program = training_program(store)
            program_info = program_description(program)
            collections.append(collect_records(program, questions.examples, questions.source, say))
            infos[questions.source] = SourceManifest(description=questions.description,
                                                     documents=len(questions.documents))
    return assemble(collections, seed, max_refusal_share, infos, program_info)


def write_finetune_data(result: FinetuneData, out: str | Path) -> tuple[Path, Path]:
    """Write the data as JSONL at ``out`` and the manifest next to it (``<stem>.manifest.json``)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(serialise(result.data), encoding="utf-8")
    manifest_path = path.with_name(f"{path.stem}.manifest.json")
    manifest_path.write_text(result.manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path, manifest_path


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m groundqa.optimizers.finetune_data --out FILE.jsonl --source bundled,squad --limit N``."""
    parser = argparse.ArgumentParser(prog="python -m groundqa.optimizers.finetune_data", description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the JSONL file to write (the manifest goes next to it)")
    parser.add_argument("--source", default="bundled", help="comma-separated: bundled, squad (training parts only)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions per source")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-refusal-share", type=float, default=DEFAULT_MAX_REFUSAL_SHARE,
                        help="cap on NOT IN SOURCES records per source (1 keeps all)")
    parser.add_argument("--squad", default=None, help="the SQuAD 2.0 dev file (default ../shared/data/squad2/dev-v2.0.json)")
    args = parser.parse_args(argv)
    sources = [s.strip() for s in args.source.split(",") if s.strip()]
    started = time.perf_counter()
    try:
        result = build_finetune_data(sources, args.limit, args.seed, args.max_refusal_share, args.squad, progress=_say)
    except (ValueError, FileNotFoundError) as exc:
        _say(f"error: {exc}")
        return 2
    data_path, manifest_path = write_finetune_data(result, args.out)
    m = result.manifest
    for name, info in m.sources.items():
        _say(f"{name}: {info.questions} questions -> {info.records} records ({info.answers} answers, "
             f"{info.refusals} refusals; {info.refusals_dropped} refusals capped); no record: {info.no_record}")
    _say(f"{m.records} records ({m.answers} answers, {m.refusals} refusals) in {time.perf_counter() - started:.0f} s")
    _say(f"wrote {data_path} and {manifest_path} (sha256 {m.sha256[:16]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
