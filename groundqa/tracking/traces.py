"""MLflow traces of questions, built from the program's own trace records.

GroundedQA records every LM call, retrieval and contract attempt of a question in a
:class:`groundqa.runtime.trace.Trace` (with the stage that made it, from ``stage_scope``). This module
turns those records into one MLflow trace per question, so the MLflow view and ``--save-trace`` never
disagree (both come from the same records):

* a root span (``GroundedQA``) with the question as input and the answer, abstention, exit reason and
  usage as outputs/attributes, tagged with the program label (``baseline``, ``compiled``, ...);
* one CHAIN span per stage (premise verification, retrieval, bridge retrieval, planning, synthesis);
* RETRIEVER spans whose outputs are ``mlflow.entities.Document``\\ s (chunk id as id; doc id, chunk id and
  score in the metadata), so MLflow's retrieval and groundedness tooling can read them;
* CHAT_MODEL spans for LM calls, with token counts (``mlflow.chat.tokenUsage``);
* one span per synthesis attempt of the citation contract, with its outcome and feedback.

Records carry latencies but not start times, so :class:`RecordingTrace` notes when each record arrives
(wall clock); a span runs from ``arrival - latency`` to ``arrival``. DSPy's own MLflow autologging is
kept off where these traces are made: it would add a second, disagreeing copy of every LM call.

Tracing never breaks a question: a failure to build or export a trace is logged at debug level and the
answer is returned as usual; once the run in progress has lost its tracking server
(:mod:`groundqa.tracking.guard`), no more traces are made.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from groundqa.runtime.trace import ContractAttempt, LMCall, RetrievalCall, Trace
from groundqa.signatures.types import SourceLocation
from groundqa.tracking.guard import tracking_lost

_log = logging.getLogger(__name__)

ROOT_NAME = "GroundedQA"
STAGE_NAMES = {
    "premises": "premise verification",
    "retrieval": "retrieval",
    "bridge": "bridge retrieval",
    "planning": "planning",
    "answer": "synthesis",
}
"""Span names of the program's stage labels (``stage_scope``); an unknown label is used as it is."""
SYNTHESIS_STAGE = "answer"
TAG_PROGRAM = "groundqa.program"
TAG_COMMAND = "groundqa.command"
TAG_QUESTION_ID = "groundqa.question_id"
Lookup = Callable[[list[str]], Mapping[str, Any]]
"""``lookup(chunk_ids) -> {chunk_id: Passage}``: texts for retrieved chunks not in the final context."""


class RecordingTrace(Trace):
    """A :class:`Trace` that also notes when each record arrived (``time.time_ns()``).

    The arrival times stay out of the saved file: ``--save-trace`` writes exactly what a plain trace does.
    """

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._arrived: dict[str, int] = {}

    def add(self, kind: Any, prefix: str, **fields: Any) -> Any:
        record = super().add(kind, prefix, **fields)
        self._arrived[record.id] = time.time_ns()
        return record

    def arrived_ns(self, record_id: str) -> int | None:
        """When ``record_id`` was added, or ``None`` for a record this trace did not receive live."""
        return self._arrived.get(record_id)


