"""PDF and HTML ingestion: readers, page/section chunking, source locations, re-ingestion, --sync, errors.

Every file is built inside the test (PDFs by :mod:`groundqa.readers.pdf_writer`), so no binary
fixture is committed. Real Chroma and the packaged MiniLM, no LM, no network.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from groundqa.cli.main import main
from groundqa.config import load_settings
from groundqa.datasets.loaders import Question, load_corpus, load_questions_jsonl
from groundqa.readers import EncryptedPDFError, ReadError, ScannedPDFError
from groundqa.readers.html import read_html
from groundqa.readers.pdf import read_pdf
from groundqa.readers.pdf_writer import encrypted_pdf, minimal_pdf
from groundqa.signatures.types import Citation, GroundedResult, Passage, SourceLocation
from groundqa.store.chroma_store import CorpusStore
from groundqa.store.chunking import chunk_segments

PAGE_1 = ("Lighthouse Keepers of Port Vessany. The harbor lighthouse stands on the north breakwater. "
          "It was first lit in 1887 and converted to electric light in 1923.")
PAGE_2 = ("The keeper of the harbor lighthouse during the great storm was Ilse Varga. "
          "She kept the light burning for nine nights.")
MISLEADING = "The captain of the Calder ferry is Tomas Brekke."
FERRY_HTML = f"""<!DOCTYPE html><html><head><title>Calder Ferry</title>
<script>var banner = "{MISLEADING}";</script><style>nav {{ color: red; }}</style></head>
<body><header><nav><ul><li><a href="/">Home</a></li><li><a href="/crew">{MISLEADING}</a></li></ul></nav></header>
<aside class="sidebar"><p>{MISLEADING}</p></aside>
<main><article><h1>Calder Ferry</h1>
<h2>Crew</h2><p>The captain of the Calder ferry is Mara Lind, who has sailed the crossing since 1998.</p>
<h3>Deck hands</h3><p>Two deck hands work every crossing.</p>
<h2>Tickets</h2><p>A ticket for the Calder ferry costs 12 crowns at the harbor office.</p>
</article></main>
<footer><nav><a href="/crew">{MISLEADING}</a></nav><p>Copyright 2024 Calder Ferry Company.</p></footer>
<script>console.log("{MISLEADING}")</script></body></html>"""


def _ingest(home: Path, path: Path, *extra: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["ingest", str(path), "--home", str(home), "--json", *extra])
    return code, json.loads(out.getvalue()) if out.getvalue().strip() else {}


def _store(home: Path) -> CorpusStore:
    return CorpusStore(load_settings(home=home).chroma_dir)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    (folder / "web").mkdir(parents=True)
    (folder / "keepers.pdf").write_bytes(minimal_pdf([PAGE_1, PAGE_2], title="Lighthouse Keepers"))
    (folder / "web" / "ferry.html").write_text(FERRY_HTML, "utf-8")
    (folder / "notes.md").write_text("# Salt marshes\n\nThe salt marshes of Calder flood twice a year.\n", "utf-8")
    (folder / "tides.txt").write_text("Tides in Calder reach four metres in spring.", "utf-8")
    return folder


# -- readers ---------------------------------------------------------------------------------------
def test_pdf_text_per_page_and_chunks_never_span_pages():
    extracted = read_pdf(minimal_pdf([PAGE_1, PAGE_2], title="Lighthouse Keepers"))
    assert extracted.title == "Lighthouse Keepers" and extracted.pages == 2
    assert [s.page for s in extracted.segments] == [1, 2]
    assert "Ilse Varga" in extracted.segments[1].text and "Ilse Varga" not in extracted.segments[0].text
    chunks = chunk_segments("keepers.pdf", extracted.segments, size=80, overlap=30)
    assert len(chunks) > 4 and [c.position for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        page_text = extracted.segments[chunk.page - 1].text
        # offsets are in the page's text; the chunk is exactly that span, whitespace normalised
        assert " ".join(page_text[chunk.start:chunk.end].split()) == chunk.text
    assert {c.page for c in chunks} == {1, 2}
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_scanned_encrypted_and_corrupt_pdfs_raise_one_line_errors():
    with pytest.raises(ScannedPDFError, match="scanned or image-only PDF"):
        read_pdf(minimal_pdf([None, None]))
    locked = encrypted_pdf(minimal_pdf([PAGE_2]), "secret")
    with pytest.raises(EncryptedPDFError, match="encrypted PDF: it needs a password"):
        read_pdf(locked)
    # an empty user password (an "owner password only" PDF) opens as usual
    assert "Ilse Varga" in read_pdf(encrypted_pdf(minimal_pdf([PAGE_2]), "")).text
    for broken in (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", minimal_pdf([PAGE_1])[:200], b"just text"):
        with pytest.raises(ReadError) as info:
            read_pdf(broken)
        assert "\n" not in str(info.value) and ("corrupt PDF" in str(info.value) or "not a PDF" in str(info.value))
    partly = read_pdf(minimal_pdf([PAGE_1, None]))
    assert [s.page for s in partly.segments] == [1] and "page(s) 2 have no text layer" in partly.notes[0]


def test_html_main_content_with_heading_path_sections():
    extracted = read_html(FERRY_HTML.encode())
    assert extracted.title == "Calder Ferry"
    assert "Tomas Brekke" not in extracted.text and "console" not in extracted.text
    assert "Copyright" not in extracted.text and "Home" not in extracted.text
    sections = [s.section for s in extracted.segments]
    assert sections == ["Crew", "Crew \u203a Deck hands", "Tickets"]  # the h1 repeats the title: not in the path
    for segment in extracted.segments:
        assert extracted.text[segment.start:segment.start + len(segment.text)] == segment.text
    with pytest.raises(ReadError, match="no main content"):
        read_html(b"<html><body><nav><a href='/'>Home</a></nav></body></html>")


# -- citations -------------------------------------------------------------------------------------
def test_citation_carries_page_section_and_location():
    meta = {"path": "manuals/keepers.pdf", "page": 12, "char_start": 40, "char_end": 160, "position": 3}
    passage = Passage(chunk_id="keepers#1", doc_id="manuals/keepers.pdf", title="Lighthouse Keepers",
                      text=PAGE_2, score=0.8, metadata=meta)
    citation = Citation.of(1, passage)
    assert citation.page == 12 and citation.section is None
    assert citation.location == SourceLocation(path="manuals/keepers.pdf", page=12, char_start=40, char_end=160)
    assert citation.label == "Lighthouse Keepers, p. 12"
    data = json.loads(citation.model_dump_json())
    assert data["page"] == 12 and data["label"] == "Lighthouse Keepers, p. 12" and data["location"]["char_end"] == 160
    assert Citation.model_validate(data) == citation  # the computed label does not break a round trip
    html = Passage(chunk_id="ferry#0", doc_id="web/ferry.html", title="Calder Ferry", text="...",
                   metadata={"path": "web/ferry.html", "section": "Crew \u203a Deck hands"})
    assert Citation.of(2, html).label == "Calder Ferry \u203a Crew \u203a Deck hands"
    # a citation built without the passage's metadata is located from the result's passages
    bare = Citation(index=1, chunk_id="keepers#1", doc_id="manuals/keepers.pdf", title="Lighthouse Keepers")
    assert bare.label == "Lighthouse Keepers" and bare.located([html, passage]).page == 12
    old = Passage(chunk_id="d#0", doc_id="d", title="T", text="x", metadata={"position": 0})
    assert Citation.of(1, old).location is None and Citation.of(1, old).label == "T"


def test_ask_prints_page_and_section_citations(capsys: pytest.CaptureFixture[str]):
    from groundqa.cli.ask import print_result

    passages = [
        Passage(chunk_id="k#1", doc_id="keepers.pdf", title="Lighthouse Keepers", text=PAGE_2, score=0.77,
                metadata={"path": "keepers.pdf", "page": 2, "char_start": 0, "char_end": 75}),
        Passage(chunk_id="f#0", doc_id="web/ferry.html", title="Calder Ferry", text="The captain ...", score=0.7,
                metadata={"path": "web/ferry.html", "section": "Crew"}),
    ]
    result = GroundedResult(question="q", answer="Ilse Varga kept it [1]. Mara Lind is captain [2].",
                            passages=passages, mode="generated",
                            citations=[Citation(index=1, chunk_id="k#1", doc_id="keepers.pdf", title="Lighthouse Keepers"),
                                       Citation.of(2, passages[1])])
    print_result(result)
    out = capsys.readouterr().out
    assert "[1] Lighthouse Keepers, p. 2 (keepers.pdf" in out
    assert "[2] Calder Ferry \u203a Crew (web/ferry.html" in out


# -- ingestion through the command line ------------------------------------------------------------
def test_mixed_folder_one_command_with_a_report_per_type(home: Path, corpus: Path):
    (corpus / "scan.pdf").write_bytes(minimal_pdf([None]))
    (corpus / "locked.pdf").write_bytes(encrypted_pdf(minimal_pdf([PAGE_2]), "secret"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, report = _ingest(home, corpus)
    assert code == 1  # two PDFs were reported and skipped, the rest ingested
    assert report["documents"] == 4 and report["chunks_added"] == report["chunks_total"] > 4
    by = report["by_format"]
    assert set(by) == {"pdf", "html", "md", "txt"}
    assert by["pdf"] == {"files": 3, "ingested": 1, "unchanged": 0, "failed": 2, "pages": 2,
                         "chunks_added": by["pdf"]["chunks_added"]} and by["pdf"]["chunks_added"] >= 2
    assert by["html"]["ingested"] == 1 and by["html"]["chunks_added"] >= 3
    lines = err.getvalue().splitlines()
    assert any("scan.pdf" in line and "scanned or image-only PDF" in line for line in lines)
    assert any("locked.pdf" in line and "encrypted PDF" in line for line in lines)
    assert "Traceback" not in err.getvalue()

    store = _store(home)
    top = store.query("Who kept the lighthouse during the great storm?", k=1)[0]
    assert top.doc_id == "keepers.pdf" and top.metadata["page"] == 2 and top.metadata["path"] == "keepers.pdf"
    assert 0 <= top.metadata["char_start"] < top.metadata["char_end"]
    crew = store.query("Who is the captain of the Calder ferry?", k=10)
    assert not any("Tomas Brekke" in p.text for p in crew)  # navigation, sidebar, footer and scripts dropped
    assert crew[0].doc_id == "web/ferry.html" and crew[0].metadata["section"] == "Crew"
    assert crew[0].title == "Calder Ferry"


def test_reingesting_an_unchanged_folder_adds_nothing_and_sync_removes_deleted_files(home: Path, corpus: Path):
    _, first = _ingest(home, corpus)
    code, again = _ingest(home, corpus)
    assert code == 0
    assert (again["documents"], again["chunks_added"], again["chunks_removed"]) == (0, 0, 0)
    assert again["files_unchanged"] == 4 and again["chunks_total"] == first["chunks_total"]
    assert again["index_version"] == first["index_version"]  # caches stay valid
    assert again["by_format"]["pdf"]["unchanged"] == 1

    # a changed file is read again; other files are still skipped
    (corpus / "tides.txt").write_text("Tides in Calder reach five metres in spring.", "utf-8")
    _, changed = _ingest(home, corpus)
    assert changed["documents"] == 1 and changed["files_unchanged"] == 3
    assert changed["chunks_added"] == 1 and changed["chunks_removed"] == 1

    # deleted files stay without --sync, and go with it
    (corpus / "keepers.pdf").unlink()
    _, kept = _ingest(home, corpus)
    assert kept["documents_removed"] == 0 and kept["chunks_total"] == first["chunks_total"]
    code, synced = _ingest(home, corpus, "--sync")
    assert code == 0 and synced["documents_removed"] == 1
    assert synced["chunks_total"] == first["chunks_total"] - first["by_format"]["pdf"]["chunks_added"]
    assert all(p.doc_id != "keepers.pdf" for p in _store(home).query("lighthouse keeper", k=10))


def test_single_files_and_bad_input_get_one_line(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf(minimal_pdf([PAGE_2]), "secret"))
    assert main(["ingest", str(locked), "--home", str(home)]) == 2
    err = capsys.readouterr().err
    assert f"groundqa: skipped {locked}: encrypted PDF: it needs a password" in err
    assert "nothing to ingest" in err and "Traceback" not in err

    pdf = tmp_path / "keepers.pdf"
    pdf.write_bytes(minimal_pdf([PAGE_1, PAGE_2]))
    code, report = _ingest(home, pdf)
    assert code == 0 and report["by_format"]["pdf"]["pages"] == 2 and report["chunks_total"] >= 2
    assert main(["ingest", str(pdf), "--home", str(home), "--sync"]) == 2
    assert "--sync needs a folder" in capsys.readouterr().err

    # the older loaders read every format too (evaluate --corpus FOLDER)
    docs = load_corpus(tmp_path).items
    assert [d.id for d in docs] == ["keepers.pdf"] and docs[0].metadata["pages"] == 2


# -- evaluation: gold pages ------------------------------------------------------------------------
def test_questions_name_gold_documents_by_path_and_pages(tmp_path: Path):
    from groundqa.metrics.aggregate import aggregate

    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in [
        {"id": "q1", "question": "Who kept the light?", "answers": ["Ilse Varga"],
         "gold_docs": ["./manuals/keepers.pdf"], "gold_pages": [2]},
        {"id": "q2", "question": "Who kept the light?", "answers": ["Ilse Varga"],
         "gold_pages": {"manuals/keepers.pdf": [1]}},
        {"id": "q3", "question": "Who is the captain?", "answers": ["Mara Lind"], "gold_docs": ["ferry.html"]},
        {"id": "q4", "question": "x", "gold_pages": [2]},
        {"id": "q5", "question": "x", "gold_docs": ["a.pdf"], "gold_pages": {"a.pdf": [0]}},
    ]) + "\n", "utf-8")
    loaded = load_questions_jsonl(path)
    assert [q.id for q in loaded.items] == ["q1", "q2", "q3"]
    assert [e.line for e in loaded.errors] == [4, 5]
    q1, q2, q3 = loaded.items
    assert q1.gold_pages == {"./manuals/keepers.pdf": [2]} and q2.gold_docs == ["manuals/keepers.pdf"]
    assert q3.gold_pages is None

    page2 = Passage(chunk_id="c2", doc_id="keepers.pdf", title="Lighthouse Keepers", text=PAGE_2, score=0.8,
                    metadata={"path": "keepers.pdf", "page": 2})
    answer = GroundedResult(question="Who kept the light?", answer="Ilse Varga kept the light [1].",
                            passages=[page2], mode="generated")
    ferry = GroundedResult(question="Who is the captain?", answer="Mara Lind is the captain [1].",
                           passages=[Passage(chunk_id="f", doc_id="ferry.html", text="Mara Lind is the captain.")],
                           mode="generated")
    metrics = aggregate([q1, q2, q3], [answer, answer, ferry]).overall.metrics
    assert metrics["gold_page_cited"] == 0.5  # q1 cites its gold page, q2 does not, q3 names no pages
    assert metrics["citation_recall"] == 1.0  # ALCE citation metrics are unchanged


def test_evaluation_records_carry_cited_locations(tmp_path: Path):
    import dspy

    from groundqa.evaluation import evaluate

    page2 = Passage(chunk_id="c2", doc_id="keepers.pdf", title="Lighthouse Keepers", text=PAGE_2, score=0.8,
                    metadata={"path": "keepers.pdf", "page": 2, "char_start": 0, "char_end": 75})

    def program(question: str) -> dspy.Prediction:
        result = GroundedResult(question=question, answer="The keeper during the great storm was Ilse Varga [1].",
                                passages=[page2], citations=[Citation.of(1, page2)], mode="generated")
        return dspy.Prediction(result=result)

    questions = [Question(id="q1", question="Who kept the light during the storm?", answers=["Ilse Varga"],
                          gold_docs=["keepers.pdf"], gold_pages={"keepers.pdf": [2]})]
    report = evaluate(program, questions, progress=False)
    record = report.records[0]
    assert record.cited_sources == ["Lighthouse Keepers, p. 2"]
    assert record.cited_locations[0].page == 2 and record.cited_locations[0].path == "keepers.pdf"
    assert record.scores.gold_page_cited == 1.0
    assert report.metrics.overall.metrics["gold_page_cited"] == 1.0
    assert re.search(r'"gold_page_cited": 1\.0', report.to_json())
