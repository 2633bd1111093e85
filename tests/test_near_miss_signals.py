"""scripts/near_miss_signals.py: the pooled corpora a calibration is run on, and the chunk counts (session 19)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "scripts/near_miss_signals.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_pool_prefixes_every_id_by_its_corpus_and_refuses_an_unknown_corpus(tmp_path: Path):
    run = _run("pool", "chess", "island", "--out", str(tmp_path / "pool"))
    assert run.returncode == 0, run.stderr
    docs = [json.loads(line) for line in (tmp_path / "pool/corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    questions = [json.loads(line)
                 for line in (tmp_path / "pool/questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(docs) == 44 and len(questions) == 124
    ids = {d["id"] for d in docs}
    assert len(ids) == 44 and all(i.startswith(("chess-", "island-")) for i in ids)
    assert all(set(q["gold_docs"]) <= ids for q in questions)  # every gold document kept its corpus prefix
    assert all(q["contradicted_by"] in ids for q in questions if q.get("contradicted_by"))

    bad = _run("pool", "no-such-corpus", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "no-such-corpus" in bad.stderr and not (tmp_path / "bad").exists()


def test_chunks_counts_refusals_by_where_the_answer_first_appears(tmp_path: Path):
    questions = [json.loads(line) for line in
                 (SCRIPT.parents[1] / "datasets/workbench/chess/questions.jsonl").read_text(encoding="utf-8").splitlines()]
    singles = [q for q in questions if q["type"] == "single" and not q["should_abstain"]]
    # a report that refused every look-up: every counted look-up is refused, and all of them are counted
    records = [{"id": q["id"], "abstain_reason": "not_answered"} for q in questions]
    (tmp_path / "chess.json").write_text(json.dumps({"records": records}), encoding="utf-8")
    run = _run("chunks", "--reports", str(tmp_path), "chess")
    assert run.returncode == 0, run.stderr
    counted = [line.split(": ")[1].split(" look-ups, ") for line in run.stdout.splitlines()]
    assert sum(int(total) for total, _ in counted) == len(singles)
    assert all(rest.startswith(f"{total} refused (100%)") for total, rest in counted)
