"""The tuned answer judge: the shipped adapter, its veto in the extractive answer and its rescue of refusals."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from scripted_retrieval import ScriptedRetriever

from groundqa.judges import answer_judge
from groundqa.judges.answer_judge import SHIPPED, SHIPPED_SHA256, judge_prompt, shared_answer_judge
from groundqa.lm.errors import LMBackendError
from groundqa.lm.finetune.adapter import verify_adapter
from groundqa.programs.context import build_context
from groundqa.programs.extractive import extractive_answer
from groundqa.programs.gates import JUDGE_OFF, RESCUE_OFF, Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.rescue import rescue_answer
from groundqa.runtime.run import Budgets
from groundqa.signatures.types import Passage

MINE = Passage(chunk_id="m#0", doc_id="m", title="Lettice Colliery", score=0.7,
               text="The Lettice Colliery opened in 1871. Its winding engine was built in Leeds. "
                    "In 1909 the rescue brigade brought out forty-one survivors.")


def test_the_prompt_reads_title_context_and_question() -> None:
    prompt = judge_prompt("Lettice Colliery", "It opened in 1871.", "Its engine came from Leeds.", " Where? ")
    assert prompt == ("Lettice Colliery. It opened in 1871. Its engine came from Leeds.\nQuestion: Where?\n"
                      "Does the text answer the question? Answer:")


def test_the_shipped_adapter_is_pinned_and_checked(tmp_path: Path) -> None:
    assert verify_adapter(SHIPPED, SHIPPED_SHA256).sha256 == SHIPPED_SHA256
    damaged = tmp_path / "answer-judge.gguf"
    shutil.copy(SHIPPED, damaged)
    with damaged.open("r+b") as f:
        f.seek(-10, 2)
        f.write(b"\x00" * 10)
    with pytest.raises(LMBackendError, match="sha256"):
        verify_adapter(damaged, SHIPPED_SHA256)
    with pytest.raises(LMBackendError, match="not found"):
        shared_answer_judge(tmp_path / "missing.gguf")


def test_the_judge_gates_are_off_below_the_off_value_and_round_trip() -> None:
    gates = Gates(answer_judge=-2.0, answer_rescue=3.0, rescue_candidates=4)
    again = Gates(**gates.model_dump())
    assert (again.answer_judge, again.answer_rescue, again.rescue_candidates) == (-2.0, 3.0, 4)
    assert Gates().answer_judge <= JUDGE_OFF and Gates().answer_rescue >= RESCUE_OFF
    assert QAConfig.for_lm("embedded").gates.answer_rescue == 3.0  # the embedded default rescues
    assert QAConfig.for_lm("openai/gpt-4o-mini").gates.answer_rescue >= RESCUE_OFF
    # the embedded default reads the passages after a premise refusal (margin 2.0, session 53); a capable LM judges
    # premises itself, and the rescue is off until a calibration turns it on
    assert QAConfig.for_lm("embedded").gates.premise_rescue == 2.0
    assert QAConfig.for_lm("openai/gpt-4o-mini").gates.premise_rescue >= RESCUE_OFF


def test_a_sentence_the_judge_doubts_is_not_quoted() -> None:
    question = "When did the Lettice Colliery open?"
    context = build_context([MINE], 4000)
    asked_about: list[str] = []

    def doubts_everything(title: str, before: str, sentence: str, q: str) -> float:
        asked_about.append(sentence)
        return -5.0

    assert "1871" in extractive_answer(question, context, floor=0.0, answerability=0.6).answer
    vetoed = extractive_answer(question, context, floor=0.0, answerability=0.6, judge=doubts_everything,
                               judge_floor=-3.0)
    assert not vetoed.chosen and "answer judge" in vetoed.shortfall.missing[0]
    assert asked_about and vetoed.judged[0][1] == -5.0
    kept = extractive_answer(question, context, floor=0.0, answerability=0.6, judge=doubts_everything,
                             judge_floor=-6.0)
    assert "1871" in kept.answer


def test_a_rescue_quotes_the_sentence_the_judge_is_surest_of_above_its_gate() -> None:
    question = "How many people did the rescue brigade save in 1909?"
    context = build_context([MINE], 4000)

    def reads(title: str, before: str, sentence: str, q: str) -> float:
        return 4.0 if "survivors" in sentence else -2.0

    rescued = rescue_answer(question, context, reads, floor=3.0, candidates=6)
    assert rescued is not None and "forty-one" in rescued.answer and rescued.answer.endswith("[1]")
    assert rescued.support == pytest.approx(0.982, abs=1e-3)
    assert rescue_answer(question, context, reads, floor=4.5, candidates=6) is None
    assert rescue_answer(question, context, reads, floor=3.0, candidates=6, citable={2}) is None


def test_a_rescue_of_when_or_how_many_reads_only_sentences_with_a_value() -> None:
    page = Passage(chunk_id="l#0", doc_id="l", title="Lise Amberg", score=0.7,
                   text="Lise Amberg was a glass painter. Born in Ossendorf, she trained as a draughtswoman at the "
                        "Stellmark Glassworks. She died in Kelbrunn in 1921.")
    context = build_context([page], 4000)

    def reads(title: str, before: str, sentence: str, q: str) -> float:
        return 5.0 if "Born in" in sentence else -2.0

    # no sentence without a year answers "in what year", however surely the judge reads it
    assert rescue_answer("In what year was Lise Amberg born?", context, reads, floor=3.0, candidates=6) is None
    # where it is asked where, the same sentence is read; and where "when" opens a clause, not the question
    rescued = rescue_answer("Where was Lise Amberg born?", context, reads, floor=3.0, candidates=6)
    assert rescued is not None and "Ossendorf" in rescued.answer
    rescued = rescue_answer("When she was young, what did Lise Amberg train as?", context, reads, floor=3.0,
                            candidates=6)
    assert rescued is not None and "draughtswoman" in rescued.answer


def test_the_tuned_judge_tells_an_answer_from_a_topical_sentence() -> None:
    """The shipped adapter on the real embedded model in llama.cpp (sentences written for this test)."""
    judge = shared_answer_judge()
    question = "When did the Lettice Colliery open?"
    answer = judge.margin("Lettice Colliery", "", "The Lettice Colliery opened in 1871.", question)
    topical = judge.margin("Lettice Colliery", "The Lettice Colliery opened in 1871.",
                           "Its winding engine was built in Leeds.", question)
    assert answer > 0 > topical
    assert judge.margin("Lettice Colliery", "", "The Lettice Colliery opened in 1871.", question) == answer  # cached


def test_the_judgment_cache_keeps_the_most_recently_used() -> None:
    """A server answers for weeks: the judge's cache is bounded, least recently used dropped first."""
    judge = shared_answer_judge()
    size, kept = judge.cache_size, dict(judge._cache)
    try:
        judge._cache.clear()
        judge.cache_size = 2
        question = "When did the Lettice Colliery open?"
        first, second, third = (f"The Lettice Colliery opened in {year}." for year in (1871, 1872, 1873))
        for sentence in (first, second, first, third):  # first read again: second is the least recently used
            judge.margin("Lettice Colliery", "", sentence, question)
        assert [next(s for s in (first, second, third) if s in p) for p in judge._cache] == [first, third]
    finally:
        judge.cache_size = size
        judge._cache.clear()
        judge._cache.update(kept)


