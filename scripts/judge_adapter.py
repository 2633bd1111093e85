"""An answerability judge on the embedded LM: a LoRA that reads (passage title, sentence before, sentence,
question) and says " yes" or " no" -- the experiment of BENCHMARKS "Session 15".

Training data comes only from the six SQuAD 2.0 training articles (``SQUAD2_TRAIN_ARTICLES``): the
sentence holding a gold answer (yes), the sentence holding an unanswerable question's plausible answer
(no: SQuAD 2.0's adversarial negatives) and, for half the answerable questions, another sentence of the
paragraph (no). Steps, each a subcommand:

    python scripts/judge_adapter.py pairs  --out DIR      # judge pairs, tokenized as llama.cpp does
    python scripts/judge_adapter.py pack   --out DIR      # base weights for a GPU lease (see below)
    python scripts/judge_adapter.py train  --data DIR --out RUN [--device cuda]
    python scripts/judge_adapter.py export --run RUN      # RUN/judge.gguf, a llama.cpp LoRA adapter
    python scripts/judge_adapter.py score  --adapter RUN/judge.gguf --evaluations TAG-  # dev sets

Session 20 trained the adapter that ships (``groundqa/data/answer-judge.gguf``) on the program's own candidates
instead (``candidates``: bundled train, the workbench corpora but the nine ``VALIDATION`` ones, and the pairs above),
with one configuration fixed beforehand, and scored it on the validation corpora:

    python scripts/judge_adapter.py candidates --out DIR --negatives 4 --others 3
    python scripts/judge_adapter.py pack   --out DIR
    python scripts/judge_adapter.py train  --data DIR --out RUN --fixed --epochs 2 [--device cuda]
    python scripts/judge_adapter.py export --run RUN
    python scripts/judge_adapter.py validate --data DIR --run RUN   # AUC on the validation corpora

Session 32 added training pairs that teach what SQuAD 2.0's unanswerable questions test: ``candidates --perturbed
N`` writes, per answered training question, N questions its gold sentence no longer answers (a name, an opposite, a
year or a word swapped: :func:`perturbed_questions`), each a no beside that sentence; ``--squad-val Normans`` scores
one SQuAD training article instead of fitting it, so the judge's reading of SQuAD's own adversarial questions is
measured on an article it never saw:

    python scripts/judge_adapter.py candidates --out DIR --negatives 4 --others 3 --perturbed 2 --squad-val Normans

``train`` needs only torch, transformers, peft, gguf, numpy and safetensors, so it also runs on a bare
GPU machine. ``pack`` writes the base model's exact weights for it: every block tensor as its raw GGUF
quantised bytes and only the token-embedding rows the pairs use (6,800 of 262,144), each checked
against transformers' own dequantisation; the judge's loss reads the logits of " yes" and " no" alone,
so the pruned vocabulary changes nothing it computes. On CPU, ``train`` reads the same files.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
HELD_BACK = "Normans"  # the training article each configuration is scored on before the final run


def judge_prompt(title: str, before: str, sentence: str, question: str) -> str:
    """The judge's prompt, built where the program builds it (:mod:`groundqa.judges.answer_judge`)."""
    from groundqa.judges.answer_judge import judge_prompt as prompt

    return prompt(title, before, sentence, question)


def _base_gguf() -> Path:
    from groundqa.config import Settings
    from groundqa.lm.embedded import model_path

    return Path(model_path(Settings().cache_dir))


def _sentence_at(sentences: list[str], paragraph: str, offset: int) -> int | None:
    position = 0
    for i, sentence in enumerate(sentences):
        start = paragraph.find(sentence, position)
        if start < 0:
            continue
        if start <= offset < start + len(sentence) + 1:
            return i
        position = start + len(sentence)
    return None


def _pair(article: str, sentences: list[str], qa: dict[str, Any], k: int, label: int, kind: str,
          suffix: str = "") -> dict[str, Any]:
    """One judge pair: sentence ``k`` of a paragraph (after the one before it) and the question."""
    before = sentences[k - 1] if k else ""
    return {"article": article, "id": qa["id"] + suffix, "label": label, "kind": kind,
            "prompt": judge_prompt(article.replace("_", " "), before, sentences[k], qa["question"])}


