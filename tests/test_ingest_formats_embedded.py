"""A folder of a PDF and an HTML page, ingested with the CLI and asked on the real embedded LM — no network.

The PDF's answer sits on page 2 and must be cited as page 2; the HTML page's navigation, sidebar,
footer and scripts repeat a misleading sentence that must never reach the answer.
"""

from __future__ import annotations

import contextlib
import io
import json

import dspy
import pytest

from groundqa.cli.ask import print_result
from groundqa.cli.main import main
from groundqa.config import load_settings
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.retriever import Retriever
from groundqa.readers.pdf_writer import minimal_pdf
from groundqa.runtime.guarded_lm import GuardedLM
from groundqa.signatures.types import ExitReason
from groundqa.store.chroma_store import CorpusStore
from groundqa.text import citation_numbers, split_sentences

pytestmark = pytest.mark.integration

PAGE_1_OTHER = ("Port Vessany Harbor Notes. The harbor office opens at nine and closes at five. "
                "Fishing boats unload at the south pier every morning.")
PAGE_2 = ("The keeper of the harbor lighthouse during the great storm was Ilse Varga. "
          "She kept the light burning for nine nights.")
MISLEADING = "The captain of the Calder ferry is Tomas Brekke."
FERRY_HTML = f"""<!DOCTYPE html><html><head><title>Calder Ferry</title>
<script>var banner = "{MISLEADING}";</script></head>
<body><header><nav><ul><li><a href="/">Home</a></li><li><a href="/crew">{MISLEADING}</a></li></ul></nav></header>
<aside class="sidebar"><p>{MISLEADING}</p></aside>
<main><article><h1>Calder Ferry</h1>
<h2>Crew</h2><p>The captain of the Calder ferry is Mara Lind, who has sailed the crossing since 1998.</p>
<h2>Tickets</h2><p>A ticket for the Calder ferry costs 12 crowns at the harbor office.</p>
</article></main>
<footer><nav><a href="/crew">{MISLEADING}</a></nav><p>Copyright 2024 Calder Ferry Company.</p></footer>
<script>console.log("{MISLEADING}")</script></body></html>"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> GroundedQA:
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "keepers.pdf").write_bytes(minimal_pdf([PAGE_1_OTHER, PAGE_2], title="Lighthouse Keepers"))
    (folder / "ferry.html").write_text(FERRY_HTML, "utf-8")
    home = tmp_path_factory.mktemp("home")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["ingest", str(folder), "--home", str(home), "--json"]) == 0
    assert json.loads(out.getvalue())["documents"] == 2
    store = CorpusStore(load_settings(home=home).chroma_dir)
    return GroundedQA(Retriever(store, k=4), QAConfig.for_lm("embedded"))


@pytest.fixture(autouse=True)
def _lm(embedded_lm) -> None:
    dspy.configure(lm=GuardedLM(embedded_lm), adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))


def test_two_page_pdf_answer_cites_page_2(program: GroundedQA, capsys: pytest.CaptureFixture[str]):
    result = program.run("Who was the keeper of the harbor lighthouse during the great storm?", use_cache=False)
    assert result.exit_reason is ExitReason.COMPLETED and not result.abstained
    assert "Ilse Varga" in result.answer
    sentence = next(s for s in split_sentences(result.answer) if "Ilse Varga" in s)
    cited = [result.passages[n - 1] for n in citation_numbers(sentence)]
    assert cited and all(p.doc_id == "keepers.pdf" and p.metadata["page"] == 2 for p in cited)
    located = [c.located(result.passages) for c in result.citations]
    assert any(c.page == 2 and c.label == "Lighthouse Keepers, p. 2" for c in located)
    print_result(result)
    assert "Lighthouse Keepers, p. 2 (keepers.pdf" in capsys.readouterr().out


def test_html_answer_comes_from_main_content_not_navigation(program: GroundedQA,
                                                            capsys: pytest.CaptureFixture[str]):
    result = program.run("Who is the captain of the Calder ferry?", use_cache=False)
    assert not result.abstained and "Mara Lind" in result.answer
    assert "Tomas Brekke" not in result.answer
    assert not any("Tomas Brekke" in p.text for p in result.passages)
    located = [c.located(result.passages) for c in result.citations]
    assert any(c.doc_id == "ferry.html" and c.section == "Crew" for c in located)
    print_result(result)
    assert "Calder Ferry \u203a Crew (ferry.html" in capsys.readouterr().out