def test_the_embedded_default_rescues_a_refusal_the_judge_reads_as_an_answer(tmp_path: Path) -> None:
    """End to end on the real embedded model, its shipped judge and a real Chroma (documents written for this
    test): the rules refuse "What trade did … learn" against "served an apprenticeship as a millwright"; the judge
    quotes it, streamed as a ``rescue`` event; a question the passages do not answer stays refused."""
    from groundqa.datasets.loaders import Document
    from groundqa.programs.retriever import Retriever
    from groundqa.runtime.streaming import stream
    from groundqa.signatures.types import AbstainReason
    from groundqa.store.chroma_store import CorpusStore

    store = CorpusStore(tmp_path / "chroma")
    store.ingest([
        Document(id="tom", title="Tomas Wendle", text="Tomas Wendle was the colliery's chief engineer from 1890. "
                 "Before coming to Harnett he had served an apprenticeship as a millwright in Darby. He designed "
                 "the fan house of 1888."),
        Document(id="shaft", title="Lettice Shaft", text="The Lettice Shaft was sunk in 1871 to a depth of 310 "
                 "metres. Its winding engine was built in Leeds. The shaft closed in 1961."),
    ])
    question = "What trade did Tomas Wendle learn before joining the colliery?"
    off = GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded", answer_rescue=RESCUE_OFF)).run(question)
    assert off.abstain_reason is AbstainReason.NOT_ANSWERED
    program = GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))
    events = list(stream(program, question))
    result = events[-1].result
    assert result is not None and "millwright" in result.answer and result.citations[0].doc_id == "tom"
    rescue = next(e for e in events if e.type == "rescue")
    assert (rescue.model_extra or {})["margin"] >= 3.0 and (rescue.model_extra or {})["refusal"] == "not_answered"
    assert program.run("What was Tomas Wendle's annual salary?").abstain_reason is AbstainReason.NOT_ANSWERED


