"""Premise verification: extract presuppositions, retrieve for each, judge each, in parallel.

A claim is supported only if the judge says so with confidence >= ``gates.premise_threshold`` (0.6
by default, as in the seed) *and* its best retrieval score clears ``gates.premise_floor``: the
adversarial signal lives in retrieval scores as much as in the judge. The relation a look-up *asks*
about (role ``asked``) needs only judge support >= ``gates.asked_premise_threshold``: where it is
answered, a passage may word it otherwise. An *existence* claim (a name,
a located description, a dated subject) also holds when one passage names every part of it, whatever its
wording and however low it ranks; when the nearest passages do not, the claim's most specific word is
looked up in so many words (Chroma's full-text filter), since a rare name embeds poorly. A look-up about
something the corpus knows is never refused. What a why-question explains (role ``explained``) also holds where a
sentence that gives its cause states it under its page's title ("Penhallow resigned in 1904 *because of* failing
eyesight" for "Why did Josiah Penhallow step down as principal?"). An unsupported claim is then
checked for a contradiction (:mod:`.contradiction`): a passage that says otherwise makes it
``contradicted``, with that sentence as the correction; silence leaves it ``unsupported``. When
extraction or judging fails the verifier fails open (the question goes on) or closed (the program
abstains), as configured, and says which.
"""

from __future__ import annotations

import contextvars
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import dspy

from groundqa.judges import get_judge
from groundqa.judges.lexical import features, stem
from groundqa.judges.paraphrase import says
from groundqa.runtime.run import RunStopped, current_run, stage_scope
from groundqa.signatures.qa import ExtractPresuppositions, JudgeClaim, Presupposition
from groundqa.signatures.types import Citation, Passage, PremiseVerdict
from groundqa.text import content_words, split_sentences

from .answerability import GIVES_CAUSE
from .context import build_context
from .contradiction import ALL_KINDS, ConflictKind, find_contradiction
from .gates import Gates
from .presuppositions import MAX_CLAIMS, MAX_WORDS, heuristic_presuppositions
from .retriever import Retriever

Extractor = Literal["lm", "heuristic"]
JUDGED = 3
"""Passages the judge reads per claim (the best-ranked of ``gates.premise_k``; the word checks read all)."""
NEAR_JUDGED = 2
"""Passages retrieved for the question itself that the judge also reads per claim (the best-ranked, where the claim's
own retrieval did not bring them): a claim is a shred of the question ("the allocation committee awards in 2023"), and
the question's other words ("how many *core-hours* did …") can find the passage that says it ("In 2023 the committee
awarded 310 million core-hours to 164 projects") where the shred alone does not."""
JudgeKind = Literal["lm", "offline"]
ASKED_CONFLICTS: frozenset[ConflictKind] = frozenset(("year", "person", "antonym"))
"""How a passage may contradict the relation a look-up asks about (a negation there is mostly in passing)."""
COUNTED_CONFLICTS: frozenset[ConflictKind] = ASKED_CONFLICTS | {"negation"}
"""How a passage may contradict what a how-many question counts: also by saying none of it happened ("no one was
killed")."""
_WORDED_OTHERWISE = frozenset(("asked", "counted"))
"""Roles whose claim a passage may word otherwise and is judged by support alone (``gates.asked_premise_threshold``)."""


