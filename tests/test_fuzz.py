"""Nothing escapes: a seeded fuzz of 2,000 runs (questions x malformed LM replies over a real Chroma store,
the harness of ``python -m benchmarks run --suite fuzz``), regression tests of what earlier fuzzing found
(lone surrogates, an LM planner answering garbage), and hypothesis properties of the question pre-contract
and the citation parser."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import dspy
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from groundqa.lm.scripted import ScriptedLM
from groundqa.programs.citations import analyse
from groundqa.programs.grounded_qa import GroundedQA, QAConfig, check_question
from groundqa.programs.retriever import Retriever
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.runtime.retrieval_cache import RetrievalCache, cache_key
from groundqa.runtime.trace import Trace
from groundqa.signatures.types import AbstainReason, ExitReason
from groundqa.text import MAX_CITATIONS, citation_numbers, strip_citations

_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:  # benchmarks/ is not an installed package
    sys.path.insert(0, _REPO)

from benchmarks.fuzz import DOCUMENTED_EXIT_REASONS, REPLY_KINDS, build_store, run_fuzz  # noqa: E402

LM_FIRST = {"extractive_first": 1.0}  # the LM is asked first: these tests exercise its path

FUZZ_RUNS = 2000
GOOD = {"answer": "The harbor lights were designed by engineer Odile Marchetti [1]."}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_store(tmp_path_factory.mktemp("fuzz") / "chroma")


def test_fuzz_nothing_escapes_and_every_result_holds(store):
    started = time.perf_counter()
    report = run_fuzz(FUZZ_RUNS, seed=2026, store=store)
    seconds = time.perf_counter() - started
    print(f"\nfuzz: {report.tried} runs in {seconds:.1f}s, {report.escaped} escaped, {report.lm_calls} LM calls; "
          f"{dict(report.by_exit_reason.most_common())}")
    assert report.tried == FUZZ_RUNS
    assert report.escaped == 0, report.escapes[:5]
    assert report.violations == [], report.violations[:5]
    assert set(report.by_exit_reason) <= DOCUMENTED_EXIT_REASONS
    assert len(REPLY_KINDS) >= 20 and set(report.reply_kinds) == set(REPLY_KINDS)  # every kind was served
    # the fuzz reaches the pre-contract, the pipeline's end and the LM failures alike
    assert {"COMPLETED", "INVALID_INPUT", "EMPTY_INPUT", "LM_ERROR", "LM_GENERATION_FAILURE"} <= set(
        report.by_exit_reason)
    assert report.by_mode["generated"] and report.by_mode["extractive"]


def test_a_giant_citation_number_is_no_citation():
    """Found by the fuzz: int() of a 5,000-digit citation raised (Python's limit on int conversion)."""
    assert citation_numbers("Odile Marchetti designed them [" + "9" * 5000 + "].") == []
    assert citation_numbers("Designed in 1931 [2][10].") == [2, 10]


# -- regressions ------------------------------------------------------------------------------------
def program(store: Any, responder: Any = lambda m: GOOD, cache: bool = True, **config: Any) -> GroundedQA:
    dspy.configure(lm=GuardedLM(ScriptedLM(responder)), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    retriever = Retriever(store, k=3, cache=RetrievalCache() if cache else None)
    return GroundedQA(retriever, QAConfig.for_lm("embedded", **{**LM_FIRST, **config}))


@pytest.mark.parametrize("cache", [True, False])
def test_a_question_with_a_lone_surrogate_is_invalid_input_and_never_raises(store, cache):
    qa = program(store, lambda m: pytest.fail("no LM call for invalid input"), cache=cache)
    for question in ("Who designed the harbor\ud800 lights?", "\udcff\udcfe"):
        trace = Trace(question=question)
        result = qa.run(question, trace=trace)
        assert result.exit_reason is ExitReason.INVALID_INPUT and "not valid Unicode" in result.abstain_message
        result.model_dump_json().encode("utf-8")
        json.dumps(trace.to_dict(), ensure_ascii=False).encode("utf-8")
    assert cache_key("Who\ud800?", 3, "c", "m", 1) != cache_key("Who\udfff?", 3, "c", "m", 1)


def test_an_lm_reply_with_lone_surrogates_is_answered_and_encodes(store):
    qa = program(store, lambda m: "[[ ## answer ## ]]\nThe harbor lights were designed by engineer Odile \ud800"
                                  "Marchetti [1].\n\n[[ ## completed ## ]]")
    result = qa.run("Who designed the harbor lights of Port Vessany?")
    assert not result.abstained and "\ufffd" in result.answer
    result.model_dump_json().encode("utf-8")


@pytest.mark.parametrize("reply", ["<<<%%% not the expected format %%%>>>", "", "[[ ## sub_questions ## ]]\n{'a': 1",
                                   "[[ ## sub_questions ## ]]\n42\n\n[[ ## completed ## ]]"])
def test_a_garbage_plan_from_the_lm_falls_back_to_the_heuristic_planner(store, reply):
    def respond(messages: list[dict[str, str]]) -> Any:
        return reply if "sub_questions" in messages[0]["content"] else GOOD

    qa = program(store, respond, multi_hop="lm", verify_premises=False)
    result = qa.run("Who designed the harbor lights and how long does the ferry crossing take?")
    assert result.exit_reason is ExitReason.COMPLETED
    assert any("used the heuristic planner" in note for note in result.notes)
    assert result.usage.retrieval_calls >= 3  # the question and the heuristic's two sub-queries


def test_a_planner_failure_that_ends_the_run_is_not_swallowed(store):
    from groundqa.lm.scripted import faults

    qa = program(store, faults(["429"] * 8), multi_hop="lm", verify_premises=False,
                 budgets={"backoff_base_s": 0, "backoff_max_s": 0})
    result = qa.run("Who designed the harbor lights and how long does the ferry crossing take?")
    assert result.exit_reason is ExitReason.RATE_LIMITED and result.abstain_reason is AbstainReason.RUN_STOPPED


# -- properties -------------------------------------------------------------------------------------
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.one_of(st.text(), st.text(alphabet=st.characters(codec=None)), st.binary(), st.none(), st.integers(),
                 st.lists(st.text(max_size=5), max_size=3)),
       st.integers(min_value=10, max_value=2000))
def test_pre_contract_property(question, max_chars):
    problem = check_question(question, max_chars)
    if problem is None:  # accepted: text UTF-8 can carry, within the limit, with a word, no control characters
        assert isinstance(question, str) and question.strip() and len(question) <= max_chars
        question.encode("utf-8")
        assert any(c.isalnum() for c in question)
        assert not any(ord(c) < 32 and c not in "\t\n\r" for c in question)
    else:
        reason, message = problem
        assert reason in (ExitReason.EMPTY_INPUT, ExitReason.INVALID_INPUT)
        assert message and "\n" not in message
        message.encode("utf-8")
    if isinstance(question, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in question) and question.strip():
        assert problem is not None and problem[0] is ExitReason.INVALID_INPUT


_MARK = st.integers(min_value=-3, max_value=150).map(lambda n: f"[{n}]")
_PIECE = st.one_of(st.text(max_size=12), _MARK, st.sampled_from([". ", "[[", "]]", "[", "]", "\n\n", "- ", "[ 1 ]",
                                                                 "[1.5]", "[١]", "? ", "! "]))


@PROPERTY
@given(st.lists(_PIECE, max_size=25).map("".join), st.integers(min_value=0, max_value=12))
@example("[0[0]]", 0)  # found by this test: removing the inner mark closed the outer one
def test_citation_parser_property(answer, n_passages):
    checks = analyse(answer, n_passages)
    assert [c.index for c in checks] == list(range(len(checks)))
    for check in checks:
        numbers = citation_numbers(check.text)
        assert check.cited == [m for m in numbers[:MAX_CITATIONS] if 1 <= m <= n_passages]
        assert check.out_of_range == [m for m in numbers if not 1 <= m <= n_passages]
        assert check.ignored == numbers[MAX_CITATIONS:]
        assert check.valid == (not check.out_of_range and (bool(check.cited) or not check.factual))
        assert citation_numbers(strip_citations(check.text)) == []  # the hypothesis holds no citation mark


@PROPERTY
@given(st.lists(st.integers(min_value=0, max_value=10**6), max_size=8), st.text(alphabet="abc .", max_size=20))
def test_citation_numbers_are_read_in_order_without_duplicates(numbers, text):
    sentence = text + "".join(f"[{n}]" for n in numbers)
    assert citation_numbers(sentence) == list(dict.fromkeys(numbers))
