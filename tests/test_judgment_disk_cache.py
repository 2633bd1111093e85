"""The answer judge's disk cache: a new process reads the margins an earlier one computed instead of running the
model again, keyed by the judge's identity; an unusable file switches the cache off without failing a judgment."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from groundqa.judges import answer_judge, clear_caches
from groundqa.judges.answer_judge import set_disk_cache, shared_answer_judge
from groundqa.store.disk_kv import DiskKV

TITLE, BEFORE = "Lettice Colliery", "The Lettice Colliery opened in 1871."
SENTENCE = "In 1909 the rescue brigade brought out forty-one survivors."


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch):
    """The shipped judge with an empty process cache; whatever disk cache a test names is dropped afterwards."""
    monkeypatch.setattr(answer_judge.CACHE_FILE, "path", None)
    shipped = shared_answer_judge()
    shipped.clear_memory()
    yield shipped
    shipped.clear_memory()


def fresh_question() -> str:
    """A question no earlier test asked, so that neither cache can hold it."""
    return f"How many survivors did brigade {uuid.uuid4().hex[:6]} bring out?"


def test_the_table_round_trips_bytes_between_two_connections(tmp_path: Path) -> None:
    path = tmp_path / "kv.sqlite"
    DiskKV(path, "margins", "margin").put_many({"a": b"\x00\x01", "b": b"xyz"})
    other = DiskKV(path, "margins", "margin")  # another process's connection
    assert other.get_many(["a", "b", "c"]) == {"a": b"\x00\x01", "b": b"xyz"}
    assert len(other) == 2
    with pytest.raises(ValueError, match="lower-case words"):
        DiskKV(path, "margins; DROP TABLE margins", "margin")


def test_a_new_process_reads_the_margin_from_disk_exactly(judge, tmp_path: Path) -> None:
    set_disk_cache(tmp_path / "answer-judge.sqlite")
    question = fresh_question()
    before = dict(judge.stats)
    first = judge.margin(TITLE, BEFORE, SENTENCE, question)
    assert judge.stats["judged"] == before["judged"] + 1
    clear_caches()  # as a new process would start: the process cache is empty, the file is not
    again = judge.margin(TITLE, BEFORE, SENTENCE, question)
    assert again == first
    assert judge.stats["judged"] == before["judged"] + 1  # the model was not run again
    assert judge.stats["from_disk"] == before["from_disk"] + 1
    assert len(DiskKV(tmp_path / "answer-judge.sqlite", "margins", "margin")) >= 1


def test_another_adapter_never_reads_a_margin_it_did_not_give(judge, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    set_disk_cache(tmp_path / "answer-judge.sqlite")
    question = fresh_question()
    judge.margin(TITLE, BEFORE, SENTENCE, question)
    judge.clear_memory()
    monkeypatch.setattr(judge, "identity", "another-adapter:base:llama.cpp x")
    judged = judge.stats["judged"]
    judge.margin(TITLE, BEFORE, SENTENCE, question)
    assert judge.stats["judged"] == judged + 1


def test_the_shipped_judges_identity_names_its_adapter_base_and_engine(judge) -> None:
    assert judge.identity.startswith(answer_judge.SHIPPED_SHA256)
    assert "gemma" in judge.identity.lower() and "llama.cpp" in judge.identity


def test_without_a_disk_cache_nothing_is_written(judge, tmp_path: Path) -> None:
    judge.margin(TITLE, BEFORE, SENTENCE, fresh_question())
    assert not list(tmp_path.iterdir())


def test_an_unusable_file_is_switched_off_with_one_warning(judge, tmp_path: Path, caplog) -> None:
    broken = tmp_path / "not-a-db.sqlite"
    broken.write_bytes(b"this is not a SQLite database" * 100)
    set_disk_cache(broken)
    with caplog.at_level("WARNING"):
        margin = judge.margin(TITLE, BEFORE, SENTENCE, fresh_question())
    assert isinstance(margin, float)
    assert "answer-judge disk cache" in caplog.text and "switched off" in caplog.text
    assert answer_judge.CACHE_FILE.path is None
    with pytest.raises(sqlite3.DatabaseError):
        DiskKV(broken, "margins", "margin")


def test_the_app_puts_the_cache_under_the_home_unless_caching_is_off(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from groundqa.app import configure_caches
    from groundqa.config import load_settings
    from groundqa.store import embeddings

    monkeypatch.setattr(answer_judge.CACHE_FILE, "path", None)
    monkeypatch.setattr(embeddings.CACHE_FILE, "path", None)
    settings = load_settings(home=tmp_path / "home")
    configure_caches(settings)
    assert answer_judge.CACHE_FILE.path == Path(settings.cache_dir) / "answer-judge.sqlite"
    configure_caches(load_settings(home=tmp_path / "home", cache=False))
    assert answer_judge.CACHE_FILE.path is None