class PremiseVerifier(dspy.Module):
    """``forward(question) -> dspy.Prediction(verdicts, status, unsupported)``.

    ``status`` is ``passed`` (every claim supported, or none to check), ``contradicted`` (a passage
    says a claim is false), ``failed`` (a claim is unsupported), ``fail_open`` / ``fail_closed``
    (extraction or judging failed). Thresholds come with each call (the program's :class:`Gates`; the
    module holds none, so a copied program never carries stale ones).
    """

    def __init__(
        self,
        retriever: Retriever,
        extractor: Extractor = "lm",
        judge: JudgeKind = "lm",
        fail_mode: Literal["open", "closed"] = "open",
        max_workers: int = 3,
    ) -> None:
        super().__init__()
        self.retriever = retriever
        self.extractor = extractor
        self.judge_kind = judge
        self.fail_mode = fail_mode
        self.max_workers = max_workers
        self.extract = dspy.Predict(ExtractPresuppositions)
        self.judge = dspy.Predict(JudgeClaim)

    # -- extraction ------------------------------------------------------------------------
    def presuppositions(self, question: str) -> list[Presupposition]:
        if self.extractor == "heuristic":
            return heuristic_presuppositions(question)
        with stage_scope("premises"):
            claims = self.extract(question=question).presuppositions or []
        cleaned: list[Presupposition] = []
        for claim in claims[:MAX_CLAIMS]:
            text = " ".join(str(claim.claim).split()[:MAX_WORDS])
            if text:
                cleaned.append(claim.model_copy(update={"claim": text}))
        return cleaned

    # -- judging ---------------------------------------------------------------------------
    def verify(self, claim: Presupposition, gates: Gates | None = None, near: list[Passage] | None = None
               ) -> PremiseVerdict:
        """The verdict on ``claim``; ``near``: passages retrieved for the question itself, whose best
        (:data:`NEAR_JUDGED`) the judge reads as well."""
        gates = gates if gates is not None else Gates()
        with stage_scope("premises"):
            passages = self.retriever.retrieve(claim.claim, gates.premise_k)
        judged = {p.chunk_id for p in passages[:JUDGED]}
        extra = [p for p in (near or [])[:NEAR_JUDGED] if p.chunk_id not in judged]
        best = max((p.score for p in [*passages, *extra]), default=0.0)
        if not passages:
            return PremiseVerdict(claim=claim.claim, supported=False, status="unsupported",
                                  rationale="nothing in the corpus matches this claim")
        mention = _mentioned(claim.claim, passages) if claim.kind == "existence" else None
        if mention is None and claim.kind == "existence":
            # a rare name embeds poorly ("Ayanz" scores 0.16 against its own page): look it up by its words
            named = self._named_passages(claim.claim, gates.premise_k)
            mention = _mentioned(claim.claim, named)
            if mention is not None:
                passages, mention = [named[mention], *passages], 0
        if mention is not None:
            # an existence claim holds when one passage names every part of it, whatever its wording (a
            # word check: the judge, which embeds every sentence, is not needed), however low the passage
            # ranks: the retrieval floor guards the judge's verdicts, not words found in so many letters
            said, confidence, cited = True, 1.0, [passages[mention].chunk_id]
            best = max(best, gates.premise_floor)
            rationale = f"passage {passages[mention].chunk_id} mentions every part of it"
        else:
            if claim.role in _WORDED_OTHERWISE and best < gates.premise_floor:
                # a rare name embeds poorly ("made the *Great Tun*" scores 0.21 against its page): a passage that
                # names everything the relation names, found in so many words, is near enough to judge
                named = [p for p in self._named_passages(claim.claim, gates.premise_k) if _names_all(claim.claim, p)]
                if named:
                    passages, best = [*named[:1], *passages], max(best, gates.premise_floor)
            # what a look-up asks about that itself means "not" ("atoms from passing through each other", of "What
            # prohibits atoms from passing …?") is said by a passage that negates it ("does not permit atoms to pass")
            polarity = claim.role != "asked" or not _PREVENTS.search(claim.claim)
            said, confidence, cited, rationale = self._judge(claim.claim, [*passages[:JUDGED], *extra], polarity=polarity)
        threshold, floor = gates.premise_threshold, gates.premise_floor
        if claim.role in _WORDED_OTHERWISE:
            # what a look-up asks about may be worded otherwise where it is answered: it is judged by support
            # alone, whatever the verdict (the offline judge's confidence is its support score; an LM's
            # confidence in "unsupported" is one minus it), and only a claim no passage comes near is refused
            threshold = gates.asked_premise_threshold
            if not said and self.judge_kind == "lm":
                confidence = 1.0 - confidence
            said = True
        supported = said and confidence >= threshold and best >= floor
        if not supported and claim.role == "asked" and gates.lexical_pool > 0:
            worded = self._worded(claim.claim, gates, {p.chunk_id for p in passages})
            if worded is not None:
                supported, confidence, cited = True, max(confidence, threshold), [worded.chunk_id]
                best = max(best, worded.score)
                rationale = f"a sentence of passage {worded.chunk_id} (found by its words) says every word of it"
        if not supported and claim.role == "explained" and best >= floor:
            because = _explained(claim.claim, passages, threshold)
            if because is not None:
                supported, confidence, cited, rationale = True, because[1], [because[0].chunk_id], because[2]
        if said and not supported:
            rationale = (rationale + " " if rationale else "") + (
                f"(confidence {confidence:.2f} < {threshold})" if confidence < threshold
                else f"(best retrieval score {best:.2f} < floor {floor})"
            )
        verdict = PremiseVerdict(
            claim=claim.claim, supported=supported, confidence=round(confidence, 4), retrieval_score=round(best, 4),
            evidence=cited, rationale=rationale.strip(), status="supported" if supported else "unsupported",
        )
        # an event the judge accepts can still be denied in so many words ("never in plaintext"): look
        if not supported or claim.kind == "event":
            # what a look-up asks about is not denied by a sentence that negates one of its words in
            # passing ("no seeds are kept that way" for "the seed bank stores its seeds"): another year,
            # person or opposite predicate only
            kinds = {"asserted": ALL_KINDS, "explained": ALL_KINDS, "asked": ASKED_CONFLICTS,
                     "counted": COUNTED_CONFLICTS}[claim.role]
            found = find_contradiction(claim.claim, passages, gates.contradiction, kinds)
            if found is not None:
                source = passages[found.passage]
                verdict.status, verdict.supported = "contradicted", False
                verdict.correction = Citation.of(1, source).model_copy(update={"snippet": found.sentence})
                verdict.rationale = (verdict.rationale + " " if verdict.rationale else "") + f"(a passage {found.detail})"
        return verdict

    def _worded(self, claim: str, gates: Gates, seen: set[str]) -> Passage | None:
        """A chunk the dense search left out, among BM25's best (``gates.lexical_pool``), one of whose sentences
        says every content word of ``claim`` and denies none of them (unless the claim itself means "not"): what a
        look-up asks about, found in so many words ("astronauts experience weightlessness when in free-fall" for
        "astronaughts experience while in free-fall", which MiniLM does not bring near). One sentence, not the
        chunk: "designed by Casimir Drell" and "three branches: … Stelling Hill" in one chunk are no design of the
        Stelling Hill Branch."""
        with stage_scope("premises"):
            found = [p for p in self.retriever.retrieve(claim, gates.premise_k, lexical=gates.lexical_pool)
                     if p.chunk_id not in seen]
        wanted = features(claim).content
        either_way = bool(_PREVENTS.search(claim))
        for passage in found:
            for sentence in split_sentences(passage.text):
                unit = features(f"{passage.title}. {sentence}")
                if wanted and all(unit.covers(t) for t in wanted) and (either_way or not _denied(wanted, sentence)):
                    return passage
        return None

    def _named_passages(self, claim: str, k: int) -> list[Passage]:
        """Passages holding the claim's most specific word, as written or in another case, best first (one
        retrieval). A name of several words is looked up whole first ("Hollinbrook Civic Society": in a corpus
        about Hollinbrook the k passages nearest the claim that hold its longest word may not include the one
        that names the society; a second retrieval only when the whole name is in none)."""
        term = _lookup_term(claim)
        if term is None:
            return []
        if _MULTIWORD_NAME.fullmatch(claim.strip()):
            whole = self.retriever.retrieve(claim, k, contains=(claim.strip(),))
            if whole:
                return whole
        return self.retriever.retrieve(claim, k, contains=(term, term.lower(), term.upper(), term.capitalize()))

    def _judge(self, claim: str, passages: list[Passage], polarity: bool = True) -> tuple[bool, float, list[str], str]:
        """(judged supported, confidence, chunk ids relied on, rationale) from the configured judge (the offline
        judge reads a negated passage as near the claim without ``polarity``)."""
        if self.judge_kind == "offline":
            # One passage must carry the whole claim: joint support across passages would let a
            # namesake's page lend the name and another page the event (cross-entity confusion).
            judge = get_judge("offline")
            # a passage is read under its title: a later chunk's "She graduated …" is about the page's subject
            verdicts = [judge.judge(claim, [titled(p)], polarity=polarity) for p in passages]
            index = max(range(len(verdicts)), key=lambda i: verdicts[i].support)
            verdict = verdicts[index]
            cited = [passages[index].chunk_id] if verdict.entailed else []
            return verdict.entailed, verdict.support, cited, verdict.rationale
        context = build_context(passages, max_chars=4000)
        with stage_scope("premises"):
            out = self.judge(claim=claim, passages=context.text)
        cited = [context.passages[n - 1].chunk_id for n in (out.evidence or []) if 1 <= n <= context.size]
        return bool(out.supported), float(out.confidence or 0.0), cited, str(out.rationale or "")

    def forward(self, question: str, gates: Gates | None = None, near: list[Passage] | None = None) -> dspy.Prediction:
        try:
            claims = self.presuppositions(question)
        except RunStopped:
            raise
        except Exception as exc:  # unparseable extraction, judge errors: configurable, recorded
            return self._failed(f"presupposition extraction failed: {type(exc).__name__}: {exc}")
        if not claims:
            return dspy.Prediction(verdicts=[], status="passed", unsupported=[])
        try:
            verdicts = self._verify_all(claims, gates, near)
        except RunStopped:
            raise
        except Exception as exc:
            return self._failed(f"premise judging failed: {type(exc).__name__}: {exc}")
        run = current_run()
        for verdict in verdicts:
            if run is not None:
                run.emit("premise", **verdict.model_dump())
        unsupported = [v.claim for v in verdicts if not v.supported]
        status = ("contradicted" if any(v.status == "contradicted" for v in verdicts)
                  else "failed" if unsupported else "passed")
        return dspy.Prediction(verdicts=verdicts, status=status, unsupported=unsupported)

    def _verify_all(self, claims: list[Presupposition], gates: Gates | None,
                    near: list[Passage] | None = None) -> list[PremiseVerdict]:
        if len(claims) == 1 or self.max_workers <= 1:
            return [self.verify(c, gates, near) for c in claims]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(claims))) as pool:
            futures = [pool.submit(contextvars.copy_context().run, self.verify, c, gates, near) for c in claims]
            return [f.result() for f in futures]

    def _failed(self, message: str) -> dspy.Prediction:
        run = current_run()
        if run is not None:
            run.note(message)
        status = "fail_closed" if self.fail_mode == "closed" else "fail_open"
        return dspy.Prediction(verdicts=[], status=status, unsupported=[], error=message)

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"PremiseVerifier(extractor={self.extractor}, judge={self.judge_kind})"


