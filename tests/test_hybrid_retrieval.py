"""Hybrid retrieval: BM25's best chunks beside the dense hits, and what a look-up asks about read by its words.

MiniLM ranks a chunk by what it is about; a chunk that shares the question's rare words but not its topic can miss
the dense top hits (on SQuAD's training articles the gold passage is among the program's 4 passages for 278 of 300
answerable questions; with BM25's best chunk in the re-ranked pool, 288). Unit tests of the index; the store's
lexical query on a real persistent Chroma with real MiniLM embeddings (scored on the dense scale); what the
retriever and the program ask for; what a look-up asks about, found by its words where the dense hits do not say it
(one sentence must say every word); and the offline judge's reading of a negated passage.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from scripted_retrieval import ScriptedRetriever, passage

from groundqa.datasets.loaders import Document
from groundqa.judges.offline import NEGATION_MISMATCH, OfflineJudge
from groundqa.programs.gates import Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.premises import PremiseVerifier
from groundqa.programs.retriever import Retriever, analyze
from groundqa.signatures.qa import Presupposition
from groundqa.signatures.types import Passage
from groundqa.store.chroma_store import CorpusStore
from groundqa.store.lexical_index import LexicalIndex

TEXTS = {
    "a": "The harbour master keeps the tide tables for Port Vessany.",
    "b": "Superheaters raise the temperature of the steam above its saturated vapour point.",
    "c": "The steam engine drove the mills; steam engines drove the steam ships.",
    "d": "Gulls nest on the harbour wall every spring.",
}


def _index() -> LexicalIndex:
    return LexicalIndex.build(list(TEXTS), list(TEXTS.values()), analyze)


def test_bm25_ranks_the_chunk_with_the_rare_words_first() -> None:
    hits = _index().search("Which components raise steam above its saturated vapor point?", 4)
    assert [cid for cid, _ in hits][:2] == ["b", "c"]  # "saturated", "point" are rarer than "steam"
    assert hits[0][1] > hits[1][1] > 0


def test_bm25_leaves_out_excluded_chunks_and_chunks_sharing_no_word() -> None:
    index = _index()
    assert [cid for cid, _ in index.search("saturated steam", 4, exclude=frozenset({"b"}))] == ["c"]
    assert index.search("quantum chromodynamics", 4) == []
    assert index.search("steam", 0) == []
    assert LexicalIndex.build([], [], analyze).search("steam", 3) == []


def test_words_meet_across_inflections() -> None:
    assert analyze("atoms passing") == analyze("atom passes")


@pytest.fixture
def store(tmp_path: Path) -> CorpusStore:
    store = CorpusStore(tmp_path / "chroma")
    store.ingest([Document(id=cid, title=f"Page {cid}", text=text) for cid, text in TEXTS.items()])
    return store


def test_the_store_scores_lexical_hits_on_the_dense_scale(store: CorpusStore) -> None:
    question = "What raises steam above its saturated vapour point?"
    dense = {p.chunk_id: p.score for p in store.query(question, k=4)}
    found = store.lexical_query(question, 2, analyze)
    assert [p.doc_id for p in found] == ["b", "c"]
    assert all(p.score == pytest.approx(dense[p.chunk_id], abs=1e-4) for p in found)  # cosine, as query() gives
    assert found[0].title == "Page b" and "Superheaters" in found[0].text
    excluded = store.lexical_query(question, 2, analyze, exclude=[found[0].chunk_id])
    assert [p.doc_id for p in excluded] == ["c"]


def test_the_lexical_index_follows_ingestion(store: CorpusStore) -> None:
    assert store.lexical_query("trunnion mounting", 1, analyze) == []
    store.ingest([Document(id="e", title="Oscillating cylinders", text="The cylinder swings on a trunnion mounting.")])
    assert [p.doc_id for p in store.lexical_query("trunnion mounting", 1, analyze)] == ["e"]


def test_the_retriever_adds_what_the_dense_search_left_out(store: CorpusStore) -> None:
    retriever = Retriever(store)
    question = "When do gulls nest on the harbour wall?"
    dense = retriever.retrieve(question, 1)
    both = retriever.retrieve(question, 1, lexical=2)
    assert [p.doc_id for p in dense] == ["d"]
    assert both[:1] == dense and [p.doc_id for p in both[1:]] == ["a"]  # the one other chunk saying "harbour"


def test_the_program_asks_for_bm25_hits_beside_its_dense_pool() -> None:
    retriever = ScriptedRetriever([passage("a", 0.5), passage("b", 0.4)])
    program = GroundedQA(retriever, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    program._retrieve("What raises steam above its saturated vapour point?")
    assert retriever.lexical == [Gates().lexical_pool] and Gates().lexical_pool >= 1
    off = ScriptedRetriever([passage("a", 0.5)])
    GroundedQA(off, QAConfig.for_lm("embedded", lexical_pool=0))._retrieve("anything")  # type: ignore[arg-type]
    assert off.lexical == [0]


class _HybridScripted(ScriptedRetriever):
    """Dense hits that do not say the claim; BM25 adds ``extra`` when asked for chunks beside them."""

    def __init__(self, extra: str) -> None:
        super().__init__([passage("gulls", 0.5, "Gulls nest on the harbour wall.", title="Gulls")])
        self.extra = passage("astro", 0.2, extra, title="Force")

    def retrieve(self, query: str, k: int, contains: Sequence[str] = (), lexical: int = 0) -> list[Passage]:
        return super().retrieve(query, k, contains, lexical) + ([self.extra] if lexical else [])


ASTRONAUTS = Presupposition(claim="astronaughts experience while in free-fall", kind="event", role="asked")


def test_what_a_look_up_asks_about_is_looked_up_by_its_words_where_the_dense_hits_do_not_say_it() -> None:
    retriever = _HybridScripted("This is why astronauts experience weightlessness when in free-fall orbit.")
    verifier = PremiseVerifier(retriever, extractor="heuristic", judge="offline")  # type: ignore[arg-type]
    verdict = verifier.verify(ASTRONAUTS)
    assert verdict.supported and verdict.evidence == ["astro"] and "found by its words" in verdict.rationale
    assert retriever.lexical == [0, Gates().lexical_pool]  # dense first; BM25 only for a claim they do not carry
    off = PremiseVerifier(_HybridScripted("This is why astronauts experience weightlessness when in free-fall."),
                          extractor="heuristic", judge="offline")  # type: ignore[arg-type]
    assert not off.verify(ASTRONAUTS, Gates(lexical_pool=0)).supported


def test_words_spread_over_sentences_or_denied_are_no_support() -> None:
    spread = _HybridScripted("Astronauts train for years. Many experience nausea while in free-fall.")
    denied = _HybridScripted("Astronauts never experience anything while in free-fall.")
    for retriever in (spread, denied):
        verifier = PremiseVerifier(retriever, extractor="heuristic", judge="offline")  # type: ignore[arg-type]
        assert not verifier.verify(ASTRONAUTS).supported


CLAIM = "atoms from passing through each other"
NEGATED = "Pauli: The Pauli exclusion principle does not permit atoms to pass through each other."


def test_a_negated_passage_is_near_a_claim_without_polarity() -> None:
    judge = OfflineJudge(use_embeddings=False)
    assert NEGATION_MISMATCH in judge.judge(CLAIM, [NEGATED]).rationale
    near = judge.judge(CLAIM, [NEGATED], polarity=False)
    assert NEGATION_MISMATCH not in near.rationale and near.support > judge.judge(CLAIM, [NEGATED]).support
    # a claim that itself denies still needs a passage that denies
    assert NEGATION_MISMATCH in judge.judge("atoms never pass through each other",
                                            ["Atoms pass through each other."], polarity=False).rationale


def test_only_a_relation_that_means_not_is_read_without_polarity() -> None:
    hit = passage("pauli", 0.6, NEGATED.split(": ", 1)[1], title="Pauli")
    verifier = PremiseVerifier(ScriptedRetriever([hit]), extractor="heuristic", judge="offline")  # type: ignore[arg-type]
    prevented = verifier.verify(Presupposition(claim=CLAIM, kind="event", role="asked"))
    assert prevented.supported and NEGATION_MISMATCH not in prevented.rationale
    plain = verifier.verify(Presupposition(claim="atoms pass through each other", kind="event", role="asked"))
    assert NEGATION_MISMATCH in plain.rationale


def test_the_benchmarks_metered_retriever_passes_hybrid_retrieval_through(store: CorpusStore) -> None:
    from benchmarks.meters import Meter, MeteredRetriever

    meter = Meter()
    meter.begin()
    retriever = MeteredRetriever(store, meter)
    question = "When do gulls nest on the harbour wall?"
    assert [p.doc_id for p in retriever.retrieve(question, 1, lexical=2)] == ["d", "a"]
    assert [p.doc_id for p in retriever.retrieve(question, 4, contains=("Superheaters",))] == ["b"]
    assert meter.end().retrievals == 2