def test_the_shared_judge_checks_the_base_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving the base model hashes its 240 MB GGUF: done once per process, not per question."""
    import groundqa.lm.gemma as gemma

    shared_answer_judge()
    calls: list[Path] = []
    monkeypatch.setattr(gemma, "model_path", lambda folder: calls.append(folder) or pytest.fail("resolved again"))
    for _ in range(3):
        shared_answer_judge()
    assert not calls


def test_the_judge_runs_the_model_of_the_configured_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--home`` elsewhere: build_program points the judge at that home's model cache, where the LM's GGUF is."""
    import groundqa.judges.answer_judge as answer_judge
    import groundqa.lm.gemma as gemma
    from groundqa.app import build_program
    from groundqa.config import Settings

    asked: list[Path] = []
    monkeypatch.setattr(answer_judge, "_setup", None)
    monkeypatch.setattr(answer_judge, "_shared", {})
    monkeypatch.setattr(gemma, "model_path", lambda folder: asked.append(folder) or (_ for _ in ()).throw(
        LMBackendError("stop here")))
    settings = Settings(home=tmp_path / "elsewhere", lm_threads=1)
    build_program(settings)
    with pytest.raises(LMBackendError, match="stop here"):
        shared_answer_judge()
    assert asked == [settings.cache_dir] and answer_judge._setup.threads == 1


ROV = [("rov", "Marrowdeep", "Marrowdeep is a remotely operated vehicle built for the Carrowmede Institute in 2016. "
        "The vehicle weighs 3.6 tonnes, is rated to a depth of 4,000 metres and carries two manipulator arms. "
        "It is launched over the stern of the research ship."),
       ("ship", "RV Ellen Strand", "The RV Ellen Strand is the institute's research ship, built in 1979 at Brannock. "
        "She is 62 metres long and has berths for 24 scientists.")]


def _rov_program(tmp_path: Path, **config: Any) -> GroundedQA:
    from groundqa.datasets.loaders import Document
    from groundqa.programs.retriever import Retriever
    from groundqa.store.chroma_store import CorpusStore

    store = CorpusStore(tmp_path / "chroma")
    store.ingest([Document(id=i, title=t, text=x) for i, t, x in ROV])
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded", **config))


