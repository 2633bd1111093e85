"""The behavioural contract of a run (scripted LMs, a real Chroma store): exit reasons, budgets,
retries, caching, streaming, traces and replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy
import pytest

from groundqa.datasets.loaders import load_corpus
from groundqa.lm.scripted import ScriptedLM, faults
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.retrieval_cache import RetrievalCache
from groundqa.runtime.run import Budgets
from groundqa.runtime.streaming import stream
from groundqa.runtime.trace import ReplayLM, ReplayMiss, Trace
from groundqa.signatures.types import ExitReason, GroundedResult
from groundqa.store.chroma_store import CorpusStore

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path

QUESTION = "Who designed the harbor lights of Port Vessany?"
GOOD = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}
FAST = {"backoff_base_s": 0.001, "backoff_max_s": 0.002}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"))
    store.ingest(load_corpus(Path(__file__).parents[1] / "datasets/demo/corpus.jsonl").items, 400, 80)
    return store


def answerer(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A well-behaved LM for the embedded configuration (only synthesis calls the LM)."""
    return GOOD


def make(store: CorpusStore, responder: Any = answerer, cache: RetrievalCache | None = None,
         lm_cache: bool = False, **config: Any) -> tuple[GroundedQA, ScriptedLM]:
    budgets = Budgets(**{**FAST, **config.pop("budgets", {})})
    lm = ScriptedLM(responder, cache=lm_cache)
    dspy.configure(lm=GuardedLM(lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    program = GroundedQA(Retriever(store, k=3, cache=cache),
                         QAConfig.for_lm("embedded", budgets=budgets, **{**LM_FIRST, **config}))
    return program, lm


def comparable(result: GroundedResult) -> dict[str, Any]:
    data = result.model_dump(mode="json", exclude={"trace_id"})
    data["usage"].pop("latency_ms")
    return data


# -- one test per exit reason -------------------------------------------------------------------
def test_completed(store):
    program, _ = make(store)
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.COMPLETED and not result.abstained
    assert result.citations and result.citations[0].doc_id == "harbor-lights"


@pytest.mark.parametrize("question, reason", [("", ExitReason.EMPTY_INPUT), ("  \n ", ExitReason.EMPTY_INPUT),
                                              ("???", ExitReason.INVALID_INPUT), ("x" * 2000, ExitReason.INVALID_INPUT),
                                              ("who\x00?", ExitReason.INVALID_INPUT), (None, ExitReason.INVALID_INPUT)])
def test_bad_input_stops_before_any_call(store, question, reason):
    program, lm = make(store)
    result = program.run(question)
    assert result.exit_reason is reason and result.abstained
    assert lm.calls == 0 and result.usage.retrieval_calls == 0


def test_max_lm_calls_counts_every_call(store):
    # LM premise extraction (1 call) + synthesis (1 call) with a budget of 1.
    def respond(messages):
        if "presuppositions" in messages[-1]["content"]:
            return {"presuppositions": []}
        return GOOD

    program, lm = make(store, respond, premise_extractor="lm", budgets={"max_lm_calls": 1})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.MAX_LM_CALLS_REACHED
    assert result.usage.lm_calls == 1 and lm.calls == 1


def test_max_retrievals_counts_each_call(store):
    # premise claim retrieval (1) + question retrieval (1) with a budget of 1
    program, _ = make(store, budgets={"max_retrievals": 1})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.MAX_RETRIEVALS_REACHED
    assert result.usage.retrieval_calls == 1


def test_context_stop_policy(store):
    program, lm = make(store, budgets={"max_context_chars": 200, "context_policy": "stop"})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.MAX_CONTEXT_REACHED and lm.calls == 0


def test_context_trim_is_recorded_never_silent(store):
    program, _ = make(store, budgets={"max_context_chars": 450})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.COMPLETED
    assert result.usage.trimmed_passages >= 1
    assert any("context trimmed" in note for note in result.notes)
    assert sum(len(p.text) for p in result.passages) <= 450


def test_timeout(store):
    program, _ = make(store, faults(["timeout"] * 10), budgets={"max_lm_retries": 2})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.TIMEOUT
    assert result.usage.lm_retries == 2


def test_wall_clock_timeout(store):
    program, _ = make(store, lambda m: __import__("time").sleep(0.2) or GOOD, budgets={"timeout_s": 0.1})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.TIMEOUT


def test_rate_limited_after_retries(store):
    program, lm = make(store, faults(["429"] * 10), budgets={"max_lm_retries": 3})
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.RATE_LIMITED
    assert lm.calls == 4 and result.usage.lm_retries == 3 and result.usage.lm_calls == 1


def test_transient_errors_are_retried_then_succeed(store):
    program, _ = make(store, faults(["429", "500", "connection"], then=answerer))
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.COMPLETED and not result.abstained
    assert result.usage.lm_retries == 3 and result.usage.lm_calls == 1


def test_lm_error_is_not_retried(store):
    program, lm = make(store, faults([RuntimeError("boom")]))
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.LM_ERROR
    assert lm.calls == 1 and result.usage.lm_retries == 0
    assert "boom" in result.abstain_message


def test_lm_generation_failure_when_fallback_is_off(store):
    program, _ = make(store, faults(["garbage", "empty"]), fallback="abstain", max_attempts=2)
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.LM_GENERATION_FAILURE and result.abstained


def test_garbage_with_extractive_fallback_completes_extractively(store):
    program, _ = make(store, faults(["garbage", "garbage"]), max_attempts=2)
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.COMPLETED
    assert result.mode == "extractive" and result.citations
    assert result.violations.get("format") == 2


def test_retrieval_error(store, monkeypatch):
    program, _ = make(store)

    def broken(*args, **kwargs):
        raise ConnectionError("chroma is down")

    monkeypatch.setattr(program.retriever.store, "query", broken)
    result = program.run(QUESTION)
    assert result.exit_reason is ExitReason.RETRIEVAL_ERROR
    assert "chroma is down" in result.abstain_message


def test_no_state_leaks_into_the_next_call(store):
    program, _ = make(store, faults(["429"] * 4, then=answerer), budgets={"max_lm_retries": 3})
    first = program.run(QUESTION)
    second = program.run(QUESTION)
    assert first.exit_reason is ExitReason.RATE_LIMITED
    assert second.exit_reason is ExitReason.COMPLETED and second.usage.lm_retries == 0
    assert second.notes == [] or all("429" not in n for n in second.notes)


def test_first_terminal_reason_wins():
    from groundqa.runtime.run import RunState

    state = RunState()
    state.stop(ExitReason.RATE_LIMITED, "first")
    state.stop(ExitReason.LM_ERROR, "second")
    state.stop(ExitReason.COMPLETED)
    assert state.exit_reason is ExitReason.RATE_LIMITED and state.exit_message == "first"


# -- caching -----------------------------------------------------------------------------------
def test_cache_hits_visible_and_stream_skips_tokens(store, tmp_path):
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    program, lm = make(store, cache=RetrievalCache(tmp_path / "retrieval"), lm_cache=True)
    cold = list(stream(program, QUESTION))
    warm = list(stream(program, QUESTION))
    assert any(e.type == "token" for e in cold)
    assert not any(e.type == "token" for e in warm)
    cold_result, warm_result = cold[-1].result, warm[-1].result
    assert warm_result.usage.lm_cache_hits == 1 and warm_result.usage.retrieval_cache_hits == 2
    assert cold_result.usage.lm_cache_hits == 0 and lm.calls == 1
    assert warm_result.answer == cold_result.answer
    # --no-cache bypasses both caches
    fresh = program.run(QUESTION, use_cache=False)
    assert fresh.usage.lm_cache_hits == 0 and fresh.usage.retrieval_cache_hits == 0 and lm.calls == 2


def test_ingestion_invalidates_retrieval_cache(tmp_path):
    from groundqa.datasets.loaders import Document

    store = CorpusStore(tmp_path / "chroma")
    store.ingest([Document(id="a", title="A", text="The ferry leaves at nine in the morning.")])
    retriever = Retriever(store, k=2, cache=RetrievalCache())
    first = retriever.retrieve("When does the ferry leave?", 2)
    store.ingest([Document(id="b", title="B", text="The ferry also leaves at noon on Sundays.")])
    retriever.refresh()
    second = retriever.retrieve("When does the ferry leave?", 2)
    assert len(first) == 1 and len(second) == 2


# -- streaming ---------------------------------------------------------------------------------
def test_stream_equals_invoke_and_ends_with_one_final(store):
    program, _ = make(store)
    plain = program.run(QUESTION)
    events = list(stream(program, QUESTION))
    kinds = [e.type for e in events]
    assert kinds[-1] == "final" and kinds.count("final") == 1
    assert "retrieval_start" in kinds and "retrieval_end" in kinds and "premise" in kinds and "attempt" in kinds
    assert comparable(events[-1].result) == comparable(plain)


# -- traces ------------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_trace_export_load_equality(store, tmp_path, suffix):
    program, _ = make(store)
    trace = Trace(question=QUESTION)
    program.run(QUESTION, trace=trace)
    assert trace.lm_calls() and trace.retrievals()
    call = trace.lm_calls()[0]
    assert call.id == "lm1" and call.messages and call.outputs and call.usage["prompt_tokens"] > 0
    assert trace.retrievals()[0].ids and trace.retrievals()[0].scores
    loaded = Trace.load(trace.save(tmp_path / f"trace{suffix}"))
    assert loaded == Trace.model_validate(trace.to_dict())
    assert loaded.model_dump() == trace.model_dump()


def test_replay_reproduces_offline_and_fails_loudly_on_unrecorded(store, tmp_path):
    program, _ = make(store)
    trace = Trace(question=QUESTION)
    recorded = program.run(QUESTION, trace=trace)
    path = trace.save(tmp_path / "golden.json")

    def never(messages):
        raise AssertionError("replay must not call the LM")

    dspy.configure(lm=GuardedLM(ScriptedLM(never), replay=ReplayLM(Trace.load(path))))
    replayed = program.run(QUESTION, use_cache=False)
    assert comparable(replayed) == comparable(recorded)
    with pytest.raises(ReplayMiss, match="not recorded"):
        program.run("Who is Paolo Marchetti?", use_cache=False)


def test_secrets_are_redacted_from_traces(store, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijklmnopqrstuvwxyz")

    def leaky(messages):
        return {"answer": "Odile Marchetti designed them [1]. key sk-test-abcdefghijklmnopqrstuvwxyz"}

    program, _ = make(store, leaky)
    trace = Trace(question=QUESTION)
    program.run(QUESTION, trace=trace)
    text = trace.save(tmp_path / "t.json").read_text()
    assert "sk-test-abcdefghijklmnopqrstuvwxyz" not in text and "REDACTED" in text