def make_pairs(out: Path, perturbed: int = 0) -> None:
    """``out/pairs.jsonl`` (prompt, label, kind, token ids) and ``out/labels.json`` (the two label tokens). With
    ``perturbed``, also that many no's per answerable question: the question swapped so that its gold sentence no
    longer answers it (:func:`perturbed_questions`, drawn from the article's own names and words)."""
    from types import SimpleNamespace

    from llama_cpp import Llama

    from groundqa.datasets.squad import SQUAD2_TRAIN_ARTICLES, default_squad2_path
    from groundqa.text import split_sentences

    rng = random.Random(0)
    rows: list[dict[str, Any]] = []
    for article in json.loads(default_squad2_path().read_text())["data"]:
        if article["title"] not in SQUAD2_TRAIN_ARTICLES:
            continue
        vocabulary = _corpus_vocabulary([SimpleNamespace(text=p["context"]) for p in article["paragraphs"]])
        for paragraph in article["paragraphs"]:
            sentences = split_sentences(paragraph["context"])
            for qa in paragraph["qas"]:
                spans = qa["plausible_answers"] if qa["is_impossible"] else qa["answers"]
                i = _sentence_at(sentences, paragraph["context"], spans[0]["answer_start"]) if spans else None
                if i is None:
                    continue
                label, kind = (0, "plausible") if qa["is_impossible"] else (1, "gold")
                rows.append(_pair(article["title"], sentences, qa, i, label, kind))
                if perturbed and not qa["is_impossible"]:
                    title, before = article["title"].replace("_", " "), sentences[i - 1] if i else ""
                    rows += [{"article": article["title"], "id": f"{qa['id']}-{how}", "label": 0,
                              "kind": f"perturbed-{how}", "prompt": judge_prompt(title, before, sentences[i], text)}
                             for text, how in perturbed_questions(qa["question"], sentences[i], *vocabulary, perturbed,
                                                                  random.Random(f"swap/{qa['id']}"))]
                if not qa["is_impossible"] and len(sentences) > 1 and rng.random() < 0.5:
                    others = [k for k in range(len(sentences)) if k != i and spans[0]["text"] not in sentences[k]]
                    if others:
                        rows.append(_pair(article["title"], sentences, qa, rng.choice(others), 0, "other", "-other"))
    vocab = Llama(model_path=str(_base_gguf()), vocab_only=True, verbose=False)
    for row in rows:
        row["ids"] = vocab.tokenize(row["prompt"].encode(), add_bos=True, special=False)
    labels = {w: vocab.tokenize(f" {w}".encode(), add_bos=False, special=False) for w in ("yes", "no")}
    if any(len(ids) != 1 for ids in labels.values()):
        raise SystemExit(f"' yes' and ' no' must be one token each: {labels}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "labels.json").write_text(json.dumps(labels))
    kinds = {k: sum(r["kind"].startswith(k) for r in rows) for k in ("gold", "plausible", "other", "perturbed")}
    print(f"{len(rows)} pairs {kinds} -> {out}", file=sys.stderr)


VALIDATION = ("chess", "island", "mine", "monastery", "waterworks", "tramway", "opera", "marsh", "lace")
SELECTION = VALIDATION[:4]  # where the program's rescue threshold was chosen; the other five confirmed it
KEPT_FRESH = ("circus", "college", "ferry", "quarry", "spa", "customs", "porcelain", "compiler", "bellfoundry", "cluster", "dairy",
              "clockworks", "radio", "perfumery", "regatta", "survey")
"""Workbench corpora written after the shipped judge was trained (session 21): ``candidates`` reads none of them, so
it rebuilds the shipped judge's data, and they stay unseen by any judge, to confirm the next one."""
DATASETS = Path(__file__).parents[1] / "datasets"


def _auc(positive: Any, negative: Any) -> float:
    """The chance that a positive's margin beats a negative's (ties count half)."""
    import numpy as np

    pos, neg = np.asarray(positive, dtype=float)[:, None], np.asarray(negative, dtype=float)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def candidate_sources() -> list[tuple[str, Path, Path]]:
    """(name, corpus, questions) of every set ``candidates`` reads: bundled train, the extra questions on the bundled
    corpus and each workbench corpus but those ``KEPT_FRESH``. Never bundled dev or test."""
    bundled = DATASETS / "bundled" / "corpus.jsonl"
    return [("bundled-train", bundled, DATASETS / "bundled" / "train.jsonl"),
            ("bundledx", bundled, DATASETS / "workbench" / "bundled" / "questions.jsonl"),
            *((folder.name, folder / "corpus.jsonl", folder / "questions.jsonl")
              for folder in sorted((DATASETS / "workbench").iterdir())
              if (folder / "corpus.jsonl").is_file() and folder.name not in KEPT_FRESH)]


_NAME = re.compile(r"\b[A-Z][a-z][\w'-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-z][\w'-]*)*")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-4]\d)\b")
_WORD = re.compile(r"\b[a-z]{4,}\b")
# the words that say what is asked, never swapped ("In which *year*"), and names that are calendar words
_ASKED = frozenset(re.findall(r"[a-z]+", "year years date day month time kind type name many much long tall high deep wide"))
_CALENDAR = frozenset(re.findall(r"[a-z]+", """january february march april may june july august september october
    november december monday tuesday wednesday thursday friday saturday sunday"""))