@dataclass
class QuestionTracer:
    """Makes one MLflow trace per question when ``enabled`` (tracking on), else only a plain trace.

    ``label`` tags every trace (``groundqa.program``: baseline, compiled, a program path or model URI);
    ``run_id`` links the traces to an MLflow run even when they are made in worker threads;
    ``command`` tags what made them (ask, evaluate, compile, api).
    """

    enabled: bool = False
    label: str = ""
    run_id: str | None = None
    command: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    reason: str = ""
    """Why tracing is off (a tracking server that is down), for the caller to say."""

    @contextlib.contextmanager
    def question(self, question: str, question_id: str | None = None,
                 lookup: Lookup | None = None, program_name: str = ROOT_NAME) -> Iterator[RecordingTrace]:
        """The block answers ``question`` with the yielded trace; on exit its records become the spans
        of one MLflow trace (the program fills ``trace.result``; see :func:`set_result` otherwise)."""
        trace = RecordingTrace(question=question if isinstance(question, str) else "")
        if not self.enabled or tracking_lost():  # a lost tracking server gets no more traces
            yield trace
            return
        import mlflow
        from mlflow.entities import SpanType

        try:
            span_cm = mlflow.start_span(name=program_name, span_type=SpanType.CHAIN)
            root = span_cm.__enter__()
        except Exception as exc:  # tracing must never cost an answer
            _log.debug("cannot start an MLflow trace: %s", exc)
            yield trace
            return
        failure: BaseException | None = None
        try:
            root.set_inputs({"question": trace.question})
            yield trace
        except BaseException as exc:
            failure = exc
            raise
        finally:
            try:
                build_spans(root, trace, lookup=lookup)
                mlflow.update_current_trace(tags=self._trace_tags(trace, question_id),
                                            request_preview=trace.question[:300],
                                            response_preview=_response_preview(trace.result))
                if self.run_id:
                    mlflow.update_current_trace(metadata={"mlflow.sourceRun": self.run_id})
            except Exception as exc:
                _log.debug("cannot build the MLflow trace of %r: %s", trace.question[:80], exc)
            if failure is None:
                span_cm.__exit__(None, None, None)
            else:
                span_cm.__exit__(type(failure), failure, failure.__traceback__)

    def _trace_tags(self, trace: Trace, question_id: str | None) -> dict[str, str]:
        result = trace.result or {}
        tags = {TAG_PROGRAM: self.label, TAG_COMMAND: self.command, **self.tags,
                "groundqa.trace_id": trace.trace_id,
                "groundqa.exit_reason": str(result.get("exit_reason", "")),
                "groundqa.abstained": str(bool(result.get("abstained", False))).lower()}
        if question_id:
            tags[TAG_QUESTION_ID] = question_id
        return {k: v for k, v in tags.items() if v}

    def wrap(self, program: Any, question_ids: Mapping[str, str] | None = None) -> Any:
        """``program`` itself when tracing is off, else a :class:`TracedProgram` around it."""
        return TracedProgram(program, self, question_ids) if self.enabled else program


def command_tracer(settings: Any, experiment: str, label: str, enabled: bool = True, command: str = "") -> QuestionTracer:
    """A tracer for a command that answers questions outside any run (``ask``, the API): its traces go to
    the ``groundqa-<experiment>`` experiment of the configured store; off when ``enabled`` is false or
    the store cannot be used (``reason`` says why)."""
    from groundqa.tracking.setup import configure_tracking, use_experiment

    tracking = configure_tracking(settings, enabled)
    if not tracking.enabled:
        return QuestionTracer(enabled=False, reason=tracking.reason if enabled else "")
    try:
        use_experiment(tracking, experiment)
    except Exception as exc:  # an unusable store must not cost the answer
        return QuestionTracer(enabled=False, reason=f"cannot use the MLflow store {tracking.uri}: {type(exc).__name__}")
    return QuestionTracer(enabled=True, label=label, command=command or experiment)


def lookup_for(program: Any) -> Lookup | None:
    """Chunk texts from ``program``'s store (``program.retriever.store``), if it has one."""
    store = getattr(getattr(program, "retriever", None), "store", None)
    return _store_lookup(store) if store is not None and hasattr(store, "get") else None


def trace_url_hint() -> str:
    """One line naming the last trace this thread made, for a command's output."""
    try:
        import mlflow

        trace_id = mlflow.get_last_active_trace_id(thread_local=True)
    except Exception:
        trace_id = None
    return f"MLflow trace {trace_id} (browse it with `groundqa ui`)" if trace_id else "no MLflow trace was made"


def set_result(trace: Trace, output: Any) -> None:
    """Fill ``trace.result`` from a program's output when the program did not (a generic DSPy program)."""
    if trace.result is not None:
        return
    from groundqa.metrics.coerce import as_result

    try:
        result = as_result(output, question=trace.question)
    except Exception:  # an output the metrics cannot read either: the root span keeps no result
        result = None
    if result is not None:
        trace.result = result.model_dump(mode="json")


