"""Loader for SQuAD 2.0 JSON: paragraphs become corpus documents, questions become ``Question`` items.

The real CS224N dev split lives outside the repository at ``../shared/data/squad2/dev-v2.0.json``
(relative to the project root); its text is never copied into the project.

Whole-file problems (missing file, undecodable or invalid JSON, wrong top-level structure) raise;
a malformed article, paragraph or question is reported as a ``LoadError`` and skipped.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from groundqa.datasets.loaders import Document, LoadError, Question, read_text_file

#: Where the SQuAD 2.0 dev file is expected, relative to the project root.
SQUAD2_DEV_RELPATH = Path("..") / "shared" / "data" / "squad2" / "dev-v2.0.json"


#: The project's fixed article-level split of the CS224N SQuAD 2.0 file (16 articles). Only these six
#: articles may be used to calibrate gates, pick demos or train weights; the other ten are held out for
#: evaluation everywhere (``groundqa evaluate --squad``, the ``quality-squad`` benchmark). The six span
#: history, computing, engineering, biology and physics, and hold 2,278 of the 6,078 questions.
SQUAD2_TRAIN_ARTICLES: frozenset[str] = frozenset({
    "Normans", "Computational_complexity_theory", "Steam_engine", "Packet_switching", "Immune_system", "Force",
})
ArticleSplit = Literal["train", "heldout", "all"]


def article_of(item: Any) -> tuple[str, ...]:
    """The articles of a question's gold paragraphs (ids ``<article-slug>-p<idx>``): a calibration group
    that keeps an article's questions on one side of a fit/check split, as the held-out articles are."""
    return tuple(sorted({re.sub(r"-p\d+$", "", str(doc)) for doc in (getattr(item, "gold_docs", None) or ())}))


class SquadFormatError(ValueError):
    """The file is not a usable SQuAD 2.0 JSON file; the message names the problem."""


def default_squad2_path(project_root: str | Path | None = None) -> Path:
    """The SQuAD 2.0 dev file next to the project (``<root>/../shared/data/squad2/dev-v2.0.json``)."""
    root = Path(project_root) if project_root is not None else Path(__file__).resolve().parent.parent
    return root / SQUAD2_DEV_RELPATH