@functools.cache
def _opposites() -> dict[str, list[str]]:
    """Each word of the contradiction table's pairs and closed sets, as written, with the words it conflicts with."""
    from groundqa.programs.contradiction import _CLOSED_SETS, _PAIRS

    table: dict[str, list[str]] = {}
    for group in [*_PAIRS.split("|"), *_CLOSED_SETS.split("|")]:
        words = group.split()
        for word in words:
            table.setdefault(word, []).extend(w for w in words if w != word)
    return table


def _corpus_vocabulary(docs: list[Any]) -> tuple[list[str], list[str]]:
    """The names (written with capitals, not opening a sentence) and the lower-case content words of a corpus."""
    names: set[str] = set()
    words: set[str] = set()
    for doc in docs:
        for match in _NAME.finditer(doc.text):
            before = doc.text[: match.start()].rstrip()
            if before and before[-1] not in ".!?\"(" and match.group(0).lower() not in _CALENDAR:
                names.add(match.group(0))
        words.update(_WORD.findall(doc.text))
    return sorted(names), sorted(words)


def perturbed_questions(question: str, sentence: str, names: list[str], words: list[str], count: int,
                        rng: random.Random) -> list[tuple[str, str]]:
    """Up to ``count`` (question, how) that ``sentence``, which answers ``question``, no longer answers: SQuAD 2.0's
    way of writing unanswerable questions, applied to the program's own training questions. A name the sentence
    says swapped for another name of the corpus ("*Newton* was instrumental in describing …" for Galileo's sentence),
    a word for the word the contradiction table opposes to it ("*modern*" for "*medieval*"), a year for another
    year, or a content word for another word of the corpus. Never a word the sentence also holds after the swap."""
    from groundqa.judges.lexical import features

    said = features(sentence)
    found: list[tuple[str, str]] = []
    opposites = _opposites()
    body = question[1:]  # the question's first word is capitalised as any first word
    for match in _NAME.finditer(body):
        span = match.group(0)
        size = len(span.split())
        if not all(said.covers(t) for t in features(span).tokens):
            continue
        pool = [n for n in names if len(n.split()) == size and not (features(n).tokens & said.tokens)
                and not (features(n).tokens & features(question).tokens)]
        if pool:
            found.append((question[0] + body[: match.start()] + rng.choice(pool) + body[match.end():], "name"))
    for match in re.finditer(r"\b[a-z]+\b", question):
        word = match.group(0)
        if re.search(r"(?i)\bhow\s+$", question[: match.start()]):
            continue  # "how *long*" asks a length, which "how short" asks too
        others = [w for w in opposites.get(word, []) if not (features(w).tokens & said.tokens)]
        if others and said.covers(next(iter(features(word).tokens), word)):
            found.append((question[: match.start()] + rng.choice(others) + question[match.end():], "antonym"))
    for match in _YEAR.finditer(question):
        shifted = str(int(match.group(0)) + rng.choice([-3, -2, -1, 1, 2, 3]))
        if shifted not in sentence:
            found.append((question[: match.start()] + shifted + question[match.end():], "year"))
    content = [m for m in _WORD.finditer(question) if features(m.group(0)).content and m.group(0) not in _ASKED
               and said.covers(next(iter(features(m.group(0)).content)))]
    if content and words:
        match = rng.choice(content)
        word = match.group(0)
        # a word of the same ending reads as the same part of speech ("altitude" -> "latitude", "built" -> "spilt")
        pool = [w for w in words if w[-3:] == word[-3:] and features(w).content
                and not (features(w).tokens & said.tokens) and not (features(w).tokens & features(question).tokens)]
        if pool:
            found.append((question[: match.start()] + rng.choice(pool) + question[match.end():], "word"))
    rng.shuffle(found)
    found.sort(key=lambda f: f[1] == "word")  # the swaps SQuAD's writers make first, a random word last
    return found[:count]


