"""Smoke tests of the benchmark suites: tiny sizes, structure and sanity of the results, no timing thresholds."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

# `benchmarks/` lives at the repository root and is not an installed package: make it importable
# however pytest is started (`python -m pytest` adds the cwd, the `pytest` script does not).
_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

from benchmarks import registry  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402
from benchmarks.report import code_roots, markdown_table, mixed_trees, render_markdown, render_summary  # noqa: E402
from benchmarks.retrieval import generate_corpus, run_retrieval, tables  # noqa: E402


def test_generate_corpus_is_exact_and_deterministic() -> None:
    from groundqa.store.chunking import chunk_text

    docs = generate_corpus(120, seed=5)
    again = generate_corpus(120, seed=5)
    assert [d.text for d in docs] == [d.text for d in again]
    assert sum(len(chunk_text(d.id, d.text, 600, 120)) for d in docs) == 120
    assert len({d.id for d in docs}) == len(docs)


@pytest.fixture(scope="module")
def tiny_retrieval() -> dict[str, Any]:
    return run_retrieval(
        n_chunks=300, scale_to=450, n_queries=15, embed_sentences=40, embed_chunks=16, seed=3,
        show_progress=False, log=lambda _message: None, pdf_files=2, pdf_pages_per_file=2,
    )


def test_retrieval_result_has_sane_figures(tiny_retrieval: dict[str, Any]) -> None:
    result = tiny_retrieval
    assert set(result) >= {"config", "embedding", "scales"}
    for kind in ("sentences", "chunks"):
        assert result["embedding"][kind]["per_s"] > 0
    small, big = result["scales"]
    assert small["chunks"] == 300 and big["chunks"] == 450

    ingest = small["ingest"]
    assert ingest["chunks_added"] == 300 and ingest["chunks_per_s"] > 0

    reingest = small["reingest"]
    assert reingest["chunks_added"] == 0 and reingest["chunks_removed"] == 0
    assert reingest["chunks_unchanged"] == 300
    assert reingest["chunks_after"] == reingest["chunks_before"] == 300
    assert reingest["count_unchanged"] is True and reingest["seconds"] > 0

    assert big["fill"]["chunks_added"] == 150 and big["fill"]["chunks_per_s"] > 0
    alternatives = {a["variant"]: a for a in result["embedding"]["alternatives"]}
    assert set(alternatives) == {"bfloat16 weights", "int8 dynamic quantisation"}
    for alt in alternatives.values():
        assert alt["items"] == 16 and alt["per_s"] > 0 and -1.0 <= alt["min_cosine"] <= 1.0
    # bfloat16 weights stay close to float32; int8 moves vectors visibly further (why neither is used)
    assert alternatives["bfloat16 weights"]["min_cosine"] > alternatives["int8 dynamic quantisation"]["min_cosine"]
    for scale in (small, big):
        assert scale["query"]["mean_hits"] == 4
        for path in ("with_embedding", "search_only", "chroma_only"):
            figures = scale["query"][path]
            assert figures["n"] == 15
            assert figures["p95_ms"] >= figures["p50_ms"] > 0
            assert figures["per_s"] > 0


def test_retrieval_measures_pdf_ingestion(tiny_retrieval: dict[str, Any]) -> None:
    pdf = tiny_retrieval["pdf"]
    assert (pdf["files"], pdf["pages"], pdf["errors"]) == (2, 4, 0)
    assert pdf["chunks"] == pdf["chunks_expected"] >= pdf["pages"]
    assert pdf["pages_per_s"] > 0 and pdf["chunks_per_s"] > 0 and pdf["read_pages_per_s"] > 0
    assert (pdf["reingest_files_unchanged"], pdf["reingest_chunks_added"]) == (2, 0)


def test_retrieval_tables_render(tiny_retrieval: dict[str, Any]) -> None:
    rendered = [markdown_table(t["columns"], t["rows"]) for t in tables(tiny_retrieval)]
    assert len(rendered) == 2
    assert "Re-ingest" in rendered[0] and "unchanged" in rendered[0]
    assert "PDF ingest" in rendered[0] and "pages/s" in rendered[0]
    assert rendered[1].count("\n") == 1 + len(tiny_retrieval["scales"])


def test_runner_writes_json_markdown_and_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake_suite(args: argparse.Namespace) -> dict[str, Any]:
        """A stand-in suite."""
        return {
            "title": "Fake",
            "tables": [{"title": "t", "columns": ["Item", "Rate (items/s)"], "rows": [["a", 12.345], ["b", 1500.0]]}],
            "notes": ["quick" if args.quick else "full"],
            "chart": [{"title": "c", "ylabel": "items/s", "series": {"rate": {"a": 12.345, "b": 1500.0}}}],
        }

    registry.load_suites()
    monkeypatch.setitem(registry.SUITES, "fake", fake_suite)
    assert main(["run", "--suite", "fake", "--quick", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "fake.json").read_text(encoding="utf-8"))
    assert data["suite"] == "fake" and data["quick"] is True and data["seconds"] >= 0
    assert "environment" in data and data["environment"]["cpus"] and data["environment"]["cpu_model"]
    markdown = (tmp_path / "fake.md").read_text(encoding="utf-8")
    assert "| a | 12.3 |" in markdown and "| b | 1,500 |" in markdown
    assert (tmp_path / "fake.png").stat().st_size > 0
    assert "## Fake" in capsys.readouterr().out
    assert render_markdown(data).startswith("## Fake")


def test_the_machine_line_names_the_cpu_and_the_instruction_sets_llama_cpp_was_built_for() -> None:
    # another build of llama.cpp (AVX2 against AVX-512 kernels) rounds otherwise: a report says which one measured
    env = {"cpus": 2, "platform": "Linux", "python": "3.11", "cpu_model": "AMD EPYC", "llama_cpp_cpu": "AVX2 FMA"}
    line = render_markdown({"title": "x", "environment": env, "seconds": 1.0}).splitlines()[2]
    assert "CPU: AMD EPYC" in line and "llama.cpp built for AVX2 FMA" in line and "Answer judge" not in line
    # so does the answer judge's adapter merged into the weights against the same adapter applied at run time
    env["answer_judge"] = "answer-judge.gguf merged, q8_0-v1"
    line = render_markdown({"title": "x", "environment": env, "seconds": 1.0}).splitlines()[2]
    assert line.endswith("Answer judge: answer-judge.gguf merged, q8_0-v1.")


def test_a_run_says_when_its_rules_come_from_another_tree_than_its_core() -> None:
    # an editable install serves groundqa.programs from the tree it was installed from, whatever checkout runs
    roots = code_roots()
    assert set(roots) >= {"groundqa", "groundqa.programs"} and mixed_trees(roots) is None
    assert mixed_trees({"groundqa": "/a/groundqa", "groundqa.programs": "/a/programs"}) is None  # the project layout
    assert mixed_trees({"groundqa": "/a/py/groundqa", "groundqa.programs": "/a/py/groundqa/programs"}) is None
    warning = mixed_trees({"groundqa": "/snap/groundqa", "groundqa.programs": "/work/programs"})
    assert warning is not None and "groundqa.programs from /work/programs" in warning


def test_suites_are_registered() -> None:
    suites = registry.load_suites()
    assert {"retrieval", "lm", "selection", "judge"} <= set(suites)


def test_the_judge_suite_reads_judge_prompts_and_reports_ratios_to_the_run_time_adapter() -> None:
    from benchmarks.judge_speed import headline, judge_prompts, tables

    prompts = judge_prompts(3, seed=13)
    assert prompts == judge_prompts(3, seed=13) and len(set(prompts)) == 3
    assert all(p.endswith("\nDoes the text answer the question? Answer:") and "\nQuestion: " in p for p in prompts)
    rows = [{"engine": e, "ms_per_judgment": ms, "ms_spread": [ms, ms], "vs_applied": ms / 200}
            for e, ms in (("merged", 160.0), ("applied", 200.0), ("base", 150.0))]
    results = {"rows": rows, "mean_prompt_tokens": 72.0}
    table = tables(results)[0]
    assert table["rows"][0][-1] == "0.80" and table["rows"][1][-1] == "1.00" and "72-token" in table["title"]
    assert headline(results) == ["answer judge ms per judgment: merged 160, run-time adapter 200 (×0.80), base model 150"]


def test_all_writes_a_summary_with_headlines_and_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import benchmarks.__main__ as runner

    def good(args: argparse.Namespace) -> dict[str, Any]:
        """Good."""
        return {"title": "Good", "tables": [], "headline": ["warm re-run 80× faster"]}

    def plain(args: argparse.Namespace) -> dict[str, Any]:
        """No headline."""
        return {"title": "Plain", "tables": [{"title": "Only table", "columns": ["x"], "rows": [[1]]}]}

    def broken(args: argparse.Namespace) -> dict[str, Any]:
        """Fails."""
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "load_suites", lambda: {"good": good, "plain": plain, "broken": broken})
    assert runner.main(["run", "--suite", "all", "--quick", "--out", str(tmp_path)]) == 1
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "warm re-run 80× faster" in summary and "Only table" in summary
    assert "Failed: broken" in summary
    data = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert set(data["suites"]) == {"good", "plain"} and data["failed"] == ["broken"] and data["quick"] is True


def test_summary_reports_the_time_target() -> None:
    results = [{"suite": "a", "seconds": 10.0, "headline": ["x"]}]
    quick, full = registry.TARGET_S[True], registry.TARGET_S[False]
    assert "MET" in render_summary(results, 200.0, True, "cmd", target_s=quick)
    assert "MISSED" in render_summary(results, 400.0, True, "cmd", target_s=quick)  # 5 min
    assert "MET" in render_summary(results, 400.0, False, "cmd", target_s=full)  # 30 min
    assert "target" not in render_summary(results, 400.0, False, "cmd")


def test_the_peers_group_runs_its_suites_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarks.__main__ as runner

    ran: list[str] = []

    def suite_named(name: str) -> Any:
        def suite(args: argparse.Namespace) -> dict[str, Any]:
            ran.append(name)
            return {"title": name, "tables": [], "headline": [name]}
        return suite

    monkeypatch.setattr(runner, "load_suites", lambda: {n: suite_named(n) for n in (*registry.GROUPS["peers"], "x")})
    assert runner.main(["run", "--suite", "peers", "--quick", "--out", str(tmp_path)]) == 0
    assert ran == list(registry.GROUPS["peers"])
    assert "target under 5 min (quick): MET" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_squad_training_article_evaluation_never_reuses_a_compile_question() -> None:
    from benchmarks.suite_setup import load_questions
    from groundqa.datasets.squad import SQUAD2_TRAIN_ARTICLES, default_squad2_path

    if not default_squad2_path().exists():
        pytest.skip("SQuAD 2.0 file not present")
    docs, questions, train, skip = load_questions("squad", quick=True, seed=5, squad_eval="train")
    assert skip is None and len(questions) == 6 and len(train) == 24
    assert not {q.id for q in questions} & {q.id for q in train}
    assert sum(q.should_abstain for q in questions) == 3  # balanced
    assert {d.title for d in docs} <= set(SQUAD2_TRAIN_ARTICLES) | {t.replace("_", " ") for t in SQUAD2_TRAIN_ARTICLES}
    held_docs, held, _, _ = load_questions("squad", quick=True, seed=5)  # the default stays held out
    assert not {d.title for d in held_docs if d.id in {g for q in held for g in q.gold_docs}} & {d.title for d in docs}
    with pytest.raises(Exception, match="unknown SQuAD evaluation set"):
        load_questions("squad", quick=True, seed=5, squad_eval="test")
