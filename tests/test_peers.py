"""Peers (PlainRAG, RefineRAG) and the peers benchmark suites, on scripted LMs over a tiny Chroma store."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import dspy
import pytest

# `benchmarks/` lives at the repository root and is not an installed package: make it importable
# however pytest is started (`python -m pytest` adds the cwd, the `pytest` script does not).
_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

from benchmarks.cache import cache_result, run_cache  # noqa: E402
from benchmarks.meters import Meter, MeteredLM, percentile, union_length  # noqa: E402
from benchmarks.quality import PROGRAMS, quality_result, run_quality  # noqa: E402
from groundqa.config import load_settings  # noqa: E402
from groundqa.datasets.loaders import Question, load_corpus  # noqa: E402
from groundqa.lm.scripted import ScriptedLM, input_field  # noqa: E402
from groundqa.metrics.coerce import as_result  # noqa: E402
from groundqa.metrics.composite import score_item  # noqa: E402
from groundqa.programs.extractive_teacher import extractive_reply  # noqa: E402
from groundqa.programs.peers import PlainRAG, RefineRAG, citation_reward, number_passages  # noqa: E402
from groundqa.programs.retriever import Retriever  # noqa: E402
from groundqa.runtime.guarded_lm import GuardedLM  # noqa: E402
from groundqa.signatures.types import Passage  # noqa: E402
from groundqa.store.chroma_store import CorpusStore  # noqa: E402

# DSPy 3.4 deprecates OpenAI-style messages= for LM wrappers (GuardedLM, MeteredLM forward what adapters pass).
pytestmark = pytest.mark.filterwarnings("ignore:Passing OpenAI-style message dictionaries:DeprecationWarning")

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "corpus.jsonl"
QUESTIONS = [
    Question(id="q1", question="Who designed the harbor lights of Port Vessany?", answers=["Odile Marchetti"],
             type="single", gold_docs=["harbor-lights"]),
    Question(id="q2", question="How long does the ferry crossing to Calder take?", answers=["50 minutes"],
             type="single", gold_docs=["vessany-ferry"]),
    Question(id="q3", question="What is the capital of Mongolia?", should_abstain=True, type="off_corpus"),
    Question(id="q4", question="Why did Paolo Marchetti design the harbor lights?", should_abstain=True,
             type="false_premise", false_premise="Paolo Marchetti designed the harbor lights"),
]
TRAIN = [
    Question(id="t1", question="When were Port Vessany's tidal harbor lights installed?", answers=["1987"],
             type="single", gold_docs=["harbor-lights"]),
    Question(id="t2", question="How many people live on Calder Island?", answers=["About 900", "900"],
             type="single", gold_docs=["calder-island"]),
    Question(id="t3", question="When did the Lorvin Maritime Library open?", answers=["1968"], type="single",
             gold_docs=["lorvin-library"]),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    store = CorpusStore(tmp_path_factory.mktemp("chroma"), collection="peers-test")
    store.ingest(load_corpus(DEMO).items, 400, 80)
    return store


def responder(messages: list[dict[str, str]]) -> dict[str, Any]:
    """Extractive cited answers; NOT IN SOURCES off corpus; a reasoning field when one is asked for."""
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    if "[[ ## advice ## ]]" in system:  # dspy.Refine's OfferFeedback
        return {"discussion": "The answer lacked citations.", "advice": {"predict": "Cite [n]."}}
    question = input_field(messages, "question")
    reply = extractive_reply(messages)
    answer = reply.get("answer", "") if isinstance(reply, dict) else ""
    if "Mongolia" in question or not answer:
        answer = "NOT IN SOURCES"
    fields: dict[str, Any] = {}
    if "[[ ## reasoning ## ]]" in system:
        fields["reasoning"] = "The passages say so."
    fields["answer"] = answer
    return fields


def configure(lm: Any) -> None:
    dspy.configure(lm=lm, adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))


# -- the peer programs -------------------------------------------------------------------------
def test_plain_rag_returns_a_scorable_prediction(store: CorpusStore) -> None:
    configure(ScriptedLM(responder))
    program = PlainRAG(Retriever(store, k=3))
    pred = program(question=QUESTIONS[0].question)
    assert isinstance(pred.answer, str) and re.search(r"\[[1-3]\]", pred.answer)
    assert len(pred.passages) == 3 and all(isinstance(p, Passage) for p in pred.passages)
    result = as_result(pred, question=QUESTIONS[0].question)
    assert result is not None and not result.abstained and result.passages == pred.passages
    item = score_item(QUESTIONS[0], pred)
    assert 0.0 < item.score <= 1.0 and item.citation_recall is not None

    refusal = program(question=QUESTIONS[2].question)
    assert score_item(QUESTIONS[2], refusal).abstained  # "NOT IN SOURCES" counts as an abstention


def test_refine_rag_retries_until_the_citations_are_valid(store: CorpusStore) -> None:
    calls = {"answer": 0}

    def uncited_first(messages: list[dict[str, str]]) -> dict[str, Any]:
        fields = responder(messages)
        if "answer" in fields:
            calls["answer"] += 1
            if calls["answer"] == 1:
                fields["answer"] = "The harbor lights were designed by an engineer from Lorvin."
        return fields

    lm = ScriptedLM(uncited_first)
    configure(lm)
    pred = RefineRAG(Retriever(store, k=3))(question=QUESTIONS[0].question)
    assert "[" in pred.answer and calls["answer"] == 2
    assert lm.calls == 3  # rollout 1, Refine's advice, rollout 2
    assert score_item(QUESTIONS[0], pred).score > 0


def test_citation_reward() -> None:
    block = number_passages([Passage(chunk_id="a", doc_id="a", text="One."), Passage(chunk_id="b", doc_id="b",
                                                                                      text="Two.")])
    args = {"question": "q", "passages": block}
    assert citation_reward(args, dspy.Prediction(answer="The lights were designed in 1987 [2].")) == 1.0
    assert citation_reward(args, dspy.Prediction(answer="The lights were designed in 1987 [3].")) == 0.0
    assert citation_reward(args, dspy.Prediction(answer="The lights were designed in 1987.")) == 0.0
    assert citation_reward(args, dspy.Prediction(answer="NOT IN SOURCES")) == 1.0
    assert citation_reward(args, dspy.Prediction(answer="")) == 0.0


# -- meters ----------------------------------------------------------------------------------
def test_metered_lm_counts_and_copies_without_touching_the_base() -> None:
    base = ScriptedLM(lambda messages: {"answer": "ok"})
    meter = Meter()
    lm = MeteredLM(base, meter)
    rollout = lm.copy(rollout_id=1, temperature=1.0)
    meter.begin()
    rollout(messages=[{"role": "user", "content": "hello"}])
    reading = meter.end()
    assert reading.lm_calls == 1 and reading.prompt_tokens > 0 and reading.completion_tokens > 0
    assert base.history[-1]["kwargs"]["temperature"] == 1.0 and base.history[-1]["kwargs"]["rollout_id"] == 1
    assert base.kwargs.get("temperature") != 1.0 and "rollout_id" not in base.kwargs and "rollout_id" not in lm.kwargs


def test_union_and_percentile() -> None:
    assert union_length([(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]) == pytest.approx(3.0)
    assert union_length([]) == 0.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0 and percentile([1.0, 2.0, 3.0, 4.0], 95) == 4.0
    assert percentile([], 50) is None


# -- the suites' cores -------------------------------------------------------------------------
def test_quality_core_on_a_scripted_lm(store: CorpusStore, home: Path) -> None:
    settings = load_settings(home=home, cache=False)
    questions = [QUESTIONS[0], QUESTIONS[2], QUESTIONS[3]]  # answerable, off corpus, false premise
    outcome = run_quality(ScriptedLM(responder), store, questions, TRAIN[:2], settings, config_lm="embedded",
                          progress=False)
    rows = {r["program"]: r for r in outcome["rows"]}
    assert list(rows) == list(PROGRAMS)
    for row in rows.values():
        assert row["n"] == len(questions)
        for key in ("score", "answerable_quality", "abstain_f1", "citation_precision", "citation_recall", "str_em",
                    "over_abstention_rate"):
            assert row[key] is None or 0.0 <= row[key] <= 1.0, (row["program"], key, row[key])
        if row["program"].startswith("GroundedQA"):  # it may answer from the passages without the LM
            assert (row["prompt_tokens_per_q"] > 0) == (row["lm_calls_per_q"] > 0)
        else:
            assert row["lm_calls_per_q"] > 0 and row["prompt_tokens_per_q"] > 0 and row["completion_tokens_per_q"] > 0
        assert row["retrievals_per_q"] > 0
        assert 0.0 <= row["overhead_share"] <= 1.0 and 0.0 <= row["overhead_share_union"] <= 1.0
        assert 0.0 <= row["judge_share"] <= 1.0 and row["judgments_per_q"] >= 0
        if not row["program"].startswith("GroundedQA"):  # the peers have no answer judge
            assert row["judgments_per_q"] == 0 and row["judge_share"] == 0.0
        assert row["latency_p50_s"] <= row["latency_p95_s"]
    assert rows["PlainRAG"]["figures_from"] == "meter" and rows["GroundedQA"]["figures_from"] == "trace"
    assert rows["PlainRAG"]["lm_calls_per_q"] == 1.0
    # the embedded default answers a close passage sentence without the LM, and refuses before it
    assert rows["GroundedQA"]["lm_calls_per_q"] < rows["PlainRAG"]["lm_calls_per_q"]
    # GroundedQA's own usage and the meter around the LM agree
    assert rows["GroundedQA"]["lm_calls_per_q"] == rows["GroundedQA"]["meter_lm_calls_per_q"]
    # premise verification costs retrievals
    assert rows["GroundedQA"]["retrievals_per_q"] >= rows["GroundedQA (no premises)"]["retrievals_per_q"]
    assert outcome["compile"]["train_questions"] == 2
    assert sum(rows["GroundedQA"]["modes"].values()) == len(questions) and not rows["PlainRAG"]["modes"]
    assert [r["id"] for r in outcome["records"]["RefineRAG"]] == [q.id for q in questions]

    result = quality_result(outcome, {"lm": "scripted"})
    assert {"title", "config", "results", "tables", "notes", "chart"} <= set(result)
    assert [t["title"] for t in result["tables"]] == ["Quality (3 questions)", "Cost per question",
                                                      "Composite by question type"]
    assert all(len(row) == len(result["tables"][0]["columns"]) for row in result["tables"][0]["rows"])
    assert set(result["chart"]["series"]) == {"composite", "abstention F1", "answerable quality"}
    assert any("answerable quality while beating them on abstention F1" in n for n in result["notes"])
    assert any("overhead < 5%" in n for n in result["notes"])
    assert any(n.startswith("Premise verification") for n in result["notes"])
    assert result["headline"][0].startswith("3 questions") and "PlainRAG: composite" in result["headline"][0]


def test_cache_core_serves_the_warm_run_from_the_caches(store: CorpusStore, home: Path, tmp_path: Path) -> None:
    settings = load_settings(home=home, cache=True)
    dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=str(tmp_path / "dspy"))
    configure(GuardedLM(ScriptedLM(responder, cache=True)))
    try:
        # the LM asked first: the embedded default answers these two from the passages, with no LM call to cache
        outcome = run_cache(settings, store, QUESTIONS[:2], tmp_path, progress=False, extractive_first=1.0)
    finally:
        dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    passes = outcome["passes"]
    assert passes["cold"]["lm_calls"] > 0 and passes["cold"]["lm_cache_hits"] == 0
    assert passes["warm"]["lm_cache_hits"] == passes["warm"]["lm_calls"]
    assert passes["warm_disk"]["lm_cache_hits"] == passes["warm_disk"]["lm_calls"]
    assert passes["warm"]["retrieval_cache_hits"] == passes["warm"]["retrievals"] > 0
    assert outcome["identical_warm"] == outcome["identical_disk"] == 2
    result = cache_result(outcome, {})
    assert len(result["tables"][0]["rows"]) == 3 and any("50×" in n for n in result["notes"])
    assert all(len(row) == len(result["tables"][0]["columns"]) for row in result["tables"][0]["rows"])
    assert "Judge readings" in result["tables"][0]["columns"]
    assert result["headline"][0].startswith("warm re-run") and "2/2" in result["headline"][0]


def test_suites_are_registered() -> None:
    from benchmarks.registry import load_suites

    suites = load_suites()
    assert {"quality", "quality-squad", "cache"} <= set(suites)