def slugify(text: str) -> str:
    """Lower-case ASCII slug: runs of other characters become one ``-``."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "article"


@dataclass
class _Item:
    """One parsed question with where it came from (for corpus assembly)."""

    question: Question
    article: int
    title: str = ""


def _read_json(path: Path) -> Any:
    if not path.exists():
        raise FileNotFoundError(f"SQuAD file not found: {path}")
    if path.is_dir():
        raise SquadFormatError(f"{path}: is a folder, expected a SQuAD 2.0 JSON file")
    try:
        text = read_text_file(path)
    except ValueError as exc:
        raise SquadFormatError(f"{path}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SquadFormatError(
            f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from exc


def _articles(data: Any, path: Path) -> list[Any]:
    if not isinstance(data, dict):
        raise SquadFormatError(
            f"{path}: expected a JSON object with a 'data' list, got {type(data).__name__}"
        )
    if "data" not in data:
        raise SquadFormatError(f"{path}: missing top-level key 'data' (the list of articles)")
    articles = data["data"]
    if not isinstance(articles, list):
        raise SquadFormatError(f"{path}: 'data' must be a list of articles, got {type(articles).__name__}")
    return articles


def _parse_question(qa: Any, doc_id: str, title: str) -> Question:
    """One SQuAD ``qas`` entry as a ``Question``; raise ``ValueError`` naming the problem."""
    if not isinstance(qa, dict):
        raise ValueError("expected an object")
    qid, text = qa.get("id"), qa.get("question")
    if not isinstance(qid, str) or not qid.strip():
        raise ValueError("missing or empty 'id'")
    if not isinstance(text, str):
        raise ValueError("missing 'question' text")
    impossible = qa.get("is_impossible", False)
    if not isinstance(impossible, bool):
        raise ValueError("'is_impossible' must be true or false")
    answers: list[str] = []
    raw_answers = qa.get("answers", [])
    if not isinstance(raw_answers, list):
        raise ValueError("'answers' must be a list")
    for answer in raw_answers:
        value = answer.get("text") if isinstance(answer, dict) else None
        if not isinstance(value, str):
            raise ValueError("every answer needs a 'text' string")
        value = value.strip()
        if value and value not in answers:
            answers.append(value)
    if not impossible and not answers:
        raise ValueError("answerable question (is_impossible false) without answers")
    return Question(
        id=qid,
        question=text,
        answers=[] if impossible else answers,
        should_abstain=impossible,
        type="unanswerable" if impossible else "single",
        gold_docs=[doc_id],
        source="squad2",
        article=title,
    )


def _parse(articles: list[Any], path: Path) -> tuple[list[list[Document]], list[_Item], list[LoadError]]:
    """Every paragraph (grouped by article), every valid question, and the problems found."""
    errors: list[LoadError] = []
    paragraphs: list[list[Document]] = []
    items: list[_Item] = []
    seen_slugs: dict[str, int] = {}
    seen_qids: set[str] = set()

    def report(where: str, message: str) -> None:
        errors.append(LoadError(str(path), None, f"{where}: {message}"))

    for a_idx, article in enumerate(articles):
        where_a = f"data[{a_idx}]"
        docs: list[Document] = []
        paragraphs.append(docs)
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            report(where_a, "expected an article object with a 'paragraphs' list")
            continue
        title = article.get("title")
        title = title.strip() if isinstance(title, str) and title.strip() else f"article {a_idx}"
        slug = slugify(title)
        seen_slugs[slug] = seen_slugs.get(slug, 0) + 1
        if seen_slugs[slug] > 1:
            slug = f"{slug}-{seen_slugs[slug]}"
        for p_idx, paragraph in enumerate(article["paragraphs"]):
            where_p = f"{where_a}.paragraphs[{p_idx}]"
            if not isinstance(paragraph, dict):
                report(where_p, "expected a paragraph object with 'context' and 'qas'")
                continue
            context = paragraph.get("context")
            if not isinstance(context, str) or not context.strip():
                report(where_p, "missing or empty 'context'")
                continue
            qas = paragraph.get("qas", [])
            if not isinstance(qas, list):
                report(where_p, "'qas' must be a list of questions")
                qas = []
            doc = Document(
                id=f"{slug}-p{p_idx}", title=title.replace("_", " "), text=context, source="squad2"
            )
            docs.append(doc)
            for q_idx, qa in enumerate(qas):
                where_q = f"{where_p}.qas[{q_idx}]"
                try:
                    question = _parse_question(qa, doc.id, doc.title)
                except ValueError as exc:
                    report(where_q, str(exc))
                    continue
                if question.id in seen_qids:
                    report(where_q, f"duplicate question id {question.id!r}")
                    continue
                seen_qids.add(question.id)
                items.append(_Item(question, a_idx, title))
    return paragraphs, items, errors


def _sample(items: list[_Item], sample: int | None, seed: int, balanced: bool) -> list[_Item]:
    """Seeded sample of ``items`` in file order; balanced = half unanswerable (rounded down).

    When one pool is smaller than its half, all of it is taken and the other pool fills the rest.
    """
    if sample is None or sample >= len(items):
        return list(items)
    rng = random.Random(seed)
    if not balanced:
        chosen = set(rng.sample(range(len(items)), sample))
    else:
        unanswerable = [i for i, it in enumerate(items) if it.question.should_abstain]
        answerable = [i for i, it in enumerate(items) if not it.question.should_abstain]
        n_unans = min(sample // 2, len(unanswerable))
        n_ans = min(sample - n_unans, len(answerable))
        n_unans = min(sample - n_ans, len(unanswerable))
        chosen = set(rng.sample(answerable, n_ans)) | set(rng.sample(unanswerable, n_unans))
    return [it for i, it in enumerate(items) if i in chosen]


def load_squad2(
    path: str | Path,
    sample: int | None = None,
    seed: int = 0,
    balanced: bool = True,
    full_corpus: bool = False,
    articles: ArticleSplit = "all",
) -> tuple[list[Document], list[Question], list[LoadError]]:
    """Load SQuAD 2.0 JSON as ``(corpus, questions, errors)``.

    Each paragraph becomes a ``Document`` (id ``<article-slug>-p<idx>``, title = article title); each
    question a ``Question`` (``is_impossible`` -> ``should_abstain=True``, type ``unanswerable``; else type
    ``single`` with the distinct gold answer texts; ``gold_docs`` = its paragraph id).

    ``sample`` draws that many questions deterministically for ``seed``; with ``balanced`` half of them
    are unanswerable. The corpus holds the paragraphs of the chosen questions, or, with ``full_corpus``,
    every paragraph of their articles. Without ``sample`` the corpus is every paragraph in the file.
    ``articles`` restricts questions (and so the corpus) to the project's fixed article split:
    ``"train"`` (:data:`SQUAD2_TRAIN_ARTICLES`, the only articles calibration and training may read),
    ``"heldout"`` (the others, for evaluation) or ``"all"``.
    Raises ``FileNotFoundError`` or ``SquadFormatError`` (a ``ValueError``) for an unusable file.
    """
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise ValueError(f"sample must be a positive integer or None, got {sample!r}")
    path = Path(path)
    paragraphs, items, errors = _parse(_articles(_read_json(path), path), path)
    if articles != "all":
        keep_train = articles == "train"
        items = [it for it in items if (it.title in SQUAD2_TRAIN_ARTICLES) == keep_train]
        if sample is None:
            wanted_articles = {it.article for it in items}
            paragraphs = [docs if i in wanted_articles else [] for i, docs in enumerate(paragraphs)]
    chosen = _sample(items, sample, seed, balanced)
    if sample is None:
        corpus = [doc for docs in paragraphs for doc in docs]
    elif full_corpus:
        chosen_articles = {it.article for it in chosen}
        corpus = [doc for a_idx, docs in enumerate(paragraphs) if a_idx in chosen_articles for doc in docs]
    else:
        wanted = {doc_id for it in chosen for doc_id in it.question.gold_docs}
        corpus = [doc for docs in paragraphs for doc in docs if doc.id in wanted]
    return corpus, [it.question for it in chosen], errors
