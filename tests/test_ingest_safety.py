"""Ingestion safety (issue #15): a killed ingest, concurrent ingests, colliding file ids, bad bytes in a
JSONL, unreadable folders, and progress/warnings for big inputs.

Real Chroma (PersistentClient) everywhere. Embeddings come from a deterministic hash embedder (no torch),
so the subprocesses that are killed start in a few seconds and every run stores identical vectors;
what is under test is the order and the bookkeeping of the writes, not MiniLM.

Run as a script (``python tests/test_ingest_safety.py HOME PATH KILL_AFTER [GATE_FILE]``) this file is the
ingest subprocess the tests kill: it SIGKILLs itself right after its KILL_AFTER-th write to Chroma
(upsert, delete, update, metadata change), i.e. after a batch is stored and before the next.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve()
WRITES = ("upsert", "delete", "update", "modify")


class HashEmbedder:
    """Deterministic unit vectors from the text's hash; with ``gate``, the first call waits until that
    file exists (a model that is still busy: the ingest holds its lock meanwhile)."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, gate: str = "") -> None:
        self.gate = Path(gate) if gate else None

    def embed(self, texts: list[str], batch_size: int = 64) -> list[list[float]]:
        deadline = time.monotonic() + 120
        while self.gate is not None and not self.gate.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(384)
            out.append((vector / np.linalg.norm(vector)).tolist())
        return out

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def small_batches(embedder: HashEmbedder) -> None:
    """Many small batches (so an ingest has many points to be killed at) and the hash embedder."""
    import groundqa.ingest as ingest_module
    from groundqa.store import chroma_store

    chroma_store.get_embedder = lambda: embedder
    chroma_store._UPSERT_BATCH = 4
    ingest_module._GROUP_CHUNKS = 8