def _candidates(name: str, docs: list[Any], questions: list[Any], negatives: int | None,
                others: int = 0, perturbed: int = 0) -> list[dict[str, Any]]:
    """Judge pairs from what the program itself deliberates on: every sentence of the passages retrieved for
    each question that holds a value of the asked type and that no rule vetoes. A sentence of a gold document
    holding a gold answer is a yes; every other such sentence a no (all of an unanswerable question's). With
    ``negatives``, only that many no's per question, those the answer check scores highest (the near misses), and
    ``others`` more drawn from the sentences the rules pass over (no value of the asked type, or vetoed: a veto
    leaves ``has_type`` false); without ``negatives``, every sentence (for scoring). With ``perturbed``, that many
    questions per answered training question that its gold sentence no longer answers (:func:`perturbed_questions`),
    each a no beside that sentence."""
    from groundqa.programs.answerability import asked, check
    from groundqa.text import opening, split_sentences
    from groundqa.workbench import corpus_program

    program = corpus_program("questions", docs, questions)
    vocabulary = _corpus_vocabulary(docs)
    shown: dict[str, tuple[str, str, str]] = {}  # a yes row's (title, sentence before, sentence)
    rows: list[dict[str, Any]] = []
    for q in questions:
        what = asked(q.question)
        golds = [] if q.should_abstain else [a.lower() for a in q.answers if a.lower() not in ("yes", "no")]
        yes, no = [], []
        seen: set[str] = set()
        for passage in program.retriever.retrieve(q.question, program.gates.k):
            parts = split_sentences(passage.text)
            for i, sentence in enumerate(parts):
                if sentence in seen:
                    continue
                seen.add(sentence)
                verdict = check(what, sentence, title=f"{passage.title}. {parts[i - 1] if i else ''}",
                                about=opening(passage.text))
                gold = passage.doc_id in q.gold_docs and any(g in sentence.lower() for g in golds)
                row = {"article": name, "id": f"{name}/{q.id}/{len(seen)}", "question_id": f"{name}/{q.id}",
                       "label": int(gold), "kind": "gold" if gold else ("unanswerable" if q.should_abstain else "other"),
                       "check": round(verdict.score, 4), "has_type": verdict.has_type,
                       "prompt": judge_prompt(passage.title, parts[i - 1] if i else "", sentence, q.question)}
                (yes if gold else no).append(row)
                if gold:
                    shown[row["id"]] = (passage.title, parts[i - 1] if i else "", sentence)
        no.sort(key=lambda r: -r["check"])
        if negatives is None:
            rows += yes + no
            continue
        typed = [r for r in no if r["has_type"]]
        passed = [r for r in no if not r["has_type"]]
        rows += yes + typed[:negatives] + random.Random(f"{name}/{q.id}").sample(passed, min(others, len(passed)))
        if yes and perturbed:
            rows += _perturbed_rows(yes[0], shown[yes[0]["id"]], q.question, vocabulary, perturbed,
                                    random.Random(f"swap/{name}/{q.id}"))
    print(f"{name}: {len(rows)} pairs, {sum(r['label'] for r in rows)} yes", file=sys.stderr, flush=True)
    return rows


def _perturbed_rows(gold: dict[str, Any], shown: tuple[str, str, str], question: str,
                    vocabulary: tuple[list[str], list[str]], count: int, rng: random.Random) -> list[dict[str, Any]]:
    """The no rows of :func:`perturbed_questions` beside the gold row's sentence, as ``shown`` (title, sentence
    before, sentence)."""
    title, before, sentence = shown
    return [{**gold, "id": f"{gold['id']}/{how}", "label": 0,
             "kind": f"perturbed-{how}", "prompt": judge_prompt(title, before, sentence, text)}
            for text, how in perturbed_questions(question, sentence, *vocabulary, count, rng)]


