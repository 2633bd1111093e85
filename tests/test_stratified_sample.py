"""``stratified_sample``: the seeded, type-stratified question sampler used by experiments and benchmarks."""

from __future__ import annotations

from collections import Counter

from groundqa.datasets.loaders import Question
from groundqa.experiment_data import stratified_sample

SIZES = {"single": 30, "multi": 10, "unanswerable": 3, "off_corpus": 1}
QUESTIONS = [Question(id=f"{kind}-{i}", question=f"{kind} question {i}?", type=kind)
             for kind, n in SIZES.items() for i in range(n)]


def test_every_type_is_represented_within_the_limit() -> None:
    for limit in (4, 5, 8, 20):
        chosen = stratified_sample(QUESTIONS, limit, seed=0)
        assert len(chosen) == limit
        assert set(Counter(q.type for q in chosen)) == set(SIZES)
        assert len({q.id for q in chosen}) == limit and all(q in QUESTIONS for q in chosen)


def test_rare_types_are_not_crowded_out_by_a_common_one() -> None:
    counts = Counter(q.type for q in stratified_sample(QUESTIONS, 12, seed=3))
    assert counts == {"single": 4, "multi": 4, "unanswerable": 3, "off_corpus": 1}  # round-robin across types


def test_keeps_the_original_order() -> None:
    chosen = stratified_sample(QUESTIONS, 10, seed=1)
    positions = [QUESTIONS.index(q) for q in chosen]
    assert positions == sorted(positions)


def test_deterministic_for_a_seed() -> None:
    first = [q.id for q in stratified_sample(QUESTIONS, 9, seed=7)]
    assert [q.id for q in stratified_sample(list(QUESTIONS), 9, seed=7)] == first
    assert any([q.id for q in stratified_sample(QUESTIONS, 9, seed=s)] != first for s in range(8, 12))


def test_no_limit_or_a_large_limit_returns_everything() -> None:
    assert stratified_sample(QUESTIONS, None, seed=0) == QUESTIONS
    assert stratified_sample(QUESTIONS, len(QUESTIONS), seed=0) == QUESTIONS
    assert stratified_sample(QUESTIONS, 1000, seed=0) == QUESTIONS


def test_does_not_mutate_its_input() -> None:
    before = list(QUESTIONS)
    stratified_sample(QUESTIONS, 6, seed=2)
    assert before == QUESTIONS
