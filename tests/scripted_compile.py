"""The tiny compile dataset and scripted LM reply shared by the compile, MLflow and real-server tests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from groundqa.lm.scripted import Messages, input_field

DEMO_CORPUS = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "corpus.jsonl"
QUESTIONS = [
    ("q1", "Who designed the harbor lights of Port Vessany?", ["Odile Marchetti"], False, "single"),
    ("q2", "When did Port Vessany install its tidal-powered harbor lights?", ["1987"], False, "single"),
    ("q3", "How long does the ferry crossing to Calder take?", ["50 minutes"], False, "single"),
    ("q4", "How many people live on Calder Island?", ["900"], False, "single"),
    ("q5", "When was the Lorvin Maritime Library opened?", ["1968"], False, "single"),
    ("q6", "What is the boiling point of liquid nitrogen?", [], True, "off_corpus"),
    ("q7", "When did Paolo Marchetti design the harbor lights?", [], True, "cross_entity"),
    ("q8", "Who painted the Mona Lisa?", [], True, "off_corpus"),
]
"""(id, question, answers, should_abstain, type); even positions are train, odd ones dev."""
ANSWERS = {
    "harbor": "The lights were designed by engineer Odile Marchetti in 1987 [1].",
    "ferry": "The crossing takes 50 minutes in calm weather [1].",
    "Calder": "About 900 people live on the island [1].",
    "Library": "The Lorvin Maritime Library opened in 1968 [1].",
}
_OUTPUTS = re.compile(r"Your output fields are:\n(.*?)(?:\n\n|\Z)", re.S)
_FIELD = re.compile(r"\d+\. `(\w+)` \(([^)]*)\)")


def cited_answer(question: str) -> str:
    """The scripted cited answer to ``question`` (``NOT IN SOURCES`` when it is not one of the four)."""
    return next((text for key, text in ANSWERS.items() if key in question), "NOT IN SOURCES")


def scripted_reply(messages: Messages) -> dict[str, Any]:
    """Fill every output field the prompt asks for: a cited answer for groundqa's synthesizer,
    plausible values for optimizers' own signatures (instructions, reflections, ...)."""
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    block = _OUTPUTS.search(system)
    fields = _FIELD.findall(block.group(1)) if block else [("answer", "str")]
    question = input_field(messages, "question")
    reply: dict[str, Any] = {}
    for name, kind in fields:
        if name == "answer":
            reply[name] = cited_answer(question)
        elif "bool" in kind:
            reply[name] = True
        elif "float" in kind or "int" in kind:
            reply[name] = 1
        elif "list" in kind:
            reply[name] = []
        else:
            reply[name] = "Answer only from the numbered passages and cite them as [n]."
    return reply


def write_questions(path: Path) -> Path:
    """:data:`QUESTIONS` as a questions JSONL with train/dev splits; returns ``path``."""
    with path.open("w", encoding="utf-8") as fh:
        for i, (qid, question, answers, abstain, kind) in enumerate(QUESTIONS):
            fh.write(json.dumps({"id": qid, "question": question, "answers": answers, "should_abstain": abstain,
                                 "type": kind, "split": "train" if i % 2 == 0 else "dev"}) + "\n")
    return path