def make_candidates(out: Path, validation: tuple[str, ...], negatives: int, others: int = 0, perturbed: int = 0,
                    squad_val: str = "") -> None:
    """``out/pairs.jsonl``: SQuAD's training-article pairs (:func:`make_pairs`) and the program's own candidates
    (:func:`_candidates`) on bundled train and every workbench corpus, marked ``split`` "train", except the
    ``validation`` corpora, marked "val" (every candidate kept, for scoring only), and the SQuAD article
    ``squad_val``, also "val". ``perturbed``: swapped questions per answered question (:func:`perturbed_questions`),
    on every split but the validation corpora. Never bundled dev/test or SQuAD's held-out articles."""
    from groundqa.datasets.loaders import load_corpus, load_questions_jsonl

    make_pairs(out, perturbed)
    rows = [{**row, "split": "val" if row["article"] == squad_val else "train"}
            for row in map(json.loads, (out / "pairs.jsonl").open())]
    for name, corpus, questions in candidate_sources():
        held = name in validation
        rows += [{**r, "split": "val" if held else "train"}
                 for r in _candidates(name, load_corpus(corpus).items, load_questions_jsonl(questions).items,
                                      None if held else negatives, others, 0 if held else perturbed)]
    from llama_cpp import Llama

    vocab = Llama(model_path=str(_base_gguf()), vocab_only=True, verbose=False)
    for row in rows:
        row["ids"] = vocab.tokenize(row["prompt"].encode(), add_bos=True, special=False)
    (out / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts = {s: (sum(r["split"] == s for r in rows), sum(r["split"] == s and r["label"] for r in rows))
              for s in ("train", "val")}
    print(f"{len(rows)} pairs (pairs, yes) per split {counts} -> {out}", file=sys.stderr)


def _hf_copy() -> Path:
    """The dequantised transformers copy of the base model that the fine-tuning engine caches beside the GGUF
    (built on first use, about 70 s)."""
    from groundqa.lm.finetune.adapter import base_model_sha256
    from groundqa.lm.finetune.lora import hf_model_dir, load_base_model

    base = _base_gguf()
    folder = hf_model_dir(base, base_model_sha256(base))
    if not (folder / "model.safetensors").is_file():
        load_base_model(base)  # dequantises and caches it (the model it returns is not needed here)
    return folder


def pack(out: Path) -> None:
    """``out/weights-a.npz`` + ``out/weights-b.npz`` (two parts under a lease's 64 MiB each), ``meta.json``,
    ``vocab_keep.npy`` and ``config.json``; every tensor is checked against the dequantised transformers copy
    the fine-tuning engine caches (:func:`_hf_copy`)."""
    import gguf
    import numpy as np
    from gguf.quants import dequantize
    from safetensors.numpy import load_file

    hf_dir = _hf_copy()
    config = json.loads((hf_dir / "config.json").read_text())
    reader = gguf.GGUFReader(str(_base_gguf()))
    tensors = {t.name: t for t in reader.tensors}
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.GEMMA3, config["num_hidden_layers"])
    keep_ids: set[int] = {0, 1, 2}
    for line in (out / "pairs.jsonl").open():
        keep_ids.update(json.loads(line)["ids"])
    for ids in json.loads((out / "labels.json").read_text()).values():
        keep_ids.update(ids)
    keep = np.array(sorted(keep_ids), dtype=np.int64)
    meta: dict[str, Any] = {}
    arrays: dict[str, Any] = {}
    for key, value in load_file(str(hf_dir / "model.safetensors")).items():
        if key == "lm_head.weight":  # tied: saved once, under the head's name
            key, tensor = "model.embed_tokens.weight", tensors["token_embd.weight"]
            raw = np.asarray(tensor.data).reshape(tensor.data.shape[0], -1)[keep]
            if not np.array_equal(dequantize(raw, tensor.tensor_type).reshape(len(keep), -1), value[keep]):
                raise SystemExit("the embedding rows do not dequantise to transformers' copy")
            arrays[key], meta[key] = raw, {"type": int(tensor.tensor_type), "shape": [len(keep), value.shape[1]], "plus": 0.0}
            continue
        tensor = tensors[names.get_name(key.removesuffix(".weight")) + ".weight"]
        raw = np.asarray(tensor.data)
        weights = dequantize(raw, tensor.tensor_type).reshape(value.shape)
        plus = 0.0 if np.array_equal(weights, value) else -1.0  # llama.cpp stores Gemma's norms as 1 + w
        if plus and not np.allclose(weights - 1.0, value, atol=1e-6):
            raise SystemExit(f"{key}: the GGUF tensor does not match transformers' copy")
        arrays[key], meta[key] = raw, {"type": int(tensor.tensor_type), "shape": list(value.shape), "plus": plus}
    parts: list[dict[str, Any]] = [{}, {}]
    size = 0
    for key in sorted(arrays):
        size += arrays[key].nbytes
        parts[0 if size < 52e6 else 1][key] = arrays[key]
    np.savez(out / "weights-a.npz", **parts[0])
    np.savez(out / "weights-b.npz", **parts[1])
    np.save(out / "vocab_keep.npy", keep)
    (out / "meta.json").write_text(json.dumps(meta))
    (out / "config.json").write_text(json.dumps(config))
    print(f"{len(meta)} tensors, {len(keep)} vocabulary rows -> {out}", file=sys.stderr)