class TracedProgram:
    """Calls ``program(question=..., trace=...)`` inside :meth:`QuestionTracer.question`.

    It stands in for the program wherever one question is answered per call (``dspy.Evaluate``,
    ``mlflow.genai.evaluate``): it has the program's name, so reports name the program, not the wrapper.
    A program whose ``forward`` takes no ``trace`` gets a root span only.
    """

    def __init__(self, program: Any, tracer: QuestionTracer, question_ids: Mapping[str, str] | None = None) -> None:
        self.program = program
        self.tracer = tracer
        self.question_ids = dict(question_ids or {})
        self.__name__ = getattr(program, "__name__", None) or type(program).__name__
        self._takes_trace = _accepts(program, "trace")
        self._lookup = lookup_for(program)

    def __call__(self, question: str, **kwargs: Any) -> Any:
        with self.tracer.question(question, question_id=self.question_ids.get(question), lookup=self._lookup,
                                  program_name=self.__name__) as trace:
            if self._takes_trace:
                output = self.program(question=question, trace=trace, **kwargs)
            else:
                output = self.program(question=question, **kwargs)
            set_result(trace, output)
            return output

    def __getattr__(self, name: str) -> Any:
        if name == "program" or name.startswith("__"):  # copies and pickles look these up before __init__
            raise AttributeError(name)
        return getattr(self.program, name)


def _accepts(program: Any, name: str) -> bool:
    # the class attribute: DSPy warns when an instance's ``forward`` is looked up outside a call
    target = getattr(type(program), "forward", None) or program
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _store_lookup(store: Any) -> Lookup:
    def lookup(chunk_ids: list[str]) -> Mapping[str, Any]:
        return {p.chunk_id: p for p in store.get(chunk_ids)}

    return lookup


def _response_preview(result: Mapping[str, Any] | None) -> str:
    if not result:
        return ""
    if result.get("abstained"):
        reason = result.get("abstain_reason") or "abstained"
        return f"[abstained: {reason}] {result.get('abstain_message', '')}"[:300]
    return str(result.get("answer", ""))[:300]


# -- spans from records ------------------------------------------------------------------------------
@dataclass
class _Timed:
    record: Any
    start: int
    end: int


def _times(trace: Trace, floor: int, ceiling: int) -> list[_Timed]:
    """Start/end (ns) of every record: ``arrival - latency`` .. ``arrival``; contract attempts (recorded
    together once synthesis ends) are laid back to back, the last one ending at their arrival."""
    arrived = trace.arrived_ns if isinstance(trace, RecordingTrace) else (lambda _id: None)
    timed: list[_Timed] = []
    cursor = floor
    attempts: list[Any] = []
    for record in trace.records:
        end = arrived(record.id) or cursor
        end = min(max(end, floor), ceiling)
        if isinstance(record, ContractAttempt):
            attempts.append(record)
            continue
        start = max(floor, end - int(record.latency_ms * 1_000_000))
        timed.append(_Timed(record, start, end))
        cursor = end
    if attempts:
        end = min(max(arrived(attempts[-1].id) or cursor, floor), ceiling)
        laid: list[_Timed] = []
        for attempt in reversed(attempts):
            start = max(floor, end - int(attempt.latency_ms * 1_000_000))
            laid.append(_Timed(attempt, start, end))
            end = start
        timed.extend(reversed(laid))
    return timed


def _stage_of(record: Any) -> str:
    return SYNTHESIS_STAGE if isinstance(record, ContractAttempt) else (record.stage or "")