_PREVENTS = re.compile(r"\bfrom \w+ing\b|\b(?:prevent|prohibit|forbid|forbade|avoid|fail|lack|refus|ban|bann|"
                       r"block|den(?:y|ie))\w*", re.I)
"""A relation worded as what does not happen ("keep an object from moving", "avoid problems")."""


_NOT_PREDICATE = frozenset(("not", "never", "no", "ever", "also", "still", "first", "once", "again", "be", "been",
                            "being", "to", "the", "a", "an"))


def _explained(claim: str, passages: list[Passage], threshold: float) -> tuple[Passage, float, str] | None:
    """(passage, confidence, rationale) of the first sentence that gives a cause (``GIVES_CAUSE``) and, read under its
    page's title, states what a why-question asks the cause of: "Penhallow resigned in 1904 because of failing
    eyesight" on Josiah Penhallow's page states "Josiah Penhallow resigned as principal". The judge reads passages
    by the best of their units, where a sentence without its page's name embeds far from the claim; the sentence that
    explains the event is the one a why-question stands on. Its predicate must be said (``_predicate``): "The release
    was delayed *because of* a miscompilation" does not state that Quennet 3.4 was *recalled*. The offline judge reads
    it, whichever judge the verifier was given: a check of one sentence's words, as :meth:`PremiseVerifier._worded` is."""
    predicate = _predicate(claim)
    judge = get_judge("offline")
    for passage in passages:
        for sentence in split_sentences(passage.text):
            if not GIVES_CAUSE.search(sentence):
                continue
            unit = f"{passage.title}. {sentence}" if passage.title else sentence
            if predicate and not says(predicate, features(unit)):
                continue
            verdict = judge.judge(claim, [unit])
            if verdict.entailed and verdict.confidence >= threshold:
                return passage, verdict.confidence, f"a sentence of passage {passage.chunk_id} gives its cause: {verdict.rationale}"
    return None


