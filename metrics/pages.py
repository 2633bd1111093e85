"""Gold page cited: does an answer cite a page that the question's gold pages name?

ALCE's citation recall and precision say whether the cited passages support the answer, not whether
they are the passages a person would look up. On corpora of PDFs a question can name its gold pages
(``"gold_pages": {"manual.pdf": [12]}``), and this rate says how often an answer cites one of them.
Like ALCE it is scored on answered items only (an abstention cites nothing); questions without gold
pages, and questions that should be abstained on, get ``None`` and stay out of the mean.
"""

from __future__ import annotations

from collections.abc import Iterable

from groundqa.datasets.loaders import Question
from groundqa.metrics.coerce import is_abstention
from groundqa.signatures.types import GroundedResult, Passage, SourceLocation
from groundqa.text import citation_numbers


def _normal(path: str) -> str:
    path = path.replace("\\", "/").strip()
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def same_document(gold: str, names: Iterable[str]) -> bool:
    """``gold`` (a document path or id from a questions file) names the document known as any of ``names``:
    equal, or one is the other below a folder ("docs/manual.pdf" and "manual.pdf")."""
    wanted = _normal(gold)
    for name in names:
        have = _normal(name)
        if have and (have == wanted or have.endswith("/" + wanted) or wanted.endswith("/" + have)):
            return True
    return False


def passage_page(passage: Passage) -> tuple[list[str], int | None]:
    """The names a passage's document goes by (doc id, ingested path) and its page."""
    location = SourceLocation.from_metadata(passage.metadata)
    names = [passage.doc_id] + ([location.path] if location and location.path else [])
    return names, location.page if location else None


def gold_page_cited(gold: Question, result: GroundedResult | None) -> float | None:
    """1.0 if the answer cites a passage on one of the gold pages, 0.0 if not, ``None`` when not
    applicable (no gold pages, should abstain, abstained or no result)."""
    if not gold.gold_pages or gold.should_abstain or result is None or is_abstention(result):
        return None
    for number in citation_numbers(result.answer):
        if not 0 < number <= len(result.passages):
            continue
        names, page = passage_page(result.passages[number - 1])
        if page is None:
            continue
        for doc, pages in gold.gold_pages.items():
            if page in pages and same_document(doc, names):
                return 1.0
    return 0.0
