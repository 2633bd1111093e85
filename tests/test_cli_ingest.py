"""`groundqa ingest` end to end on a real persistent Chroma, including bad input."""

import json
from pathlib import Path

import pytest

from groundqa.cli.main import main


def _ingest(home: Path, path: Path, *extra: str) -> tuple[int, dict]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["ingest", str(path), "--home", str(home), "--json", *extra])
    return code, json.loads(out.getvalue())


def test_folder_ingest_reports_bad_files_and_keeps_the_rest(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "good.md").write_text("# Salt marshes\n\nThe salt marshes of Calder flood twice a year.\n", "utf-8")
    (folder / "sub" / "notes.txt").write_text("The ferry Albatross carries 180 passengers.", "utf-8")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02binary")
    (folder / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (folder / "ignored.pdf").write_bytes(b"%PDF")
    code, report = _ingest(home, folder)
    assert code == 1  # problems were reported
    assert report["documents"] == 2 and report["chunks_total"] == 2
    assert any("binary.txt" in e and "binary" in e for e in report["errors"])
    assert any("latin1.md" in e and "UTF-8" in e for e in report["errors"])
    # re-ingesting the same folder leaves the chunk count unchanged
    code, again = _ingest(home, folder)
    assert again["chunks_total"] == 2 and again["chunks_added"] == 0


def test_jsonl_broken_line_named_and_nothing_lost(home: Path, tmp_path: Path, demo_corpus: Path):
    _, first = _ingest(home, demo_corpus)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x1", "title": "X", "text": "A new fact about the harbor."}\n{"id": "x2", "text": \n'
                   '{"id": "x3", "title": "Y"}\n', "utf-8")
    code, report = _ingest(home, bad)
    assert code == 1
    assert any(e.startswith(f"{bad}:2: invalid JSON") for e in report["errors"])
    assert any(e.startswith(f"{bad}:3:") and "text" in e for e in report["errors"])
    assert report["chunks_total"] == first["chunks_total"] + 1  # earlier chunks kept, good line added


def test_missing_path_is_one_clear_line(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    code = main(["ingest", str(tmp_path / "nope"), "--home", str(home)])
    err = capsys.readouterr().err
    assert code == 2
    assert "nope: path not found" in err and "Traceback" not in err


def test_ask_empty_question_exits_2_without_lm(home: Path, capsys: pytest.CaptureFixture):
    code = main(["ask", "   ", "--home", str(home), "--lm", "openai/never-called"])
    assert code == 2
    assert "question is empty" in capsys.readouterr().err
    assert not home.exists()  # nothing was set up: no store, no LM


def test_unknown_lm_and_missing_key_are_one_line(home: Path, capsys: pytest.CaptureFixture,
                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["ask", "Who?", "--home", str(home), "--lm", "nonsense"]) == 2
    assert "unknown --lm 'nonsense'" in capsys.readouterr().err
    assert main(["ask", "Who?", "--home", str(home), "--lm", "openai/gpt-4o-mini"]) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "Traceback" not in err