def _predicate(claim: str) -> str | None:
    """The stem of what a claim says its subject did: the first content word after its first name (its first content
    word without one); ``None`` when nothing follows the name."""
    words = [w.strip(",;:()\"") for w in claim.split()]
    start = next((i for i, w in enumerate(words) if w[:1].isupper() or w[:1].isdigit()), None)
    index = 0
    if start is not None:
        index = start
        while index < len(words) and (words[index][:1].isupper() or words[index][:1].isdigit()):
            index += 1
    while index < len(words):
        word = words[index].lower()
        if word and word not in _NOT_PREDICATE and content_words(word):
            return stem(word)
        index += 1
    return None


def titled(passage: Passage) -> str:
    """The passage's text after its title, unless it opens with it: the premise the judge reads."""
    if not passage.title or passage.text.lstrip().startswith(passage.title):
        return passage.text
    return f"{passage.title}. {passage.text}"


def _names_all(claim: str, passage: Passage) -> bool:
    """Whether ``passage`` (title included) holds every word of every name in ``claim``."""
    names = features(claim).names
    unit = features(f"{passage.title}. {passage.text}")
    return bool(names) and all(unit.covers(t) for name in names for t in name)


def _mentioned(claim: str, passages: list[Passage]) -> int | None:
    """The index of the first passage (title included) holding every content word of ``claim``."""
    wanted = features(claim).content
    for index, passage in enumerate(passages):
        unit = features(f"{passage.title}. {passage.text}")
        if wanted and all(unit.covers(t) for t in wanted) and not _denied(wanted, passage.text):
            return index
    return None