@contextlib.contextmanager
def counting_writes(on_write: Callable[[int], None]) -> Iterator[None]:
    """Call ``on_write(n)`` after the n-th write to any Chroma collection."""
    from chromadb.api.models.Collection import Collection

    originals = {name: getattr(Collection, name) for name in WRITES}
    count = [0]

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def write(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            count[0] += 1
            on_write(count[0])
            return result

        return write

    for name, original in originals.items():
        setattr(Collection, name, wrap(original))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(Collection, name, original)


def _drive(home: str, path: str, kill_after: int, gate: str) -> None:
    """The subprocess: ingest ``path`` into ``home``; SIGKILL itself after its ``kill_after``-th write."""
    from groundqa.config import load_settings
    from groundqa.ingest import ingest_path

    small_batches(HashEmbedder(gate))

    def maybe_die(n: int) -> None:
        if kill_after and n >= kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    with counting_writes(maybe_die):
        report = ingest_path(load_settings(home=Path(home)), path, notify=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps({"chunks_total": report.chunks_total, "index_version": report.index_version}))


if __name__ == "__main__":
    _drive(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
    sys.exit(0)

from groundqa.cli.main import main  # noqa: E402  (the driver above needs none of the test imports)
from groundqa.config import load_settings  # noqa: E402
from groundqa.datasets.loaders import Document  # noqa: E402
from groundqa.ingest import ingest_path  # noqa: E402
from groundqa.programs.retriever import Retriever  # noqa: E402
from groundqa.runtime.retrieval_cache import RetrievalCache  # noqa: E402
from groundqa.store.chroma_store import CorpusStore  # noqa: E402
from groundqa.store.lock import lock_path  # noqa: E402

QUESTION = "Which lighthouse keeper kept the light in the storm?"


# -- helpers ---------------------------------------------------------------------------------------
@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> HashEmbedder:
    """This process ingests with the hash embedder and small batches too."""
    import groundqa.ingest as ingest_module
    from groundqa.store import chroma_store

    embedder = HashEmbedder()
    monkeypatch.setattr(chroma_store, "get_embedder", lambda: embedder)
    monkeypatch.setattr(chroma_store, "_UPSERT_BATCH", 4)
    monkeypatch.setattr(ingest_module, "_GROUP_CHUNKS", 8)
    return embedder


def store_of(home: Path, embedder: HashEmbedder | None = None) -> CorpusStore:
    return CorpusStore(load_settings(home=home).chroma_dir, embedder=embedder or HashEmbedder())


def contents(home: Path) -> dict[str, tuple[str, str, int]]:
    """Every chunk: id -> (document id, text, position)."""
    found = store_of(home).collection.get(include=["documents", "metadatas"])
    return {cid: (str(m["doc_id"]), text, int(m["position"]))
            for cid, text, m in zip(found["ids"], found["documents"], found["metadatas"], strict=True)}


def assert_no_duplicates(chunks: dict[str, tuple[str, str, int]]) -> None:
    places = [(doc, position) for doc, _, position in chunks.values()]
    assert len(places) == len(set(places)), "two chunks hold the same place of one document"


def write_corpus(folder: Path, version: int) -> Path:
    """A folder of 8 text files and a JSONL of 8 documents; ``version`` 2 changes half of them."""
    (folder / "notes").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(8):
        body = " ".join(f"Report {i} sentence {j}: the keeper of light {i} logged storm {j} in year {1900 + j}."
                        for j in range(30))
        if version == 2 and i % 2 == 0:
            body = body.replace("storm", "gale")
        (folder / "notes" / f"report-{i}.md").write_text(f"# Report {i}\n\n{body}\n", "utf-8")
    for i in range(8):
        text = " ".join(f"Harbor record {i}.{j}: ferry {j} sailed with {10 * j + i} passengers." for j in range(10))
        if version == 2 and i % 2:
            text = text.replace("ferry", "steamer")
        lines.append(json.dumps({"id": f"rec-{i}", "title": f"Record {i}", "text": text}))
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return folder


def ingest_all(home: Path, folder: Path) -> None:
    ingest_path(load_settings(home=home), folder / "notes", notify=None)
    ingest_path(load_settings(home=home), folder / "records.jsonl", notify=None)


def run_driver(home: Path, path: Path, kill_after: int, gate: Path | None = None, wait: bool = True,
               stderr: Path | None = None) -> subprocess.Popen[str]:
    """The ingest subprocess (this file as a script); its stderr goes to ``stderr`` when given."""
    err: Any = stderr.open("w") if stderr is not None else subprocess.PIPE
    process = subprocess.Popen([sys.executable, str(HERE), str(home), str(path), str(kill_after), str(gate or "")],
                               stdout=subprocess.PIPE, stderr=err, text=True,
                               env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
    if wait:
        process.communicate(timeout=180)
    return process


def _stderr(process: subprocess.Popen[str]) -> str:
    return process.stderr.read() if process.stderr is not None and not process.stderr.closed else ""


# -- 5. kill -9 at any point, then ingest again: exactly the clean result -----------------------------
def _kill_points(tmp_path: Path) -> tuple[dict[str, tuple[str, str, int]], list[tuple[str, int]], Path, Path]:
    """The clean result (v1 ingested, then v2 without interruption) and where to kill the v2 ingest:
    ("notes" or "records", after how many writes of that ingest)."""
    corpus, clean = tmp_path / "clean-corpus", tmp_path / "clean"
    ingest_all(clean, write_corpus(corpus, 1))
    v2 = write_corpus(corpus, 2)  # the same files, changed: ids are paths, so the folder must be the same
    notes: list[int] = []
    records: list[int] = []
    settings = load_settings(home=clean)
    with counting_writes(notes.append):
        ingest_path(settings, v2 / "notes", notify=None)
    with counting_writes(records.append):
        ingest_path(settings, v2 / "records.jsonl", notify=None)
    n, r = len(notes), len(records)
    assert n >= 8 and r >= 6, (n, r)  # enough batches to be killed in between
    points = [("notes", k) for k in sorted({1, 2, 3, 4, n // 2, n - 1})] + [("records", r // 2)]
    return contents(clean), points, clean, v2


def test_killed_ingest_then_reingest_equals_a_clean_ingest(tmp_path: Path, hashed: HashEmbedder):
    from groundqa.runtime.retrieval_cache import cache_key

    expected, points, clean, _ = _kill_points(tmp_path)
    assert_no_duplicates(expected)
    for target, kill_after in points:
        home, corpus = tmp_path / f"home-{target}-{kill_after}", tmp_path / f"corpus-{target}-{kill_after}"
        write_corpus(corpus, 1)
        ingest_all(home, corpus)
        cache = RetrievalCache(load_settings(home=home).cache_dir / "retrieval")
        assert Retriever(store_of(home), k=3, cache=cache).retrieve(QUESTION, 3)  # cached at the old version
        write_corpus(corpus, 2)
        if target == "records":
            ingest_path(load_settings(home=home), corpus / "notes", notify=None)
        killed = run_driver(home, corpus / ("notes" if target == "notes" else "records.jsonl"), kill_after)
        assert killed.returncode == -signal.SIGKILL, (target, kill_after, killed.returncode)

        # between the kill and the re-ingest: no cache key can match, the store itself answers
        store = store_of(home)
        assert store.write_interrupted
        retriever = Retriever(store, k=3, cache=cache)
        retriever.refresh()
        key = cache_key(QUESTION, 3, store.collection_name, store.embedding_model, retriever._index_version)
        assert cache.get(key) is None
        assert [p.chunk_id for p in retriever.retrieve(QUESTION, 3)] == [p.chunk_id for p in store.query(QUESTION, 3)]

        ingest_all(home, corpus)
        got = contents(home)
        assert got == expected, f"killed after write {kill_after} of {target}: the re-ingest differs from a clean one"
        assert_no_duplicates(got)
        assert not store_of(home).write_interrupted
        after = Retriever(store_of(home), k=3, cache=cache)
        after.refresh()
        assert [p.chunk_id for p in after.retrieve(QUESTION, 3)] == \
            [p.chunk_id for p in store_of(clean).query(QUESTION, 3)]


# -- 1. Ctrl-C between batches: the version moved, the cache cannot serve the old collection ------------
def test_interrupt_after_a_batch_invalidates_cached_retrievals(tmp_path: Path, hashed: HashEmbedder):
    home, corpus = tmp_path / "home", write_corpus(tmp_path / "corpus", 1)
    ingest_all(home, corpus)
    store = store_of(home)
    cache = RetrievalCache(tmp_path / "cache")
    retriever = Retriever(store, k=3, cache=cache)
    cached = retriever.retrieve(QUESTION, 3)
    version = store.index_version

    write_corpus(corpus, 2)
    stored = [0]

    def interrupt(n: int) -> None:
        stored[0] = n
        if n == 3:  # the version bump, one delete or upsert, then a second: Ctrl-C
            raise KeyboardInterrupt

    with counting_writes(interrupt), pytest.raises(KeyboardInterrupt):
        ingest_path(load_settings(home=home), corpus / "notes", notify=None)
    reader = store_of(home)
    assert reader.index_version != version and not reader.write_interrupted  # bumped again on the way out
    fresh = Retriever(reader, k=3, cache=cache)
    fresh.refresh()
    assert [p.chunk_id for p in fresh.retrieve(QUESTION, 3)] == [p.chunk_id for p in reader.query(QUESTION, 3)]
    assert cached


def test_a_write_in_flight_never_gives_a_cacheable_version(tmp_path: Path):
    store = CorpusStore(tmp_path / "chroma", embedder=HashEmbedder())
    store.ingest([Document(id="d1", title="T", text="The ferry leaves at nine.")])
    clean = store.index_version
    with store.write_session():
        store._open_writes()  # what a writer does before its first write
        other = CorpusStore(tmp_path / "chroma", embedder=HashEmbedder())
        seen = {other.refresh_version() for _ in range(5)}
        assert len(seen) == 5 and all(v < 0 for v in seen)  # never the same twice, never a real version
    assert store.index_version == clean + 2


# -- 2. concurrent ingests are serialised --------------------------------------------------------------
def test_concurrent_ingests_are_serialised(tmp_path: Path, hashed: HashEmbedder):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    docs = [{"id": f"d{i}", "title": f"Doc {i}", "text": " ".join(f"Fact {i}.{j} about the pier." for j in range(30))}
            for i in range(6)]
    first.write_text("\n".join(json.dumps(d) for d in docs) + "\n", "utf-8")
    changed = [{**d, "text": d["text"].replace("pier", "quay")} if i < 4 else d for i, d in enumerate(docs)]
    second.write_text("\n".join(json.dumps(d) for d in changed) + "\n", "utf-8")
    sequential = tmp_path / "sequential"
    ingest_path(load_settings(home=sequential), first, notify=None)
    ingest_path(load_settings(home=sequential), second, notify=None)
    expected = contents(sequential)

    home, gate, late_err = tmp_path / "home", tmp_path / "gate", tmp_path / "late.err"
    slow = run_driver(home, first, 0, gate=gate, wait=False)  # holds the lock until the gate opens
    lock = lock_path("groundqa", load_settings(home=home).chroma_dir)
    deadline = time.monotonic() + 120
    while not (lock.exists() and f"pid {slow.pid}" in lock.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    late = run_driver(home, second, 0, wait=False, stderr=late_err)
    while "waiting for another ingest" not in late_err.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    gate.touch()
    slow.communicate(timeout=180)
    late.communicate(timeout=180)
    assert slow.returncode == 0 and late.returncode == 0, late_err.read_text()[-2000:]
    assert "waiting for another ingest into collection 'groundqa'" in late_err.read_text()
    assert contents(home) == expected  # not both versions of d0..d3: the second replaced the first's
    assert store_of(home).index_version == store_of(sequential).index_version  # no bump lost


def test_a_held_lock_times_out_with_one_line(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], hashed: HashEmbedder):
    import fcntl

    corpus = write_corpus(tmp_path / "corpus", 1)
    lock = lock_path("groundqa", load_settings(home=home).chroma_dir)
    lock.parent.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("GROUNDQA_INGEST_LOCK_TIMEOUT", "0.5")
    with lock.open("w") as held:  # another open file: flock conflicts as with another process
        held.write("pid 4242, since 12:00:00")
        held.flush()
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        code = main(["ingest", str(corpus / "records.jsonl"), "--home", str(home)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "another ingest into collection 'groundqa' (pid 4242, since 12:00:00) still holds" in err


# -- 3. file ids: the same name in two folders ---------------------------------------------------------
def test_same_file_name_in_two_folders_keeps_both_documents(tmp_path: Path, hashed: HashEmbedder):
    home = tmp_path / "home"
    for team, fact in (("team-a", "The A crew paints the hull blue."), ("team-b", "The B crew paints the hull red.")):
        (tmp_path / "docs" / team).mkdir(parents=True)
        (tmp_path / "docs" / team / "notes.md").write_text(f"# Notes\n\n{fact}\n", "utf-8")
    first = ingest_path(load_settings(home=home), tmp_path / "docs" / "team-a", notify=None)
    second = ingest_path(load_settings(home=home), tmp_path / "docs" / "team-b", notify=None)
    ids = {doc for doc, _, _ in contents(home).values()}
    assert ids == {"notes.md", "team-b/notes.md"}
    assert first.chunks_total == 1 and second.chunks_total == 2 and second.chunks_removed == 0
    assert any("'notes.md' already belongs to" in str(n) and "team-b/notes.md" in str(n) for n in second.notes)
    # ingesting again, either folder, a single file, or the parent folder: same ids, nothing added
    for again in (tmp_path / "docs" / "team-a", tmp_path / "docs" / "team-b",
                  tmp_path / "docs" / "team-b" / "notes.md", tmp_path / "docs"):
        report = ingest_path(load_settings(home=home), again, notify=None)
        assert report.chunks_added == 0 and report.chunks_total == 2, again
    assert {doc for doc, _, _ in contents(home).values()} == ids


def test_a_home_from_before_source_paths_reingests_unchanged(tmp_path: Path, hashed: HashEmbedder):
    """Migration: chunks stored by the earlier version have ``root``/``path`` but no ``source_path``."""
    from groundqa.ingest import fingerprint

    home, folder = tmp_path / "home", tmp_path / "manuals"
    folder.mkdir()
    data = b"# Keepers\n\nIlse Varga kept the light during the great storm.\n"
    (folder / "keepers.md").write_bytes(data)
    settings = load_settings(home=home)
    content, print_ = fingerprint(data, settings.chunk_size, settings.chunk_overlap, str(folder.resolve()))
    old = Document(id="keepers.md", title="Keepers", text=data.decode(), source=str(folder / "keepers.md"),
                   path="keepers.md", format="md", root=str(folder.resolve()), content_hash=content,
                   fingerprint=print_)
    store_of(home).ingest([old], settings.chunk_size, settings.chunk_overlap)
    before = contents(home)
    report = ingest_path(settings, folder, notify=None)
    assert report.files_unchanged == 1 and report.chunks_added == 0 and contents(home) == before
    single = ingest_path(settings, folder / "keepers.md", notify=None)  # the file alone: the same document
    assert single.chunks_added == 0 and {d for d, _, _ in contents(home).values()} == {"keepers.md"}


# -- 4. bad bytes in a JSONL, unreadable folders ---------------------------------------------------------
def test_jsonl_bad_bytes_and_nul_skip_their_line_only(home: Path, tmp_path: Path, hashed: HashEmbedder,
                                                      capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "corpus.jsonl"
    good = [json.dumps({"id": f"g{i}", "title": f"G{i}", "text": f"Good document number {i} about tides."}).encode()
            for i in range(4)]
    bad_utf8 = b'{"id": "b1", "title": "B", "text": "caf\xe9 au lait"}'
    with_nul = b'{"id": "b2", "title": "B", "text": "nul\x00here"}'
    path.write_bytes(b"\n".join([good[0], bad_utf8, good[1], with_nul, good[2], b"", good[3]]) + b"\n")
    code = main(["ingest", str(path), "--home", str(home), "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1 and report["documents"] == 4 and report["chunks_total"] == 4
    assert f"groundqa: skipped {path}:2: not UTF-8 (byte 40 of the line: invalid continuation byte)" in err
    assert f"groundqa: skipped {path}:4: NUL byte at column 40: not text" in err
    assert "Traceback" not in err


def test_unreadable_subfolder_is_named_and_sync_keeps_its_documents(home: Path, tmp_path: Path,
                                                                    hashed: HashEmbedder,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]):
    folder = tmp_path / "docs"
    (folder / "locked").mkdir(parents=True)
    (folder / "open.md").write_text("# Open\n\nThe open file is read.\n", "utf-8")
    (folder / "locked" / "secret.md").write_text("# Secret\n\nThe locked file is kept.\n", "utf-8")
    assert main(["ingest", str(folder), "--home", str(home), "--json"]) == 0
    capsys.readouterr()
    locked = folder / "locked"
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads through chmod 000: make the folder unreadable the way a user sees it
        real = os.scandir

        def scandir(path: Any = ".") -> Any:
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr(os, "scandir", scandir)
    try:
        code = main(["ingest", str(folder), "--home", str(home), "--json", "--sync"])
    finally:
        locked.chmod(0o755)
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1 and report["documents_removed"] == 0 and report["chunks_total"] == 2
    assert f"groundqa: skipped {locked}: cannot read this folder" in err


# -- 6. big inputs: a warning up front, progress lines with an ETA ---------------------------------------
def test_large_input_warning_and_progress_lines(tmp_path: Path, hashed: HashEmbedder,
                                                monkeypatch: pytest.MonkeyPatch):
    import groundqa.ingest as ingest_module

    monkeypatch.setattr(ingest_module, "LARGE_INPUT_BYTES", 2_000)
    monkeypatch.setattr(ingest_module, "_REPORT_EVERY_S", 0.0)
    corpus = write_corpus(tmp_path / "corpus", 1)
    lines: list[str] = []
    report = ingest_path(load_settings(home=tmp_path / "home"), corpus / "records.jsonl", notify=lines.append)
    assert report.documents == 8
    assert lines[0].startswith(f"large input: {corpus / 'records.jsonl'} holds") and "chunks/s" in lines[0]
    assert "embed_sentences = false" in lines[0]  # the default embeds each chunk's sentences too, and says so
    progress = [line for line in lines if line.startswith("ingesting: ")]
    assert progress and all("chunks/s, about" in line and line.endswith("left") for line in progress)
    assert set(report.stage_seconds) >= {"read", "chunk", "lookup", "embed", "upsert"}


def test_streamed_jsonl_matches_the_whole_file_loader(tmp_path: Path):
    from groundqa.datasets.loaders import load_corpus_jsonl
    from groundqa.readers.jsonl import JsonlStream, count_lines

    path = tmp_path / "c.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a", "text": "one"}\n\n{"id": "a", "text": "dup"}\n[1]\n{"id": "b", "text": "two"}')
    stream = JsonlStream(path)
    docs = [doc for _, doc in stream]
    whole = load_corpus_jsonl(path)
    assert [d.id for d in docs] == [d.id for d in whole.items] == ["a", "b"]
    assert [(e.line, e.message) for e in stream.errors] == [(e.line, e.message) for e in whole.errors]
    assert count_lines(path) == 5


def test_cli_ingest_output_is_unchanged_for_a_small_clean_folder(home: Path, tmp_path: Path, hashed: HashEmbedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nAlpha text.\n", "utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["ingest", str(folder), "--home", str(home)]) == 0
    assert err.getvalue() == ""  # a small ingest prints no status lines
    assert out.getvalue().startswith("ingested 1 document(s): +1 chunk(s)")