def test_a_premise_refusal_is_overturned_only_by_a_sentence_the_judge_reads_as_the_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules find no passage for the presupposition of "how deep can the ROV Marrowdeep go" (premise_unsupported);
    with ``premise_rescue`` on, a sentence the (scripted) judge reads as the answer is quoted, cited, with no abstain
    reason left; one it doubts leaves the premise refusal as it was."""
    from groundqa.signatures.types import AbstainReason

    question = "how deep can the ROV Marrowdeep go"
    off = _rov_program(tmp_path, premise_rescue=RESCUE_OFF).run(question)
    assert off.abstain_reason is AbstainReason.PREMISE_UNSUPPORTED  # the rules' refusal

    def reads(title: str, before: str, sentence: str, q: str) -> float:
        return 1.0 if "4,000 metres" in sentence else -3.0

    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: reads))
    program = _rov_program(tmp_path, premise_rescue=0.0)
    result = program.run(question)
    assert not result.abstained and result.abstain_reason is None and result.abstain_message == ""
    assert "4,000 metres" in result.answer and result.citations[0].doc_id == "rov"
    rescue_note = "would have refused (premise_unsupported)"
    assert any(rescue_note in n for n in result.notes)
    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: lambda *a: -3.0))
    doubted = program.run(question)
    assert doubted.abstain_reason is AbstainReason.PREMISE_UNSUPPORTED and doubted.abstain_message == off.abstain_message
    assert not doubted.answer and not doubted.citations
    # with too little of the retrieval budget left for the question's own retrievals, the refusal stands (never
    # a stopped run)
    monkeypatch.setattr(GroundedQA, "_answer_judge", staticmethod(lambda: reads))
    tight = _rov_program(tmp_path, premise_rescue=0.0, budgets=Budgets(max_retrievals=4)).run(question)
    assert tight.abstain_reason is AbstainReason.PREMISE_UNSUPPORTED and tight.exit_reason.value == "COMPLETED"
    assert any("retrieval budget" in n for n in tight.notes)


def test_the_shipped_judge_answers_a_look_up_the_premise_rules_refused(tmp_path: Path) -> None:
    """End to end on the real embedded model and its shipped judge (documents written for this test), at the embedded
    default (``premise_rescue`` 2.0) and at -0.5: the look-up is answered from the passage that states the depth; a
    question whose premise the corpus does not hold (what the vehicle cost) and one whose premise a passage
    contradicts stay refused; with the rescue off the look-up is refused, as the rules alone read it."""
    assert _rov_program(tmp_path, premise_rescue=RESCUE_OFF).run("how deep can the ROV Marrowdeep go").abstained
    for margin in (2.0, -0.5):
        program = _rov_program(tmp_path) if margin == 2.0 else _rov_program(tmp_path, premise_rescue=margin)
        assert program.gates.premise_rescue == margin
        result = program.run("how deep can the ROV Marrowdeep go")
        assert not result.abstained and "4,000 metres" in result.answer
        assert program.run("How much did the ROV Marrowdeep cost to build?").abstained
        contradicted = program.run("Why was the RV Ellen Strand built in Lorvin in 1979?")
        assert contradicted.abstained and contradicted.abstain_reason is not None


def test_warm_up_loads_the_judge_only_where_a_gate_asks_for_it() -> None:
    assert QAConfig.for_lm("embedded").gates.ask_judge and not Gates().ask_judge
    assert Gates(answer_rescue=3.0).ask_judge and Gates(answer_judge=0.0).ask_judge
    assert not QAConfig.for_lm("openai/gpt-4o-mini").gates.ask_judge
    other = GroundedQA(ScriptedRetriever([]), QAConfig.for_lm("openai/gpt-4o-mini"))  # type: ignore[arg-type]
    assert other.warm_up() == ["wordnet"]
    embedded = GroundedQA(ScriptedRetriever([]), QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    assert embedded.warm_up() == ["wordnet", "answer judge"] and SHIPPED in answer_judge._shared


def test_after_a_premise_refusal_a_sentence_that_denies_something_is_not_read() -> None:
    """Session 53: "Brunnfeld has *never had* its own hospital; …" denies what "Which ward of Brunnfeld's hospital
    treats injured climbers?" takes for granted. The rescue after a premise refusal (``denials=False``) does not read
    it; the rescue of a ``not_answered`` refusal still may."""
    question = "Which ward of Brunnfeld's hospital treats injured climbers?"
    town = Passage(chunk_id="b#0", doc_id="b", title="Brunnfeld", score=0.7,
                   text="Brunnfeld has never had its own hospital; injured climbers are taken to the cantonal hospital "
                        "46 km down the valley.")
    context = build_context([town], 4000)

    def reads_everything(title: str, before: str, sentence: str, q: str) -> float:
        return 4.0

    assert rescue_answer(question, context, reads_everything, 2.0, 6) is not None
    assert rescue_answer(question, context, reads_everything, 2.0, 6, denials=False) is None