def build_spans(root: Any, trace: Trace, lookup: Lookup | None = None) -> None:
    """Add the spans of ``trace``'s records under ``root`` (a live MLflow span) and set its outputs."""
    import mlflow

    floor = int(root.start_time_ns)
    ceiling = time.time_ns()
    timed = _times(trace, floor, ceiling)
    result = trace.result or {}
    texts = _passage_texts(result, timed, lookup)

    stages: dict[str, list[_Timed]] = {}
    for item in timed:
        stages.setdefault(_stage_of(item.record), []).append(item)
    for stage, items in stages.items():
        parent = root
        stage_span = None
        if stage:
            from mlflow.entities import SpanType

            stage_span = mlflow.start_span_no_context(
                STAGE_NAMES.get(stage, stage), span_type=SpanType.CHAIN, parent_span=root,
                inputs=_stage_inputs(stage, trace, items), attributes={"groundqa.stage": stage},
                start_time_ns=min(i.start for i in items))
            parent = stage_span
        attempts = [i for i in items if isinstance(i.record, ContractAttempt)]
        attempt_spans = [(_attempt_span(parent, a), a) for a in attempts]
        for item in items:
            if isinstance(item.record, ContractAttempt):
                continue
            owner = _owning_attempt(item, attempt_spans) or parent
            if isinstance(item.record, RetrievalCall):
                _retrieval_span(owner, item, texts)
            elif isinstance(item.record, LMCall):
                _lm_span(owner, item)
        for span, attempt in attempt_spans:
            span.end(outputs={"outcome": attempt.record.outcome, "feedback": attempt.record.feedback},
                     status="ERROR" if attempt.record.outcome == "error" else None, end_time_ns=attempt.end)
        if stage_span is not None:
            stage_span.end(outputs=_stage_outputs(stage, result), end_time_ns=max(i.end for i in items))
    root.set_outputs(_root_outputs(result))
    root.set_attributes(_root_attributes(trace, result))


def _attempt_span(parent: Any, item: _Timed) -> Any:
    import mlflow
    from mlflow.entities import SpanType

    record = item.record
    return mlflow.start_span_no_context(
        f"attempt {record.attempt}", span_type=SpanType.CHAIN, parent_span=parent,
        inputs={"module": record.module, "attempt": record.attempt},
        attributes={"groundqa.record": record.id, "groundqa.outcome": record.outcome,
                    "latency_ms": record.latency_ms},
        start_time_ns=item.start)


def _owning_attempt(item: _Timed, attempt_spans: list[tuple[Any, _Timed]]) -> Any:
    middle = (item.start + item.end) // 2
    for span, attempt in attempt_spans:
        if attempt.start <= middle <= attempt.end:
            return span
    return None


def _retrieval_span(parent: Any, item: _Timed, texts: Mapping[str, Any]) -> None:
    import mlflow
    from mlflow.entities import Document, SpanType

    record: RetrievalCall = item.record
    span = mlflow.start_span_no_context(
        "retrieve", span_type=SpanType.RETRIEVER, parent_span=parent, inputs={"query": record.query, "k": record.k},
        attributes={"groundqa.record": record.id, "groundqa.stage": record.stage, "cache_hit": record.cache_hit,
                    "latency_ms": record.latency_ms},
        start_time_ns=item.start)
    documents = []
    for rank, (chunk_id, score) in enumerate(zip(record.ids, record.scores, strict=False), start=1):
        passage = texts.get(chunk_id)
        metadata: dict[str, Any] = {"chunk_id": chunk_id, "doc_id": doc_id_of(chunk_id, passage), "score": float(score),
                                    "rank": rank, "title": str(getattr(passage, "title", "") or "")}
        location = SourceLocation.from_metadata(getattr(passage, "metadata", None) or {})
        if location is not None:  # where in the source file: path, page or section, character offsets
            metadata.update({k: v for k, v in location.model_dump().items() if v is not None})
        documents.append(Document(id=chunk_id, page_content=str(getattr(passage, "text", "") or ""),
                                  metadata=metadata))
    span.end(outputs=documents, status="ERROR" if record.error else None, end_time_ns=item.end,
             attributes={"error": record.error} if record.error else None)


def _lm_span(parent: Any, item: _Timed) -> None:
    import mlflow
    from mlflow.entities import SpanType
    from mlflow.tracing.constant import SpanAttributeKey, TokenUsageKey

    record: LMCall = item.record
    attributes: dict[str, Any] = {"groundqa.record": record.id, "groundqa.stage": record.stage, "model": record.model,
                                  "cache_hit": record.cache_hit, "retry": record.retry,
                                  "latency_ms": record.latency_ms, "request_key": record.request_key}
    prompt = int(record.usage.get("prompt_tokens", 0) or 0)
    completion = int(record.usage.get("completion_tokens", 0) or 0)
    attributes[SpanAttributeKey.CHAT_USAGE] = {
        TokenUsageKey.INPUT_TOKENS: prompt, TokenUsageKey.OUTPUT_TOKENS: completion,
        TokenUsageKey.TOTAL_TOKENS: prompt + completion,
    }
    span = mlflow.start_span_no_context(
        f"{record.id} {record.model}", span_type=SpanType.CHAT_MODEL, parent_span=parent,
        inputs={"messages": record.messages, **record.kwargs}, attributes=attributes, start_time_ns=item.start)
    span.end(outputs=record.outputs, status="ERROR" if record.error else None, end_time_ns=item.end,
             attributes={"error": record.error} if record.error else None)