def train(data: Path, out: Path, device: str, weights_a: Path | None, fixed: bool = False, epochs: int = 3) -> None:
    """Score three configurations on the held-back article, train the best on every pair, write
    ``out/judge-lora.safetensors`` and ``out/judge-train.json``. With ``fixed`` (pairs from ``candidates``):
    one configuration, chosen beforehand, fitted on the "train" split and scored on the "val" split after
    every epoch (reported, never used to choose), the val margins in ``out/val-margins.json``."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize
    from peft import LoraConfig, get_peft_model, get_peft_model_state_dict
    from safetensors.torch import save_file
    from transformers import AutoConfig, Gemma3ForCausalLM

    started = time.time()
    meta = json.loads((data / "meta.json").read_text())
    raw = dict(np.load(weights_a or data / "weights-a.npz"))
    raw.update(dict(np.load(data / "weights-b.npz")))
    keep = np.load(data / "vocab_keep.npy")
    state = {k: torch.from_numpy(dequantize(raw[k], GGMLQuantizationType(m["type"])).reshape(m["shape"]).astype(np.float32)
                                 + m["plus"]) for k, m in meta.items()}
    labels = json.loads((data / "labels.json").read_text())
    yes, no = (int(np.searchsorted(keep, labels[w][0])) for w in ("yes", "no"))
    rows = [json.loads(line) for line in (data / "pairs.jsonl").open()]
    for row in rows:
        row["x"] = np.searchsorted(keep, row["ids"]).tolist()

    def base_model() -> Any:
        config = AutoConfig.from_pretrained(data)
        config.vocab_size = len(keep)
        model = Gemma3ForCausalLM(config)
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected or set(missing) - {"lm_head.weight"}:
            raise SystemExit(f"weights do not fit the model: missing {missing}, unexpected {unexpected}")
        model.tie_weights()
        return model.to(device)

    def margins(model: Any, batch: list[dict[str, Any]]) -> Any:
        """logit(" yes") - logit(" no") after each prompt, as llama.cpp reads it."""
        width = max(len(r["x"]) for r in batch)
        ids = torch.zeros(len(batch), width, dtype=torch.long)
        mask = torch.zeros(len(batch), width, dtype=torch.long)
        for i, r in enumerate(batch):
            ids[i, : len(r["x"])], mask[i, : len(r["x"])] = torch.tensor(r["x"]), 1
        ids, mask = ids.to(device), mask.to(device)
        body = model.get_base_model().model if hasattr(model, "get_base_model") else model.model
        hidden = body(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state
        last = hidden[torch.arange(len(batch), device=device), mask.sum(1) - 1].float()
        head = model.get_input_embeddings().weight[[yes, no]].float()
        return last @ head.T

    def judged(model: Any, pairs: list[dict[str, Any]]) -> list[float]:
        """Each pair's margin, in batches of 64, the model in eval mode."""
        model.eval()
        scores: list[float] = []
        with torch.no_grad(), torch.autocast(device, dtype=torch.bfloat16):
            for i in range(0, len(pairs), 64):
                s = margins(model, pairs[i: i + 64])
                scores += (s[:, 0] - s[:, 1]).tolist()
        return scores

    def evaluate(model: Any, pairs: list[dict[str, Any]]) -> dict[str, Any]:
        y, m = np.array([r["label"] for r in pairs]), np.array(judged(model, pairs))
        by_kind = {k: round(float(np.mean([(m[j] > 0) == (pairs[j]["label"] == 1) for j in idx])), 3)
                   for k in ("gold", "plausible", "other", "unanswerable") if (idx := [j for j, r in enumerate(pairs) if r["kind"] == k])}
        return {"auc": round(_auc(m[y == 1], m[y == 0]), 4),
                "accuracy": round(float(((m > 0) == (y == 1)).mean()), 4), "by_kind": by_kind}

    def fit(pairs: list[dict[str, Any]], settings: dict[str, Any], held: list[dict[str, Any]] | None) -> tuple[Any, list]:
        torch.manual_seed(0)
        model = get_peft_model(base_model(), LoraConfig(r=settings["rank"], lora_alpha=settings["alpha"],
                                                        lora_dropout=0.0, target_modules=TARGETS, bias="none"))
        optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings["lr"],
                                      weight_decay=0.0)
        steps = settings["epochs"] * math.ceil(len(pairs) / settings["batch"])
        warm = max(1, steps // 10)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
        history = [{"epoch": 0, **evaluate(model, held)}] if held else []
        for epoch in range(settings["epochs"]):
            order = list(range(len(pairs)))
            random.Random(f"0:{epoch}").shuffle(order)
            model.train()
            losses = []
            for i in range(0, len(order), settings["batch"]):
                batch = [pairs[j] for j in order[i: i + settings["batch"]]]
                with torch.autocast(device, dtype=torch.bfloat16):
                    s = margins(model, batch)
                loss = F.cross_entropy(s, torch.tensor([0 if r["label"] else 1 for r in batch], device=device))
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                losses.append(loss.item())
            record = {"epoch": epoch + 1, "loss": round(float(np.mean(losses)), 4)}
            if held:
                record.update(evaluate(model, held))
            history.append(record)
            print(json.dumps(record), file=sys.stderr, flush=True)
        return model, history

    out.mkdir(parents=True, exist_ok=True)
    if fixed:
        settings = {"rank": 16, "alpha": 32, "lr": 2e-4, "batch": 16, "epochs": epochs}
        fitting = [r for r in rows if r["split"] == "train"]
        held = [r for r in rows if r["split"] == "val"]
        model, history = fit(fitting, settings, held if len(held) <= 2000 else None)
        scores = judged(model, held)
        (out / "val-margins.json").write_text(json.dumps({r["id"]: round(m, 4) for r, m in zip(held, scores, strict=True)}))
        rows = fitting
        best = settings
        runs: list[dict[str, Any]] = []
    else:
        model, history, best, runs = _search(fit, rows)
        fitting = [r for r in rows if r["article"] != HELD_BACK]
        held = [r for r in rows if r["article"] == HELD_BACK]
    lora = get_peft_model_state_dict(model, save_embedding_layers=False)
    save_file({k: v.detach().float().cpu().contiguous() for k, v in lora.items() if "lora_" in k},
              str(out / "judge-lora.safetensors"))
    with torch.no_grad():
        check = margins(model.eval(), rows[:8])
    (out / "judge-train.json").write_text(json.dumps({
        "held_back": "val split" if fixed else HELD_BACK, "pairs": len(rows), "pairs_fitted_per_config": len(fitting),
        "pairs_held_back": len(held), "runs": runs, "final": {"config": best, "history": history},
        "margins_rows_0_8": (check[:, 0] - check[:, 1]).tolist(), "alpha": best["alpha"],
        "n_blocks": model.config.num_hidden_layers,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else device,
        "seconds": round(time.time() - started, 1)}, indent=1))


def _search(fit: Any, rows: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """Session 15's search: three configurations scored on the held-back article, the best refitted on every pair."""
    fitting = [r for r in rows if r["article"] != HELD_BACK]
    held = [r for r in rows if r["article"] == HELD_BACK]
    configs = [{"rank": 16, "alpha": 32, "lr": 2e-4, "batch": 16, "epochs": 3},
               {"rank": 16, "alpha": 32, "lr": 1e-4, "batch": 16, "epochs": 3},
               {"rank": 16, "alpha": 32, "lr": 4e-4, "batch": 16, "epochs": 2}]
    runs = []
    for settings in configs:
        t = time.time()
        runs.append({"config": settings, "history": fit(fitting, settings, held)[1], "seconds": round(time.time() - t, 1)})
    best = max(runs, key=lambda r: r["history"][-1]["auc"])["config"]
    model, history = fit(rows, best, None)
    return model, history, best, runs


def export(run: Path) -> None:
    """``run/judge.gguf`` from ``run/judge-lora.safetensors``; prints llama.cpp's margins on the first
    eight pairs beside the trainer's (they agree within bf16 training noise)."""
    from safetensors.numpy import load_file

    from groundqa.lm.finetune.adapter import base_model_sha256
    from groundqa.lm.finetune.export import write_adapter_gguf

    base = _base_gguf()
    trained = json.loads((run / "judge-train.json").read_text())
    path = write_adapter_gguf(load_file(str(run / "judge-lora.safetensors")), run / "judge.gguf",
                              alpha=trained["alpha"], base_sha256=base_model_sha256(base),
                              n_blocks=trained["n_blocks"])
    print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def validate(data: Path, run: Path) -> None:
    """The AUC of the judge's margins (``run/val-margins.json``, written by ``train --fixed``) on the validation
    corpora of ``data/pairs.jsonl``: over every sentence, and over the sentences holding a value of the asked type
    (those the answerability check scores), beside the check's own AUC; for the four corpora the rescue threshold
    was chosen on and for the other five."""
    margins = json.loads((run / "val-margins.json").read_text())
    rows = [r for r in map(json.loads, (data / "pairs.jsonl").open()) if r["split"] == "val"]
    for group, names in (("selection", SELECTION), ("confirmation", tuple(n for n in VALIDATION if n not in SELECTION))):
        every = [r for r in rows if r["article"] in names]
        typed = [r for r in every if r["has_type"]]

        def auc_of(pairs: list[dict[str, Any]], key: Any) -> float:
            return _auc([key(r) for r in pairs if r["label"]], [key(r) for r in pairs if not r["label"]])

        print(f"{group} ({', '.join(names)}): every sentence {len(every)} pairs, judge AUC "
              f"{auc_of(every, lambda r: margins[r['id']]):.3f}; typed {len(typed)} pairs, judge AUC "
              f"{auc_of(typed, lambda r: margins[r['id']]):.3f}, answer check AUC {auc_of(typed, lambda r: r['check']):.3f}")
    squad = [r for r in rows if r["article"] not in VALIDATION]
    if squad:
        gold = [margins[r["id"]] for r in squad if r["kind"] == "gold"]
        for kind in ("plausible", "other"):
            others = [margins[r["id"]] for r in squad if r["kind"] == kind]
            print(f"SQuAD article {squad[0]['article']}: gold ({len(gold)}) against {kind} ({len(others)}): judge AUC "
                  f"{_auc(gold, others):.3f}")


WORKBENCH = ("software", "valley", "institute", "orchestra", "railway", "vineyard", "airline", "football")


def score(adapter: Path | None, evaluations: str) -> None:
    """Veto analysis on the development sets: every kept answer of ``{evaluations}{set}.json`` (saved by
    ``groundqa evaluate --json``) is judged sentence by sentence; prints, per threshold t, the change in
    each set's composite had answers whose first sentence scores below t abstained instead."""
    from groundqa.judges.answer_judge import AnswerJudge
    from groundqa.text import split_sentences, strip_citations

    judge = AnswerJudge(adapter, _base_gguf())
    sets = {"train": "datasets/bundled/corpus.jsonl", "bundledx": "datasets/bundled/corpus.jsonl",
            **{s: f"datasets/workbench/{s}/corpus.jsonl" for s in WORKBENCH}}
    deltas: dict[str, list[tuple[float, float, int]]] = {}
    for name, corpus in sets.items():
        docs: dict[str, list[list[str]]] = {}
        for line in Path(corpus).read_text().splitlines():
            doc = json.loads(line)
            docs.setdefault(doc["title"], []).append(split_sentences(doc["text"]))
        records = json.loads(Path(f"{evaluations}{name}.json").read_text())["records"]
        deltas[name] = []
        for r in records:
            if r["abstained"] or r["error"] or not r["answer"] or not r["cited_sources"]:
                continue
            sentence, title = strip_citations(split_sentences(r["answer"])[0]).strip(), r["cited_sources"][0]
            before = next((s[s.index(sentence) - 1] for s in docs.get(title, []) if sentence in s and s.index(sentence)), "")
            margin = judge.margin(title, before, sentence, r["question"])
            vetoed = (1.0 if r["scores"]["should_abstain"] else 0.0) - r["scores"]["score"]
            deltas[name].append((margin, vetoed, len(records)))
        print(f"{name}: {len(deltas[name])} answers judged", file=sys.stderr, flush=True)
    print("t      " + " ".join(f"{n[:8]:>8}" for n in deltas) + "    mean")
    for t in (-4, -3, -2, -1, 0):
        changes = [sum(v for m, v, _ in rows if m < t) / rows[0][2] if rows else 0.0 for rows in deltas.values()]
        print(f"{t:>4}   " + " ".join(f"{c:+8.3f}" for c in changes) + f"  {sum(changes) / len(changes):+.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("pairs").add_argument("--out", type=Path, required=True)
    p = sub.add_parser("candidates")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--negatives", type=int, default=4, help="no's kept per training question (the nearest misses)")
    p.add_argument("--others", type=int, default=0, help="no's per training question drawn from the sentences the "
                                                         "rules pass over")
    p.add_argument("--perturbed", type=int, default=0, help="questions per answered training question that its gold "
                                                            "sentence no longer answers (a name, opposite, year or "
                                                            "word swapped), each a no")
    p.add_argument("--squad-val", default="", help="a SQuAD training article scored, never fitted (e.g. Normans)")
    sub.add_parser("pack").add_argument("--out", type=Path, required=True)
    p = sub.add_parser("train")
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--device", default="cpu")
    p.add_argument("--weights-a", type=Path, help="the first weights part, where it was copied elsewhere")
    p.add_argument("--fixed", action="store_true", help="pairs from `candidates`: fit the train split, score val")
    p.add_argument("--epochs", type=int, default=3, help="with --fixed")
    sub.add_parser("export").add_argument("--run", type=Path, required=True)
    p = sub.add_parser("validate")
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--run", type=Path, required=True)
    p = sub.add_parser("score")
    p.add_argument("--adapter", type=Path, help="none: the base model")
    p.add_argument("--evaluations", required=True, help="prefix of the saved evaluations, e.g. /tmp/dev/e65-")
    args = parser.parse_args()
    if args.step == "pairs":
        make_pairs(args.out)
    elif args.step == "candidates":
        make_candidates(args.out, VALIDATION, args.negatives, args.others, args.perturbed, args.squad_val)
    elif args.step == "pack":
        pack(args.out)
    elif args.step == "train":
        train(args.data, args.out, args.device, args.weights_a, args.fixed, args.epochs)
    elif args.step == "export":
        export(args.run)
    elif args.step == "validate":
        validate(args.data, args.run)
    else:
        score(args.adapter, args.evaluations)


if __name__ == "__main__":
    main()