def _denied(wanted: frozenset[str], text: str) -> bool:
    """``text`` holds one of the claim's words only to deny it ("The island has *no airport*"): a mention
    that is not an attestation."""
    units = [features(sentence) for sentence in split_sentences(text)]
    negated = {t for unit in units for t in unit.negated & wanted}
    return any(all(t in unit.negated or not unit.covers(t) for unit in units) for t in negated)


_WORD = re.compile(r"[A-Za-z][\w-]*")


_MULTIWORD_NAME = re.compile(r"[A-Z][\w'-]+(?: (?:of |the |de |van )?[A-Z][\w'-]+)+")


def _lookup_term(claim: str) -> str | None:
    """The word of ``claim`` to look up in so many words: its longest capitalised word (a name), else
    its longest word of at least 5 letters, else a year it pins; ``None`` when it has none."""
    words = _WORD.findall(claim)
    named = [w for w in words if w[0].isupper() and len(w) >= 3]
    pool = named or [w for w in words if len(w) >= 5] or sorted(features(claim).years)
    return max(pool, key=len) if pool else None


def describe_unsupported(verdicts: list[PremiseVerdict]) -> str:
    """'The corpus does not support: "X"; "Y".'"""
    claims = [f'"{v.claim}"' for v in verdicts if not v.supported]
    return "The question presupposes what the sources do not support: " + "; ".join(claims) + "."


def describe_contradicted(verdict: PremiseVerdict) -> str:
    """The correction: what the question assumes, and the sentence that says otherwise."""
    said = verdict.correction.snippet.rstrip() if verdict.correction is not None else ""
    return f'The question assumes "{verdict.claim}", but the sources say otherwise: "{said}"'



__all__ = ["PremiseVerifier", "describe_contradicted", "describe_unsupported"]