def doc_id_of(chunk_id: str, passage: Any = None) -> str:
    """The document a chunk belongs to: the passage's own doc id, else the part of the chunk id before
    ``#`` (chunk ids are ``<doc id>#<hash>``, :func:`groundqa.store.chunking.chunk_id`)."""
    known = getattr(passage, "doc_id", None)
    if known:
        return str(known)
    return chunk_id.rsplit("#", 1)[0] if "#" in chunk_id else chunk_id


class _Passage:
    """A passage of the result's context (a dict in ``trace.result``) seen as an object."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.text = str(data.get("text", ""))
        self.title = str(data.get("title", ""))
        self.doc_id = str(data.get("doc_id", ""))


def _passage_texts(result: Mapping[str, Any], timed: list[_Timed], lookup: Lookup | None) -> dict[str, Any]:
    """Chunk id -> passage for every retrieved chunk: the result's context first, the store for the rest."""
    texts: dict[str, Any] = {str(p.get("chunk_id")): _Passage(p) for p in result.get("passages") or []
                             if isinstance(p, Mapping)}
    missing = list(dict.fromkeys(cid for item in timed if isinstance(item.record, RetrievalCall)
                                 for cid in item.record.ids if cid not in texts))
    if missing and lookup is not None:
        try:
            texts.update(lookup(missing))
        except Exception as exc:  # the texts are enrichment; ids and scores come from the records
            _log.debug("cannot look up retrieved chunks: %s", exc)
    return texts


def _stage_inputs(stage: str, trace: Trace, items: list[_Timed]) -> dict[str, Any]:
    if stage in ("retrieval", "bridge"):
        return {"queries": [i.record.query for i in items if isinstance(i.record, RetrievalCall)]}
    return {"question": trace.question}


def _stage_outputs(stage: str, result: Mapping[str, Any]) -> Any:
    if stage == "premises":
        return {"premise_check": result.get("premise_check"), "premises": result.get("premises", [])}
    if stage == "retrieval":
        return {"context": [{"n": n, "chunk_id": p.get("chunk_id"), "doc_id": p.get("doc_id"),
                             "score": p.get("score")} for n, p in enumerate(result.get("passages") or [], start=1)]}
    if stage == SYNTHESIS_STAGE:
        return {"answer": result.get("answer", ""), "mode": result.get("mode"),
                "violations": result.get("violations", {})}
    return None


def _root_outputs(result: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("answer", "abstained", "abstain_reason", "abstain_message", "exit_reason", "confidence", "mode",
            "citations", "premise_check", "notes")
    return {k: result.get(k) for k in keys if k in result}


def _root_attributes(trace: Trace, result: Mapping[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = {"groundqa.trace_id": trace.trace_id, "groundqa.records": len(trace.records)}
    if result:
        attributes.update({"groundqa.exit_reason": result.get("exit_reason"),
                           "groundqa.abstained": bool(result.get("abstained")),
                           "groundqa.abstain_reason": result.get("abstain_reason"),
                           "groundqa.usage": result.get("usage", {})})
    return {k: v for k, v in attributes.items() if v is not None}


_FLUSH_LOCK = threading.Lock()


def flush_traces() -> None:
    """Wait for traces exported in the background (a command's last step, so none is lost at exit)."""
    if tracking_lost():  # nothing can reach the server; do not wait on exports that will fail
        return
    try:
        import mlflow

        with _FLUSH_LOCK:
            mlflow.flush_trace_async_logging()
    except Exception as exc:
        _log.debug("cannot flush MLflow traces: %s", exc)
