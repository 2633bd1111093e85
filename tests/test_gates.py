"""The grounding gates as program state, and the pieces that decide with them (no LM needed):
save/load round trip, flat config names, the compare diff, answerability, presuppositions beyond the
slot, contradictions, polar answers and bridges."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from groundqa.judges import get_judge
from groundqa.judges.lexical import features, stem
from groundqa.programs.answerability import asked, check, name_words, plain_words, substitution
from groundqa.programs.bridging import _kinds, describes_entity, find_bridge, find_bridges, second_hop_target
from groundqa.programs.context import NumberedContext
from groundqa.programs.contradiction import asks_doer, conflict, find_contradiction, prefixed_opposites
from groundqa.programs.gates import GATE_NAMES, Gates
from groundqa.programs.grounded_qa import GroundedQA, QAConfig
from groundqa.programs.persistence import ProgramFileError, load_program, save_program
from groundqa.programs.polar import polar_answer, statement
from groundqa.programs.premises import PremiseVerifier
from groundqa.programs.presuppositions import heuristic_presuppositions
from groundqa.signatures.qa import Presupposition
from groundqa.signatures.types import AbstainReason, Passage
from groundqa.tracking.program_diff import ProgramSource, diff_gates, diff_to_dict, format_diff


def passage(doc: str, text: str, title: str = "") -> Passage:
    return Passage(chunk_id=f"{doc}#0", doc_id=doc, title=title or doc, text=text, score=0.6)


def bridged(question: str, *passages: Passage) -> str | None:
    """The entity the first hop names for ``question`` (:func:`find_bridge`), or ``None``."""
    bridge = find_bridge(question, list(passages))
    return bridge.entity if bridge is not None else None


# -- gates as state ------------------------------------------------------------------------------
def test_gates_are_a_parameter_not_a_predictor():
    qa = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    names = [name for name, _ in qa.named_parameters()]
    assert names.count("gates") == 1 and "gates" not in [n for n, _ in qa.named_predictors()]
    assert qa.gates is qa.config.gates and qa.gates.max_passages == 3  # the embedded default


def test_overridden_gates_come_back_after_the_block_even_on_an_error():
    gates = Gates(evidence_floor=0.4)
    with pytest.raises(RuntimeError), gates.overridden(extractive_first=1.0, evidence_floor=0.2) as inside:
        assert inside is gates and gates.extractive_first == 1.0 and gates.evidence_floor == 0.2
        raise RuntimeError("interrupted")
    assert gates.model_dump() == Gates(evidence_floor=0.4).model_dump()
    with pytest.raises(ValueError), gates.overridden(k=0):  # validated: nothing changes on a bad value
        pass
    assert gates.k == Gates().k


def test_flat_gate_names_land_in_gates_and_bad_values_are_refused():
    config = QAConfig(evidence_floor=0.45, k=6, verify_premises=False)
    assert config.gates.evidence_floor == 0.45 and config.gates.k == 6 and not config.verify_premises
    merged = QAConfig(gates=Gates(k=7), min_confidence=0.2)
    assert merged.gates.k == 7 and merged.gates.min_confidence == 0.2
    with pytest.raises(ValueError):
        QAConfig(k=0)
    with pytest.raises(ValueError):
        Gates(unknown_gate=1)  # type: ignore[call-arg]


def test_search_space_covers_every_gate_and_contains_the_defaults():
    space = Gates.search_space()
    assert set(space) == set(GATE_NAMES)
    defaults = Gates()
    for name, (low, high, kind) in space.items():
        assert low <= getattr(defaults, name) <= high, name
        assert kind in (int, float)


def test_save_load_round_trips_learned_gates(tmp_path: Path):
    qa = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    qa.gates.load_state({"evidence_floor": 0.42, "k": 6, "answerability": 0.75})
    path = save_program(qa, tmp_path / "prog")
    saved = json.loads(path.read_text())
    assert saved["gates"]["evidence_floor"] == 0.42 and saved["groundqa"]["format_version"] == 2
    fresh = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    load_program(fresh, path)
    assert fresh.gates.model_dump() == qa.gates.model_dump()
    copied = copy.deepcopy(fresh)
    assert copied.gates == fresh.gates and copied.gates is not fresh.gates


def test_a_program_saved_before_gates_existed_loads_with_defaults(tmp_path: Path):
    qa = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    path = save_program(qa, tmp_path / "old")
    data = json.loads(path.read_text())
    del data["gates"]
    data["groundqa"]["format_version"] = 1
    path.write_text(json.dumps(data))
    fresh = GroundedQA(None, QAConfig.for_lm("embedded", evidence_floor=0.33))  # type: ignore[arg-type]
    load_program(fresh, path)
    assert fresh.gates.evidence_floor == 0.33


def test_an_invalid_gate_in_a_program_file_is_one_clear_error(tmp_path: Path):
    qa = GroundedQA(None, QAConfig.for_lm("embedded"))  # type: ignore[arg-type]
    path = save_program(qa, tmp_path / "bad")
    data = json.loads(path.read_text())
    data["gates"]["k"] = "many"
    path.write_text(json.dumps(data))
    with pytest.raises(ProgramFileError, match="invalid value for k") as info:
        load_program(GroundedQA(None, QAConfig.for_lm("embedded")), path)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_compare_diff_shows_changed_gates():
    a = ProgramSource("a", {"gates": Gates().model_dump()})
    b = ProgramSource("b", {"gates": {**Gates().model_dump(), "evidence_floor": 0.5}})
    assert diff_gates(a, b) == [("evidence_floor", 0.3, 0.5)]
    assert diff_to_dict(a, b, [])["gates"] == [{"name": "evidence_floor", "a": 0.3, "b": 0.5}]
    assert any("evidence_floor: 0.3 -> 0.5" in line for line, _ in format_diff(a, b, []))
    old_file = ProgramSource("old", {})  # saved before gates: read as the defaults
    assert diff_gates(old_file, a) == []


# -- answerability -----------------------------------------------------------------------------
@pytest.mark.parametrize("question, kind", [
    ("When did the garden open?", "date"), ("On which day is entry free?", "date"),
    ("How high is Mount Kestrel?", "number"), ("At what temperature are seeds stored?", "number"),
    ("Who led the ascent?", "person"), ("In which city was he born?", "place"),
    ("Which company built the ferry?", "organisation"), ("Did she ever fly?", "yes_no"),
    ("What is the annual budget?", None),
])
def test_answer_type_is_read_off_the_question(question: str, kind: str | None):
    assert asked(question).kind == kind



def test_a_word_written_only_inside_a_name_does_not_say_the_asked_event() -> None:
    # "opened" says "founded"; the "Open" of a tournament's name does not
    assert name_words("He won the Meirholt Open in 2004. Opened in 1957, it stands.") == {"meirholt", "open"}
    assert name_words("The Open opened in 1957.") == frozenset()  # written in lower case too: a word, not a name
    founded = asked("When was the club Matthias Brel plays top board for founded?")
    context = "Matthias Brel. Brel has played top board for the Draskov Chess Circle since 1996."
    assert check(founded, "He won the Meirholt Open in 2004 and again in 2009.", context).score == 0.0
    pavilion = asked("When was the Orsmund Pavilion founded?")
    assert check(pavilion, "Designed by Clara Vennick, it opened on 21 June 1957.", "Orsmund Pavilion").score == 1.0
    assert check(pavilion, "Opened on 21 June 1957, it was designed by Clara Vennick.", "Orsmund Pavilion").score == 1.0

def test_answerability_separates_the_answering_sentence_from_topical_ones():
    budget = asked("What is the annual budget of the Brannock Garden?")
    assert check(budget, "The Brannock Garden was founded in 1889.").score == 0.0
    # read with its passage's title, as the program reads every sentence; the measure must be the garden's
    assert check(budget, "Its annual budget is 2.1 million crowns.", "Brannock Garden").score == 1.0
    assert check(budget, "Its annual budget is 2.1 million crowns.", "Kessraun Museum").score == 0.0
    temperature = asked("At what temperature does the seed bank store its seeds?")
    wrong = check(temperature, "The garden opens from April to October.", "Brannock Garden")
    right = check(temperature, "Its seed bank stores seeds at minus 18 degrees Celsius.", "Brannock Garden")
    assert not wrong.has_type and wrong.score == 0.0 and right.score >= 0.75
    trained = asked("What did Ilse Varga train as before she studied botany?")
    assert check(trained, "Ilse Varga trained as a carpenter in Alsberg.").score > \
        check(trained, "Ilse Varga is the director of the garden.").score



@pytest.mark.parametrize("question, sentence", [
    ("What law is Newton's Fifth Law?", "Newton's Third Law is a result of applying symmetry."),
    ("What has a stronger association with the complex than killer T cells?",
     "Helper T cells have a weaker association with the complex than killer T cells."),
    ("What are the least powerful anti-inflammatory drugs?", "The most powerful anti-inflammatory drugs are corticosteroids."),
    ("What can be viewed as a limited collection of instances?",
     "A problem can be viewed as an infinite collection of instances."),
    ("What is more difficult than multiplication?", "Squaring is not more difficult than multiplication."),
    # the opposite made with a negative prefix (SQuAD 2.0's antonym questions)
    ("Laboratory measurements of forces are fully inconsistent with what?",
     "Laboratory measurements of forces are fully consistent with the conceptual definition of force."),
    ("What can be viewed as an informal language?", "A decision problem can be viewed as a formal language."),
    ("How are the packets forwarded synchronously by intermediate network nodes?",
     "Packets are normally forwarded by intermediate network nodes asynchronously."),
    # another name in the question's name's place, in the same words around it
    ("Newton was instrumental in describing the characteristics of falling what?",
     "Galileo was instrumental in describing the characteristics of falling objects."),
    ("Who joined Norman forces in the destruction of the Armenian states?",
     "Some Normans joined Turkish forces in the destruction of the Armenian states."),
    # a number in the question's number's place
    ("In the 19th century, the development of quantum mechanics led to what?",
     "In the 20th century, the development of quantum mechanics led to a modern understanding of force."),
    # opposites added in session 32
    ("What impact did the dynasty have on modern Europe?", "The dynasty had a major impact on medieval Europe."),
])
def test_a_sentence_that_swaps_a_word_of_the_question_does_not_answer_it(question: str, sentence: str):
    what = asked(question)
    assert substitution(what, sentence) is not None
    assert check(what, sentence).score == 0.0  # refused as an answer: the next sentence is tried, or not_answered


@pytest.mark.parametrize(("question", "sentence"), [
    ("When did ARPNET and SITA become operational?", "ARPANET and SITA HLN became operational in 1969."),  # misspelt
    ("Who did Mira Tell study marine science with?", "She studied marine science with Odile Marchetti."),  # a pronoun
    ("What did the Guild of Saint Ysolde make?", "The Guild of Saint Ysolde was the guild of Orsavel."),  # its own
    ("Which town was twinned with Kessenbrunn?", "Kessenbrunn was twinned with Varnoux, another spa town."),
    ("How deep was the water in the Sentinel's press hall?", "Water stood 1.6 metres deep in the Brennick press."),
    ("Why was the network formed in Michigan?", "The network was formed in 1966 to link three universities."),  # kinds
    ("How long did the 1912 compositors' strike last?", "The Sentinel compositors' strike lasted forty-one days."),
])
def test_a_name_in_other_words_or_a_relation_both_ways_is_no_name_in_place(question: str, sentence: str):
    from groundqa.programs.contradiction import name_in_place

    assert name_in_place(question, sentence) is None


def test_agreement_a_yes_no_question_or_an_unrelated_sentence_is_no_substitution():
    assert substitution(asked("What are the most powerful drugs?"), "The most powerful drugs are corticosteroids.") is None
    # "No" to a yes/no question is exactly such a sentence
    assert substitution(asked("Is squaring more difficult than multiplication?"),
                        "Squaring is not more difficult than multiplication.") is None
    # about something else (few of the question's other words): the antonym is incidental
    assert substitution(asked("Which river has the strongest current in the valley?"),
                        "The weakest team won the cup.") is None


@pytest.mark.parametrize(("token", "other", "opposite"), [
    ("inconsistent", "consistent", True), ("formal", "informal", True), ("unsolv", "solv", True),  # stems
    ("marri", "unmarri", True),
    ("synchronousli", "asynchronousli", True), ("nonlinear", "linear", True), ("typical", "atypical", True),
    # no adjectival ending on the base: "in" + "formation", "dis" + "cover"
    ("formation", "information", False), ("cover", "discover", False),
    ("cross", "across", False), ("moral", "amoral", False),  # "a" only before a long base ("a" + "cross")
])
def test_an_opposite_made_with_a_negative_prefix(token: str, other: str, opposite: bool):
    assert bool(prefixed_opposites(token, frozenset({other}))) is opposite


def test_closed_sets_and_degrees_conflict():
    assert conflict(features("the fifth law"), features("the third law"))[0] == "antonym"
    assert conflict(features("alpha decay"), features("beta decay"))[0] == "antonym"
    assert conflict(features("the same in every frame"), features("different in every frame"))[0] == "antonym"
    assert conflict(features("the third law"), features("the third law")) is None

def test_the_subject_after_an_auxiliary_is_no_slot_noun():
    # "What *are* stators attached to?": "stators" is what the question is about, not the noun of its slot
    stators = asked("What are stators attached to?")
    assert dict(zip(stators.attribute, stators.weights, strict=True))["stator"] == 1.0
    party = asked("Which party is in power?")  # a real slot noun still weighs half
    assert dict(zip(party.attribute, party.weights, strict=True))["parti"] == 0.5


def test_different_is_no_asked_attribute():
    # "What are the two different types of immunity?" asks for the types; "different" is how it says so
    kinds = asked("What are the two different types of immunity?")
    assert check(kinds, "The two types of immunity are innate and adaptive immunity.").coverage == 1.0


@pytest.mark.parametrize("typed, word, forgiven", [
    ("telnet", "telenet", True), ("seperate", "separate", True), ("recieve", "receive", True),
    ("mathmatical", "mathematical", True), ("painter", "printer", True),  # the price: a real word one letter off
    ("sailor", "tailor", False), ("paint", "pant", False), ("telnet", "telnet", False), ("conversation", "conservation", False),
])
def test_a_misspelling_is_one_letter_off_a_long_word_that_starts_alike(typed: str, word: str, forgiven: bool):
    from groundqa.judges.lexical import misspelling_of

    assert misspelling_of(typed, word) is forgiven and misspelling_of(word, typed) is forgiven


def test_the_premise_judge_forgives_a_name_misspelt_by_one_letter():
    judge = get_judge("offline")
    passage = "Telenet was the first FCC-licensed public data network in the United States."
    assert judge.judge("Telnet", [passage]).entailed
    assert not judge.judge("Tymnet", [passage]).entailed  # another name altogether


def test_the_premise_judge_reads_the_answer_checks_everyday_words():
    judge = get_judge("offline")
    passage = "Ivo Dane\nIn 1931 Ivo Dane resigned after a dispute over the budget."
    assert judge.judge("Ivo Dane quit", [passage]).entailed  # one table: paraphrase.SYNONYMS
    assert not judge.judge("Ivo Dane joined", [passage]).entailed


def test_the_premise_judge_reads_a_surname_as_the_person_unless_a_namesake_is_named():
    judge = get_judge("offline")
    claim = "Cormac Westraven received the Halden Prize"
    assert judge.judge(claim, ["In 1988 Westraven received the Halden Prize for his survey of the shelf."]).entailed
    assert not judge.judge(claim, ["In 1988 Maud Westraven received the Halden Prize."]).entailed  # a namesake
    assert not judge.judge(claim, ["In 1988 Ellery received the Halden Prize."]).entailed  # somebody else


def test_an_estate_named_after_a_family_is_no_namesake_of_its_people():
    # "Domaine Marrowick" shares the surname of Augustin Marrowick, but names the estate, not another Marrowick
    judge = get_judge("offline")
    page = ("Domaine Marrowick is a family wine estate on the left bank of the Oskeld. It was established in 1897 by "
            "Augustin Marrowick, a former barge master.")
    assert judge.judge("It was established in 1897 by Augustin Marrowick, a former barge master.", [page]).entailed
    assert not judge.judge("Augustin Marrowick founded the estate", ["Ilse Marrowick founded the estate."]).entailed


def test_being_awarded_a_prize_is_receiving_it():
    # "Which prize did Ilse Marrow receive in 1994?" presupposes she received something in 1994
    awarded = features("In 1994 she was awarded the Orlo Medal for her survey of the fjord.")
    assert awarded.covers(stem("receive")) and awarded.covers(stem("received"))
    assert not features("In 1994 she retired after her survey of the fjord.").covers(stem("receive"))


def test_a_dimension_or_a_year_the_question_asks_for_is_required():
    tall = asked("How tall is the lighthouse?")
    assert not check(tall, "The lighthouse was built in 1901.").has_type  # a number, but not a height
    assert check(tall, "The lighthouse is 31 metres tall.").has_type
    fare = asked("How much did a ticket cost in 2021?")
    assert not check(fare, "In 2019 a ticket cost 5.50 crowns.").has_type
    assert check(fare, "The fare rose to 6.50 crowns in 2021.").has_type


def test_a_month_names_no_one():
    who = asked("Who was the birdwatcher who found redshank EX-4471 dead at Brack Fen?")
    opening = "Redshank EX-4471 was ringed in 1961."
    unnamed = "It was last encountered on 7 September 1986, when a visiting birdwatcher found it dead at Brack Fen."
    assert not check(who, unnamed, title="Redshank EX-4471. ", about=opening).has_type
    named = "On 7 September 1986 the birdwatcher Arthur Penn found it dead on the foreshore at Brack Fen."
    assert check(who, named, title="Redshank EX-4471. ", about=opening).has_type


def test_a_decade_or_a_year_of_an_era_is_a_date():
    assert check(asked("In what decade did steam cycles make 90% of electric power?"),
                 "In the 1990s, steam cycles generated about 90% of all electric power.").has_type
    assert check(asked("When was the first known reference to immunity?"),
                 "The earliest known reference to immunity was during the plague of Athens in 430 BC.").has_type
    assert not check(asked("When was the first known reference to immunity?"),
                     "The earliest known reference to immunity was during the plague of Athens.").has_type


def test_how_much_is_answered_by_an_amount_of_money():
    shares = asked("How much did Ottilie Carrow-Pryse get for the family's shares?")
    assert check(shares, "In 1938 she sold the family's shares to Ardwyn Minerals for £186,000.",
                 title="Ottilie Carrow-Pryse. ").has_type
    boats = asked("How many boats did she sell?")
    assert not check(boats, "In 1938 she sold the boats for £186,000.").has_type  # no count


def test_two_sides_give_a_size():
    big = asked("How big is the boathouse of the Orlo Rowing Club?")
    assert check(big, "The club rows from a boathouse measuring 30 m by 12 m.").has_type
    assert check(big, "The boathouse covers 360 m².").has_type
    assert not check(big, "The boathouse was built 30 m from the shore in 1912.").has_type  # one length is no size


# -- presuppositions -----------------------------------------------------------------------------
@pytest.mark.parametrize("question", [
    "How high is Mount Kestrel?", "How deep is Lake Orlo at its deepest point?",
    "On which day is entry to the Tessaly Museum free?", "Which language is Tessel written in?",
    "How many members does the steering committee have?", "How long does the ferry crossing to Calder take?",
])
def test_plain_look_ups_presuppose_only_existence(question: str):
    assert all(p.kind == "existence" for p in heuristic_presuppositions(question))


@pytest.mark.parametrize("question, claim", [
    ("Why did Tessel 2.0 add the OpenSSL dependency?", "Tessel 2.0 add the OpenSSL dependency"),
    ("When did Paolo Marchetti design the harbor lights?", "Paolo Marchetti design the harbor lights"),
    ("What winter course does Odile Marchetti teach?", "Odile Marchetti teach winter"),
    ("How long is the tunnel under the Vessany Strait?", "tunnel under the Vessany Strait"),
])
def test_what_a_question_asserts_beyond_its_slot_is_presupposed(question: str, claim: str):
    assert claim in [p.claim for p in heuristic_presuppositions(question)]


def test_a_year_is_checked_with_what_it_dates():
    claims = [p.claim for p in heuristic_presuppositions("What was the population of Calder Island in 2031?")]
    assert claims == ["Calder Island 2031"]


# -- contradictions, polar answers, bridges --------------------------------------------------------
@pytest.mark.parametrize("claim, text, kind", [
    ("Tessel 2.0 add OpenSSL", "Tessel 2.0 removed the OpenSSL dependency.", "antonym"),
    ("Vault store passwords in plaintext", "Vault stores passwords only as salted hashes.", "antonym"),
    ("Odile Marchetti leave the harbor authority in 1995", "She retired from the harbor authority in 2011.", "year"),
    ("Paolo Marchetti design the harbor lights", "The harbor lights were designed by Odile Marchetti.", "person"),
    ("Paolo Marchetti work in engineering", "Paolo Marchetti has never worked in engineering.", "negation"),
    ("Dunmore Infirmary agree to take in fever patients in 1866",
     "The Dunmore Infirmary refused to admit fever patients in 1866.", "antonym"),
    ("the Tessel machine has a lot to do with real computers",
     "The Tessel machine has very little to do with real computers.", "antonym"),
    ("the 1702 fire destroy the Tarrow Priory library",
     "The Tarrow Priory library survived the 1702 fire with its roof intact.", "antonym"),
])
def test_contradictions_are_found_with_their_kind(claim: str, text: str, kind: str):
    title = "Odile Marchetti" if "She" in text else ""
    found = find_contradiction(claim, [passage("p", text, title)], 0.6)
    assert found is not None and found.kind == kind and found.sentence.startswith(text[:12])


@pytest.mark.parametrize("claim, text", [
    ("Tide Festival cancelled in 2020", "The Tide Festival has been held every August since 1962."),  # silent
    ("Calder Island 2031", "Calder Island had 1,900 residents in 2021."),  # a bare year asserts no event
    ("Paolo Marchetti design the harbor lights", "Paolo Marchetti designed the harbor lights in 1931."),
])
def test_silence_or_agreement_is_no_contradiction(claim: str, text: str):
    assert find_contradiction(claim, [passage("p", text)], 0.6) is None


def test_polar_questions_get_a_cited_yes_or_no_or_nothing():
    context = NumberedContext([passage("ilse", "Ilse Varga is the director of the garden. She has never worked as a "
                                               "pilot. She was born in Alsberg.", "Ilse Varga")], "")
    judge = get_judge("offline")
    assert statement("Did Ilse Varga ever work as a pilot?") == "Ilse Varga work as a pilot"
    no = polar_answer("Did Ilse Varga ever work as a pilot?", context, judge, 0.5, 0.6)
    assert no is not None and no.verdict == "no" and no.text.endswith("[1]")
    yes = polar_answer("Was Ilse Varga born in Alsberg?", context, judge, 0.5, 0.6)
    assert yes is not None and yes.verdict == "yes" and "Alsberg" in yes.sentence
    assert polar_answer("Did Ilse Varga ever live in Tessaly?", context, judge, 0.5, 0.6) is None


def test_bridges_only_for_described_entities():
    hop = [passage("kestrel", "Mount Kestrel rises to 3,412 metres. The first ascent of Mount Kestrel was led by "
                              "the surveyor Tomas Reyne in 1871.", "Mount Kestrel")]
    question = "In which city was the man who led the first ascent of Mount Kestrel born?"
    bridge = find_bridge(question, hop)
    assert bridge is not None and bridge.entity == "Tomas Reyne" and bridge.query.startswith("Tomas Reyne")
    assert "led by the surveyor Tomas Reyne" in bridge.sentence
    assert not describes_entity("How high is Mount Kestrel?")
    assert not describes_entity("How many people survived the wreck of the Meriden?")
    assert find_bridge("How high is Mount Kestrel?", hop) is None


class _LookUpOnly:
    """A retriever whose nearest passages miss what only a full-text look-up of ``key`` finds."""

    def __init__(self, key: str, found: Passage, nearest: Passage) -> None:
        self.key, self.found, self.nearest = key, found, nearest
        self.calls: list[tuple[str, ...]] = []

    def retrieve(self, query: str, k: int, contains: tuple[str, ...] = (), lexical: int = 0) -> list[Passage]:
        self.calls.append(contains)
        return [self.found] if self.key in contains else [self.nearest]


def _named_only() -> _LookUpOnly:
    """A rare name that only a full-text look-up finds."""
    return _LookUpOnly("Ayanz", Passage(chunk_id="steam#3", doc_id="steam", title="Steam engine", score=0.05,
                                        text="Jerónimo de Ayanz y Beaumont received patents for a steam-powered "
                                             "pump in 1606."),
                       Passage(chunk_id="steam#0", doc_id="steam", title="Steam engine", score=0.4,
                               text="A steam engine is a heat engine that performs mechanical work."))


def test_an_existence_claim_is_looked_up_by_its_name_when_the_nearest_passages_miss_it():
    retriever = _named_only()
    verifier = PremiseVerifier(retriever, extractor="heuristic", judge="offline")
    verdict = verifier.verify(Presupposition(claim="Ayanz", rationale="named", kind="existence"), Gates())
    assert verdict.supported and verdict.evidence == ["steam#3"]
    assert retriever.calls == [(), ("Ayanz", "ayanz", "AYANZ", "Ayanz")]  # one look-up, every case
    missing = PremiseVerifier(_named_only(), extractor="heuristic", judge="offline")
    assert not missing.verify(Presupposition(claim="Zorbulak", rationale="named", kind="existence"), Gates()).supported


def test_a_name_of_several_words_is_looked_up_whole_first():
    # a corpus about Hollinbrook: the passages nearest the claim that hold "Hollinbrook" are the valley's own
    retriever = _LookUpOnly("Hollinbrook Civic Society",
                            Passage(chunk_id="mill#2", doc_id="mill", title="Ashby Mill", score=0.1,
                                    text="A campaign by the Hollinbrook Civic Society saved the buildings."),
                            Passage(chunk_id="valley#0", doc_id="valley", title="Hollinbrook", score=0.4,
                                    text="Hollinbrook is a village on the River Werrow."))
    verifier = PremiseVerifier(retriever, extractor="heuristic", judge="offline")
    verdict = verifier.verify(Presupposition(claim="Hollinbrook Civic Society", rationale="named", kind="existence"),
                              Gates())
    assert verdict.supported and verdict.evidence == ["mill#2"]
    assert retriever.calls == [(), ("Hollinbrook Civic Society",)]


def test_gate_overrides_from_the_command_line():
    from groundqa.cli.common import CLIError, gate_overrides

    assert gate_overrides(["evidence_floor=0.4", "k=6", "extractive_first=1"]) == {
        "evidence_floor": 0.4, "k": 6, "extractive_first": 1.0}
    for bad, message in [("nope=1", "no such gate"), ("k", "expected NAME=VALUE"), ("k=", "expected NAME=VALUE"),
                         ("k=abc", "valid integer"), ("k=0", "greater than or equal to 1")]:
        with pytest.raises(CLIError, match=message):
            gate_overrides([bad])


# -- what the workbench corpora showed ----------------------------------------------------------
@pytest.mark.parametrize("question, role", [
    ("Which company sponsors development of Quorvane?", "asked"),
    ("How many research scientists does the Carrowmede Marine Institute employ?", "asked"),
    ("Why was the Lodestack engine written in C++?", "explained"),
])
def test_what_a_look_up_asks_about_is_asked_and_what_a_why_question_explains_is_asserted(question: str, role: str):
    claims = heuristic_presuppositions(question)
    assert claims and claims[0].role == role


def test_a_misspelling_is_forgiven_only_in_a_word_wordnet_does_not_know_as_a_noun():
    what = asked("Which printer produced the Harwick Gazette in 1880?")
    # "printer" is one letter off "painter", and both are nouns: not a misspelling, so the asked trade is unsaid
    assert "printer" in check(what, "The painter Tomas Wendt produced the Harwick Gazette in 1880.").missing
    assert check(asked("What equation decribes its motion?"), "Its motion is described by the Wendt equation.").missing == ()


@pytest.mark.parametrize("question, claim", [
    # the slot's head noun only types the answer, whether the slot runs up to an auxiliary or, with its verb, up to
    # a name: a passage that says "sponsored by the Hallam Foundation" need not call it a company
    ("Which company sponsors development of Quorvane?", "sponsors development of Quorvane"),
    ("Which body granted the Lantern Playhouse protected status?", "granted the Lantern Playhouse protected status"),
    ("Which tram worked the final service in 1961?", "worked the final service in 1961"),
    ("What kind of organisation sponsors the Harwick Regatta?", "sponsors the Harwick Regatta"),
    # a name first is the subject, not a slot ("Which *Calder* ferry sank …")
    ("Which Calder ferry sank in 1921?", "Calder ferry sank in 1921"),
])
def test_a_slot_head_before_its_verb_is_no_part_of_what_is_asked(question: str, claim: str):
    assert heuristic_presuppositions(question)[0].claim == claim


def test_a_subject_question_takes_its_named_object_to_exist():
    claims = heuristic_presuppositions("Who founded the Calder Island airport?")
    assert [(c.claim, c.kind, c.role) for c in claims][1] == ("Calder Island airport", "existence", "asserted")
    # the subject first: what follows it may be the verb, so nothing is read off it
    assert all(c.role == "asked" for c in heuristic_presuppositions("When did the Tide Festival start?"))


class _Fixed:
    def __init__(self, *passages: Passage) -> None:
        self.passages = list(passages)

    def retrieve(self, query: str, k: int, contains: tuple[str, ...] = (), lexical: int = 0) -> list[Passage]:
        return [p for p in self.passages if not contains or any(c in p.text for c in contains)][:k]


def test_an_asked_relation_worded_otherwise_passes_at_its_own_threshold():
    conf = passage("conf", "QuorvaneConf has been held every October since 2018 in Velmarsk.", "QuorvaneConf")
    verifier = PremiseVerifier(_Fixed(conf), extractor="heuristic", judge="offline")
    claim = Presupposition(claim="QuorvaneConf take place each year", kind="event", role="asked")
    lenient = verifier.verify(claim, Gates())
    strict = verifier.verify(claim, Gates(asked_premise_threshold=0.9))
    assert lenient.supported and not strict.supported
    # the same words asserted (a why-question) need premise_threshold
    assert not verifier.verify(claim.model_copy(update={"role": "asserted"}), Gates()).supported


def test_a_negation_in_passing_does_not_contradict_an_asked_relation():
    garden = passage("garden", "The seed bank stores its seeds at minus 20 °C. Cryopreservation in liquid nitrogen "
                               "was tested in 1998 but never adopted, and no seeds are kept that way.", "Kessraun seed bank")
    verifier = PremiseVerifier(_Fixed(garden), extractor="heuristic", judge="offline")
    asked_claim = Presupposition(claim="the Kessraun seed bank store its seeds", kind="event", role="asked")
    assert verifier.verify(asked_claim, Gates()).status != "contradicted"


def test_a_count_of_what_never_happened_is_corrected():
    # "How many people were killed …?" takes it that some were; "no one was killed" says otherwise
    claims = heuristic_presuppositions("How many people were killed in the Great Breach of 1867?")
    assert (claims[0].claim, claims[0].role) == ("killed in the Great Breach of 1867", "counted")
    breach = passage("breach", "The Great Breach of 1867 was the collapse of an embankment near Sallowfen. The flood "
                               "damaged about forty houses, but no one was killed.", "Great Breach of 1867")
    verifier = PremiseVerifier(_Fixed(breach), extractor="heuristic", judge="offline")
    verdict = verifier.verify(claims[0], Gates())
    assert verdict.status == "contradicted" and "no one was killed" in verdict.correction.snippet
    # a count the passage gives is no denial, and worded otherwise it is held to the asked threshold only
    toll = passage("breach", "The Great Breach of 1867 was the collapse of an embankment near Sallowfen. Eleven people "
                             "died in the flood.", "Great Breach of 1867")
    assert PremiseVerifier(_Fixed(toll), extractor="heuristic", judge="offline").verify(claims[0], Gates()).supported
    # an asked relation is still not denied by a negation in passing
    assert [c.role for c in heuristic_presuppositions("How many seeds does the Kessraun seed bank store?")] != ["counted"]


def test_a_mention_that_denies_is_no_attestation():
    island = passage("calder", "Calder Island lies south of the strait. The island has no airport and no bridge.",
                     "Calder Island")
    verifier = PremiseVerifier(_Fixed(island), extractor="heuristic", judge="offline")
    verdict = verifier.verify(Presupposition(claim="Calder Island airport", kind="existence"), Gates())
    assert not verdict.supported and verdict.status == "contradicted" and "no airport" in verdict.correction.snippet


def test_an_answer_must_be_about_the_name_the_question_asks_about():
    what = asked("When did Henrik Voss compose the Tide Suite?")
    assert what.named == (tuple(features("Henrik Voss").names[0]),)
    namesake = "Greta Voss composed the Tide Suite in 1997."
    assert check(what, namesake, title="Greta Voss").score == 0
    assert check(what, "He composed the Tide Suite in 1997.", title="Henrik Voss").score >= 0.6
    # a name inside a description is a hop away from the answer: not required
    assert asked("Where was the composer of the Tide Suite born?").named == ()


def test_a_sentence_that_says_nothing_of_what_was_asked_does_not_answer_through_its_neighbour():
    what = asked("What does Paolo Marchetti teach in his summer course on tidal energy?")
    before = "She now teaches a summer course on small-scale tidal energy."
    assert check(what, "Her brother, Paolo Marchetti, is a cartographer.", title=f"Odile Marchetti. {before}").score == 0


def test_no_in_other_words_from_a_close_negated_sentence_only():
    context = NumberedContext([passage("sarn", "Ottilie Sarn painted the lakes of the valley. Sarn never exhibited "
                                               "outside the Orvenau Valley during her lifetime.", "Ottilie Sarn")], "")
    question = "Did Ottilie Sarn ever show her paintings in an exhibition outside the Orvenau Valley?"
    judge = get_judge("offline")
    answer = polar_answer(question, context, judge, 0.5, 0.6, denial_similarity=Gates().denial_similarity)
    assert answer is not None and answer.verdict == "no" and "never exhibited" in answer.sentence
    assert polar_answer(question, context, judge, 0.5, 0.6) is None  # off by default
    unrelated = "Did Ottilie Sarn ever teach painting at the academy?"
    assert polar_answer(unrelated, context, judge, 0.5, 0.6, denial_similarity=Gates().denial_similarity) is None


def test_a_denial_is_read_without_the_clauses_that_go_on_about_it():
    """"Varrick never set foot on the Grauzahn, which he regarded as loose …" denies the climb: its denying
    clause is compared with the claim (the whole sentence is too far from it), and "and" keeps what it joins."""
    from groundqa.judges.lexical import negated_clause
    from groundqa.programs.polar import denial_similarities

    sentence = ("Varrick never set foot on the Grauzahn, which he regarded as loose and unlucky; he is said to have "
                "turned down a client who offered him a year's earnings to attempt it.")
    assert negated_clause(sentence) == "Varrick never set foot on the Grauzahn"
    assert negated_clause("The winery is not a member and has never sold grapes to it.") == \
        "The winery is not a member and has never sold grapes to it."
    assert negated_clause("Varrick climbed it twice.") == "Varrick climbed it twice."
    claim = "Anselm Varrick climb the Grauzahn"
    (near,) = denial_similarities(claim, [sentence])
    assert near >= Gates().denial_similarity > denial_similarities(claim, ["Varrick never married."])[0]
    context = NumberedContext([passage("varrick", f"Anselm Varrick was a guide. {sentence}", "Anselm Varrick")], "")
    answer = polar_answer("Did Anselm Varrick ever climb the Grauzahn?", context, get_judge("offline"), 0.5, 0.6,
                          denial_similarity=Gates().denial_similarity)
    assert answer is not None and answer.verdict == "no" and "never set foot" in answer.sentence


def test_a_name_the_question_already_holds_is_no_answer_to_who_even_in_lower_case():
    what = asked("who chairs the quorvane steering committee")
    assert check(what, "The Quorvane steering committee decides the project's technical direction.").score == 0
    assert check(what, "Teodor Makaveyev-Lunn has chaired the Quorvane steering committee since 2019.").score >= 0.6


def test_a_bridge_is_a_name_not_a_month_and_a_contraction_is_no_description():
    assert describes_entity("Where was the architect of the Orvenau Valley Museum born?")
    assert not describes_entity("What's the default checkpoint interval in Quorvane?")
    first = passage("kessraun", "The first ascent was made on 14 August 1861 by a party led by the guide Anselm "
                                "Varrick.", "Kessraun")
    bridge = find_bridge("In which village was the guide who led the first ascent of the Kessraun born?", [first])
    assert bridge is not None and bridge.entity == "Anselm Varrick"


def test_a_bridged_answer_needs_the_asked_value_in_its_own_sentence():
    question = "In which village was the guide who led the first ascent of the Kessraun born?"
    what = asked(question)
    assert what.main == ("born",)  # the description (guide, led, first ascent) is the relative clause
    lead = "The first ascent was made in 1861 by a party led by the guide Anselm Varrick."
    # the lead's names are no place, and a sentence that says nothing of "born" is no answer
    assert check(what, "From about 1852 he began to take visitors onto the glaciers.", title="Anselm Varrick. "
                 "He was born in Tellbruck.", lead=lead).score == 0
    # "third son" swaps no word of the question when the passage also says "first ascent" (the description)
    before = "Anselm Varrick was a guide, best remembered for leading the first ascent of the Kessraun."
    born = check(what, "He was born in Tellbruck, the third son of a cooper.", title=f"Anselm Varrick. {before}",
                 lead=lead)
    assert born.score >= 0.6, born.missing
    # ... but a swap of a main-clause word still counts: "winter" is what "What winter course" asks
    swap = asked("What winter course does Odile Marchetti teach?")
    assert substitution(swap, "She now teaches a summer course.", title="Odile Marchetti. She came in winter.")


def test_a_bridges_naming_sentence_is_read_after_its_passage_title():
    """The year of "the manager who led Marrowby Athletic to the 1987 Haverell Cup" is in the naming passage's
    title, not in its sentence ("Managed by Oswin Tarrant, the team won six ties"): read in place, the
    description is covered and the second hop's birthplace answers."""
    from groundqa.programs.bridging import Bridge
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    question = "Where was the manager who led Marrowby Athletic to the 1987 Haverell Cup born?"
    naming = "Managed by Oswin Tarrant, the team won six ties on its way to the final at Haverell."
    first = Passage(chunk_id="cup#0", doc_id="cup", title="Marrowby Athletic's 1987 Haverell Cup run", text=naming,
                    score=0.69)
    second = Passage(chunk_id="tarrant#0", doc_id="tarrant", title="Oswin Tarrant",
                     text="Oswin Tarrant is a former footballer and manager. He was born in the coastal village of "
                          "Corrabeck.", score=0.73)
    bridge = Bridge(entity="Oswin Tarrant", chunk_id="cup#0", sentence=naming, query="Oswin Tarrant manager born")
    found = extractive_answer(question, build_context([first, second], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "Corrabeck" in found.answer and found.answer.startswith("Managed by Oswin Tarrant"), found.shortfall
    untitled = Passage(**{**first.model_dump(), "title": ""})  # the year nowhere: the description is not covered
    found = extractive_answer(question, build_context([untitled, second], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "Corrabeck" not in found.answer


def test_the_second_hop_shows_the_passage_that_says_the_asked_event():
    question = "In what year was the record label that made Mirela Sztanko's Marrowby recordings founded?"
    naming = "In 1962 she signed the orchestra's first recording contract with Gullmarsh Records."
    hop = [passage("sztanko", naming, "Mirela Sztanko"),
           Passage(chunk_id="gullmarsh#2", doc_id="gullmarsh", title="Gullmarsh Records",
                   text="In 2004 the family sold the label to its managing director.", score=0.61),
           Passage(chunk_id="gullmarsh#0", doc_id="gullmarsh", title="Gullmarsh Records",
                   text="It was founded in 1958 by the sound engineer Piers Gullmarsh.", score=0.55)]
    bridge = find_bridge(question, hop[:1])
    assert bridge is not None and bridge.entity == "Gullmarsh Records"
    target = second_hop_target(question, hop, bridge)  # "founded", not the chunk that names the label again
    assert target is not None and target.chunk_id == "gullmarsh#0"
    assert second_hop_target(question, hop[:2], bridge).chunk_id == "gullmarsh#2"  # type: ignore[union-attr]


def test_the_second_hop_shows_the_passage_that_states_the_asked_relation():
    question = "Where was the person who chairs the Quorvane steering committee born?"
    hop = [passage("committee", "Teodor Makaveyev-Lunn has chaired the committee since 2019."),
           Passage(chunk_id="teodor#1", doc_id="teodor", title="Teodor Makaveyev-Lunn",
                   text="He joined Pellory Systems as a principal engineer in 2015.", score=0.56),
           Passage(chunk_id="teodor#0", doc_id="teodor", title="Teodor Makaveyev-Lunn",
                   text="He was born in Port Anselm in 1971.", score=0.53)]
    bridge = find_bridge(question, hop[:1])
    assert bridge is not None and bridge.entity == "Teodor Makaveyev-Lunn"
    assert bridge.query == "Teodor Makaveyev-Lunn born"  # the bridge and what is asked of it, not the description
    target = second_hop_target(question, hop, bridge)
    assert target is not None and target.chunk_id == "teodor#0"
    # with no passage that mentions it, the best-ranked other passage
    assert second_hop_target(question, hop[:2], bridge).chunk_id == "teodor#1"  # type: ignore[union-attr]


def test_bridge_candidates_read_the_description():
    # the name that fills the description's slot, not the first name of the best sentence
    first = passage("conf", "QuorvaneConf has been held every October since 2018 in Velmarsk, and is organised by "
                            "Pellory Systems together with volunteers.", "QuorvaneConf")
    ranked = find_bridges("In what year was the company that organises QuorvaneConf founded?", [first])
    # both tried, best first: "Systems" says Pellory Systems is a company
    assert [b.entity for b in ranked][:2] == ["Pellory Systems", "Velmarsk"]
    # a person is described: a club is no candidate ahead of her
    climb = passage("grauzahn", "In July 1894 Maren Ostlund led the first ascent of the Grauzahn, and in 1899 she "
                                "became the first woman member of the Orvenau Alpine Club.", "Grauzahn")
    who = find_bridges("What had the person who led the first ascent of the Grauzahn trained as?", [climb])
    assert who[0].entity == "Maren Ostlund"
    # an eponym: the species is named for him
    species = passage("fauna", "The amphipod Eurythenes drummorei, described by Priya Lantree-Osei, gave the founder, "
                               "Ansel Drummore, a species of his own.", "Deep-sea fauna")
    honoured = find_bridges("In which town was the person honoured by the amphipod Eurythenes drummorei born?",
                            [species])
    assert honoured[0].entity == "Ansel Drummore"
    # a sentence-opening common word is no name
    plugins = passage("plugins", "Plugins may also add operators. The Gullwing plugin extends SedgeQL.", "Plugins")
    assert "Plugins" not in [b.entity for b in find_bridges(
        "Who designed the query language that the Gullwing plugin extends?", [plugins])]


def test_a_role_description_weighs_like_a_relative_clause():
    what = asked("Where was the original author of quorctl born?")
    assert what.main == ("born",) and dict(zip(what.attribute, what.weights, strict=True))["author"] == 0.5
    assert asked("How many people live in Port Vessany's twin town?").main == ("liv",)
    # a thing of a name, or a -ment noun, is no role: asked about as such
    assert "lif" in asked("Whose value was known in Newton's life?").main
    assert not describes_entity("How large is the endowment of the Hollins Maritime Trust?")
    assert not describes_entity("What is the number of visitors of the museum?")


def test_a_date_question_that_names_its_unit_wants_that_unit():
    weekday = asked("What day of the week is the Night of the Fires held on?")
    assert "week" not in weekday.attribute  # the unit asked for, not an attribute
    # (the sentence says "It": the name the question asks about comes from the passage's title)
    assert check(weekday, "It is held every year on the first Saturday of September.", title="Night of the Fires").score >= 0.6
    assert check(weekday, "It was first held on 14 March 1902.").score == 0  # a date, not a weekday
    month = asked("In which month does QuorvaneConf take place each year?")
    assert check(month, "QuorvaneConf has been held every October since 2018.").score >= 0.6  # take place ~ held
    assert check(month, "QuorvaneConf has been held in Velmarsk since 2018.").score == 0  # a year is no month
    out = asked("What day does the Carrowmede Lantern come out?")
    assert check(out, "The Carrowmede Lantern is published every Friday.").score >= 0.6  # come out ~ published


def test_the_sentence_holding_the_asked_value_outranks_a_wordier_one():
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    question = "In which month does QuorvaneConf take place each year?"
    context = build_context([passage("conf", "Since 2020 the committee has held one meeting a year, the day before "
                                             "QuorvaneConf opens. QuorvaneConf has been held every October since "
                                             "2018 in Velmarsk.", "QuorvaneConf")], 4000)
    plain = extractive_answer(question, context, floor=0.0, answerability=0.6)
    found = extractive_answer(question, context, floor=0.0, answerability=0.6, value_bonus=0.05)
    assert found.chosen and "October" in found.answer and "meeting" not in found.answer
    assert found.chosen[0].score == pytest.approx(plain.chosen[0].score + 0.05)
    # the bonus can lift it over the floor that kept it out
    assert not extractive_answer(question, context, floor=plain.chosen[0].score + 0.01, answerability=0.6).chosen
    assert extractive_answer(question, context, floor=plain.chosen[0].score + 0.01, answerability=0.6,
                             value_bonus=0.05).chosen


def test_a_count_question_is_not_answered_by_the_year_a_sentence_dates_something_by():
    trout = asked("How many marble trout live in the Ilse?")
    # "in 1994", "by the 1970s": dates, not a count of trout
    dated = "The marble trout, which had almost disappeared by the 1970s, was reintroduced in 1994 to the Ilse."
    assert check(trout, dated).score == 0
    assert check(trout, "About 4,000 marble trout live in the Ilse today.").score >= 0.6
    trustees = asked("How many trustees does the Quorvane Project Trust have?")
    assert check(trustees, "The Quorvane Project Trust was set up in 2017 with trustees from its member firms.").score == 0
    assert check(trustees, "The Quorvane Project Trust has five trustees.").score >= 0.6
    # a year is still a value where the question asks for one ("How long", a date question)
    assert check(asked("When was the Quorvane Project Trust set up?"),
                 "The Quorvane Project Trust was set up in 2017.").score >= 0.6


def test_a_word_of_the_description_is_no_mention_of_the_main_clause():
    from groundqa.programs.answerability import mentions

    what = asked("Where did the composer of the Tide Suite teach composition?")
    assert what.main == ("composition", "teach")
    # "composer" shares its first letters with "composition", but it is the description's word
    assert not mentions(what, "Greta Voss (born 1949 in Kellaby) is a composer.")
    assert mentions(what, "She teaches composition at the Lorvin Conservatory.")
    # a near-match by prefix still counts where no description word shares it
    assert mentions(asked("Where was the guide who led the first ascent of the Kessraun trained?"),
                    "He had a training as a cooper.")


def test_a_value_beside_the_asked_word_outranks_one_elsewhere_in_the_sentence():
    from groundqa.programs.answerability import value_beside
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    question = "In which village was Anselm Varrick born?"
    what = asked(question)
    # (neither opens on a pronoun, which is read after the page's title: the ranking alone would then decide)
    stated = "The third son of a cooper, he was born in Tellbrück and trained in his father's workshop."
    mentioned = ("The valley museum displays his ice axe, and a plaque on the house where he was "
                 "born was unveiled by the Orvenau Alpine Club in 1929.")
    assert value_beside(what, stated) and not value_beside(what, mentioned)
    assert value_beside(asked("How high is the Kessraun?"), "The Kessraun (3,412 metres) is the highest peak.")
    assert not value_beside(asked("What is the Kessraun?"), "The Kessraun (3,412 metres) is a mountain.")  # no type
    context = build_context([passage("varrick", f"{mentioned} {stated}", "Anselm Varrick")], 4000)
    plain = extractive_answer(question, context, floor=0.0, answerability=0.6, max_sentences=1)
    found = extractive_answer(question, context, floor=0.0, answerability=0.6, max_sentences=1, value_bonus=0.05)
    assert "Tellbrück" in found.answer and "Tellbrück" not in plain.answer
    # it re-orders what is above the floor, and lifts nothing over it
    stated_score = found.chosen[0].score  # with the bonus for holding a value, without the one for its place
    above = extractive_answer(question, context, floor=stated_score + 0.001, answerability=0.6, value_bonus=0.05)
    assert "Tellbrück" not in above.answer


@pytest.mark.parametrize("question, claims", [
    # a description placed by a possessive is no located description ("the lake shown in Ottilie Sarn")
    ("How deep is the lake shown in Ottilie Sarn's best-known painting?", ["Ottilie Sarn"]),
    # the located description keeps its head noun, not its modifiers
    ("What is the default checkpoint interval in Quorvane?", ["interval in Quorvane"]),
    ("Who is the keeper living in the Calder Lighthouse today?", ["keeper living in the Calder Lighthouse today"]),
    # "What's the" leaves no "'s the" in the claim
    ("What's the minimum TLS version a Quorvane 4.x server will accept?",
     ["TLS version a Quorvane 4.x server will accept"]),
])
def test_located_descriptions_and_contractions_read_as_written(question: str, claims: list[str]):
    assert [p.claim for p in heuristic_presuppositions(question)] == claims


def test_a_person_described_by_what_was_done_for_them_is_bridged():
    # "the man honoured in the name of …" is a reduced relative clause: a description, bridged
    question = "What did the man honoured in the name of the sea pen Pennatula taveneri train as before he became a biologist?"
    assert describes_entity(question) and not describes_entity("How long is the man?")
    naming = passage("species", "The sea pen Pennatula taveneri, named in 1967 by Cormac Westraven, honours Osric "
                                "Tavener, then the director.", "Species named at the institute")
    bridge = find_bridge(question, [naming])
    assert bridge is not None and bridge.entity == "Osric Tavener"
    # the second hop brings what the naming sentence lacks ("train"), not its words again ("taveneri")
    hop = [Passage(chunk_id="osric#2", doc_id="osric", title="Osric Tavener", score=0.6,
                   text="He retired in 1979. The sea pen Pennatula taveneri, described in 1967, carries his name."),
           Passage(chunk_id="osric#0", doc_id="osric", title="Osric Tavener", score=0.5,
                   text="Born in Dunmarrow, he left school at sixteen to train as a merchant navy navigator.")]
    target = second_hop_target(question, hop, bridge)
    assert target is not None and target.chunk_id == "osric#0"
    what = asked(question)
    # with the naming sentence as its lead, an answer must say what the lead does not
    assert check(what, hop[0].text.split(". ")[1], title="Osric Tavener", lead=bridge.sentence).score == 0
    assert check(what, hop[1].text, title="Osric Tavener", lead=bridge.sentence).score >= 0.6


def test_a_name_whose_head_is_a_kind_of_the_described_noun_is_the_bridge():
    # WordNet: an aerodrome is a kind of airfield, so "Corran Aerodrome" is "the airfield where ..."
    wreck = passage("wreck", "The Osprey, a Halden H-4 flown by Marten Quill, was wrecked on 3 May 1988 while "
                             "landing at Corran Aerodrome in a crosswind.", "Osprey")
    bridge = find_bridge("How long is the runway at the airfield where the Osprey was wrecked?", [wreck])
    assert bridge is not None and bridge.entity == "Corran Aerodrome"


def test_the_noun_of_a_typed_slot_weighs_half_before_an_irregular_verb():
    # "Which shipyard built …": the answer names the yard ("the Brannock & Lyle yard"), often without "shipyard"
    what = asked("Which shipyard built the Ellen Strand?")
    assert dict(zip(what.attribute, what.weights, strict=True)) == {"shipyard": 0.5, "build": 1.0}
    assert check(what, "She was built by the Brannock & Lyle yard at Grenholm in 2016.", title="RV Ellen Strand").score >= 0.6
    assert check(what, "RV Ellen Strand is the flagship of the institute.", title="RV Ellen Strand").score == 0


class _Scored(_Fixed):
    def refresh(self) -> int:
        return 0


def test_a_passage_naming_everything_the_question_names_is_evidence_whatever_its_score():
    island = Passage(chunk_id="skellan#1", doc_id="skellan", title="Skellan Island", score=0.2,
                     text="It covers 8.4 square kilometres and rises to 212 metres at Carn Tollow, a heather-covered "
                          "summit on its western side.")
    other = Passage(chunk_id="harbour#0", doc_id="harbour", title="Carrowmede harbour", score=0.5,
                    text="The North Mole at Carrowmede harbour is 410 metres long and was finished in 1898.")
    import dspy

    from groundqa.lm.scripted import ScriptedLM

    # where no sentence answers, the LM is asked: it finds nothing either
    dspy.configure(lm=ScriptedLM(lambda m: {"answer": "NOT IN SOURCES"}),
                   adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    config = QAConfig.for_lm("embedded", verify_premises=False)
    qa = GroundedQA(_Scored(other, island), config)  # type: ignore[arg-type]
    result = qa.run("How high is Carn Tollow?")
    assert not result.abstained and "212 metres" in result.answer, result.abstain_message
    # a passage naming only part of a name (a namesake) is no evidence below the floor
    namesake = island.model_copy(update={"text": island.text.replace("Carn Tollow", "Carn Mor")})
    refused = GroundedQA(_Scored(other, namesake), config).run("How high is Carn Tollow?")  # type: ignore[arg-type]
    assert refused.abstained
    # the same holds for the count of sources: every passage below the floor, one naming everything still counts
    low = other.model_copy(update={"score": 0.2})
    alone = GroundedQA(_Scored(low, island), config).run("How high is Carn Tollow?")  # type: ignore[arg-type]
    assert not alone.abstained and "212 metres" in alone.answer, alone.abstain_message
    none = GroundedQA(_Scored(low, namesake), config).run("How high is Carn Tollow?")  # type: ignore[arg-type]
    assert none.abstain_reason is AbstainReason.TOO_FEW_SOURCES


# -- what the orchestra and railway corpora showed (written blind to the program) ---------------------
@pytest.mark.parametrize("question, claims", [
    # "No." before a number is an abbreviation, the numbered name is the thing ("No. 3 Hadwig")
    ("Has No. 3 Hadwig ever been steamed since it went into the museum?", ["No. 3 Hadwig"]),
    ("What was the profession of the man whose daughter gave her name to locomotive No. 1?", []),
    # months and weekdays date something, they name nothing whose existence could be doubted
    ("On which day of the week are there no trains in May and October?", []),
    # "today" asserts nothing a passage must say in so many words
    ("How many people can Corvayne Hall seat today?", ["Corvayne Hall seat"]),
])
def test_numbered_names_months_and_now_read_as_written(question: str, claims: list[str]):
    assert [c.claim for c in heuristic_presuppositions(question)] == claims


def test_a_year_alone_is_looked_up_in_so_many_words():
    fares = Passage(chunk_id="fares#1", doc_id="fares", title="Timetable and fares", score=0.1,
                    text="For the 2024 season an adult return ticket costs 58 crowns.")
    noise = Passage(chunk_id="line#0", doc_id="line", title="The line", score=0.4, text="The line opened in 1897.")

    class _Contains(_Fixed):
        def retrieve(self, query: str, k: int, contains: tuple[str, ...] = (), lexical: int = 0) -> list[Passage]:
            return [fares] if "2024" in contains else [noise]

    verifier = PremiseVerifier(_Contains(), extractor="heuristic", judge="offline")  # type: ignore[arg-type]
    verdict = verifier.verify(Presupposition(claim="2024", rationale="a time", kind="existence"), Gates())
    assert verdict.supported and verdict.evidence == ["fares#1"]
    assert not verifier.verify(Presupposition(claim="2031", rationale="a time", kind="existence"), Gates()).supported


def test_a_quantity_is_no_year_and_a_decade_holds_its_years():
    seats = features("When it opened it seated 2,140 people; since 2012 it has seated 1,400.")
    assert seats.years == {"2012"} and {"2140", "1400"} <= seats.numbers
    # "renovated from 2009 to 2012" is not contradicted by a number of seats read as the year 1400
    assert conflict(features("the hall renovated from 2009 to 2012"),
                    features("Since then the hall has seated 1,400.")) is None
    closed = features("The line closed on 30 September 1967.")
    assert closed.covers("1960s") and not closed.covers("1950s")
    verdict = get_judge("offline").judge("the last train ran in the 1960s", ["The last train ran on 30 September 1967."])
    assert "number" not in verdict.rationale


def test_two_places_of_the_same_kind_are_no_namesakes():
    # "Depot Hall" is not another person called "Hall" beside "Corvayne Hall"; "Aldous Penn" is Edgar's namesake
    assert conflict(features("the orchestra played in Corvayne Hall in 2010"),
                    features("The orchestra played in the Depot Hall in 2010.")) is None
    assert conflict(features("Edgar Penn wrote the report"), features("Aldous Penn wrote the report."))[0] == "person"


@pytest.mark.parametrize("question, sentence", [
    # a light verb need not be repeated, an idiom reads as its verb, money is a dimension
    ("How much money comes with the Vintrelle Prize?", "Since 1980 the festival has awarded the Vintrelle Prize, "
                                                       "worth 25,000 crowns, to a composer under 35."),
    ("How many people lost their lives when the train derailed at Ambrell Bend?", "Four passengers were killed and "
                                                                                   "23 were injured."),
    ("How many locomotives did Hallbeck & Sons turn out in total?", "In all, Hallbeck & Sons built about 1,150 "
                                                                     "locomotives before the works closed."),
    ("Who set up the Selvatrin Railway Heritage Trust?", "It was founded on 4 April 1969 by the schoolteacher Margit "
                                                         "Ostervall."),
    ("What price was paid for the Kestrel violin in 1952?", "It was bought in 1952 by the Brandt Foundation for "
                                                            "180,000 crowns."),
])
def test_look_ups_worded_otherwise_are_answered(question: str, sentence: str):
    assert check(asked(question), sentence).score >= 0.6


def test_a_year_of_a_trailing_clause_is_not_required_but_a_main_clause_year_is():
    assert "2016" not in asked("What did Ossian Drevlund do before he took over the orchestra in 2016?").required
    assert "1952" in asked("What price was paid for the Kestrel violin in 1952?").required
    # the unchanged guard: a topical sentence without the asked attribute still does not answer
    what = asked("What is the annual budget of the Kessraun Alpine Garden?")
    assert check(what, "The Kessraun Alpine Garden was founded in 1931 and covers 4 hectares.").score == 0


def test_a_lifespan_says_when_someone_died():
    what = asked("In what year did the conductor who premiered Agathe Vintrelle's Violin Concerto die?")
    assert check(what, "Teodor Halmqvist (1884–1962) was chief conductor of the orchestra from 1919 to 1949.",
                 title="Teodor Halmqvist").coverage > check(what, "Teodor Halmqvist was chief conductor.").coverage


def test_a_question_asking_for_the_described_thing_itself_is_not_bridged():
    born = passage("marrowby", "He was born in the fishing village of Skelmoor on the Vessmark coast.", "Edvin Marrowby")
    assert find_bridges("What was Edvin Marrowby's home village?", [born]) == []
    hall = passage("hall", "Corvayne Hall was designed by the architect Ilse Varnholt and opened in 1911.", "Corvayne Hall")
    assert find_bridges("Who was the architect of Corvayne Hall?", [hall]) == []
    # a question that asks something *of* the described one still is
    assert describes_entity("Where was the architect of Corvayne Hall born?")
    assert find_bridge("Where was the architect of Corvayne Hall born?", [hall]).entity == "Ilse Varnholt"


def test_a_person_described_is_bridged_to_a_full_name_before_a_one_word_place():
    work = passage("vintrelle", "Born in the lakeside town of Lanternmere, she studied violin. Her Violin Concerto was "
                                "first performed under Teodor Halmqvist.", "Agathe Vintrelle")
    bridges = find_bridges("In what year did the conductor who premiered Agathe Vintrelle's Violin Concerto die?", [work])
    assert [b.entity for b in bridges][0] == "Teodor Halmqvist"


def test_a_passage_holding_every_word_of_a_nameless_question_is_evidence_whatever_its_score():
    import dspy

    from groundqa.lm.scripted import ScriptedLM

    fares = Passage(chunk_id="fares#1", doc_id="fares", title="Timetable and fares", score=0.2,
                    text="For the 2024 season an adult return ticket costs 58 crowns and a single 36 crowns.")
    other = Passage(chunk_id="fares#0", doc_id="fares", title="Timetable and fares", score=0.35,
                    text="From mid-June to the end of August four return trains run each day.")
    dspy.configure(lm=ScriptedLM(lambda m: {"answer": "NOT IN SOURCES"}),
                   adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    config = QAConfig.for_lm("embedded", verify_premises=False)
    result = GroundedQA(_Scored(other, fares), config).run("How much is an adult return ticket in the 2024 season?")  # type: ignore[arg-type]
    assert not result.abstained and "58 crowns" in result.answer, result.abstain_message
    # one word short of the question (no 2024) is no evidence below the floor
    old = fares.model_copy(update={"text": fares.text.replace("2024", "1989")})
    assert GroundedQA(_Scored(other, old), config).run("How much is an adult return ticket in the 2024 season?").abstained  # type: ignore[arg-type]


def test_the_name_after_the_auxiliary_is_required_even_after_the():
    # "How many concerts does *the Ostrevane Youth Symphony* give?" is not answered by the main orchestra's count
    what = asked("How many concerts does the Ostrevane Youth Symphony give each year?")
    assert what.named == (("ostrevan", "youth", "symphoni"),)
    assert check(what, "Today the OSO gives around 110 concerts a season.", title="Ostrevane Symphony Orchestra").score == 0
    assert check(what, "The youth symphony gives six concerts a year.", title="Ostrevane Youth Symphony").score >= 0.6


def test_a_phrase_inside_a_relative_clause_does_not_end_the_main_clause():
    # "… who ordered new brakes *after the accident* born?": the main clause resumes at "born"
    what = asked("In which village was the general manager who ordered new brakes after the Ambrell Bend accident born?")
    assert what.main == ("born",)
    # a clause with its own subject still trails ("… do *before he retired*?")
    retired = asked("What did the man who founded the club do before he retired?")
    assert dict(zip(retired.attribute, retired.weights, strict=True))["retir"] == 0.3
    # a relative clause ending in a verb that only carries the slot resumes nothing ("… is located *have*"); one
    # ending in a preposition resumes at its last content word ("… Calder bridge *belong* to")
    assert asked("How many inhabitants does the town where the railway's workshop is located have?").main != ("locat",)
    assert "belong" in asked("Which party did the mayor who championed the Calder bridge belong to?").main


def test_a_do_question_asks_what_resumes_after_the_clause_that_describes_its_subject():
    # the noun the clause describes is the bridge's description; what resumes after the clause is what was asked
    retired = asked("In what year did the chemist whose lab isolated Veltrane retire?")
    assert retired.main == ("retir",)
    assert dict(zip(retired.attribute, retired.weights, strict=True))["chemist"] == 0.5
    lead = "Veltrane was isolated in 1981 by a laboratory under the chemist Ada Perrin."
    # a sentence of the bridge's page that only says "chemists" is no answer to when she retired
    assert check(retired, "The institute opened in 1979 with twelve chemists.", title="Perrin Institute",
                 lead=lead).score == 0
    assert check(retired, "She retired in 2004 and moved to the coast.", title="Ada Perrin", lead=lead).score >= 0.6
    # a verb phrase with an object or a role resumes whole ("*first join* the firm", "*serve as mayor*")
    joined = asked("When did the finance director who arranged the Holt takeover first join Brennmoor?")
    assert set(joined.main) == {"first", "join"}
    served = asked("When did the dockers' leader who called the 1931 strike serve as mayor of Tarrow?")
    assert {"serv", "mayor"} <= set(served.main) and "leader" not in served.main
    # not where the clause describes the object ("did the owners buy the inn *where* she grew up"), where "that"
    # follows a verb ("did the panel conclude *that* …"), nor where nothing but an event resumes ("… happen?")
    assert "buy" in asked("In what year did the new owners buy the inn where Ada Perrin grew up?").main
    assert "panel" in asked("Why did the panel conclude that the 1923 mill fire was arson?").main
    assert "disaster" in asked("On what date did the disaster that prompted the Tarrow flood wall happen?").main
    # in the passive, the participle after the clause's own verb resumes the main clause ("… *elected president*")
    elected = asked("In what year was the surveyor who mapped the Tarrow estuary elected president of the guild?")
    assert {"elect", "president"} <= set(elected.main)
    assert "serv" not in asked("How long is the lock where Ada Perrin served as keeper?").main  # the clause's own verb


def test_a_sentence_about_a_relative_does_not_answer_for_the_person():
    died = asked("In what year did the founder of Tarrow Priory die?")
    assert check(died, "Ada Perrin died in 1169 and was buried at the priory.", title="Ada Perrin").score >= 0.6
    for sentence in ("Her descendants held the manor until the line died out in 1386.", "Her eldest son died in 1190."):
        verdict = check(died, sentence, title="Ada Perrin")
        assert verdict.score == 0 and any("relative" in m for m in verdict.missing)
    # asked of the relative, the relative's sentence answers
    assert check(asked("When did Ada Perrin's son die?"), "Her son died in 1190.", title="Ada Perrin").score >= 0.6


def test_a_size_changed_to_a_value_is_of_its_own_dimension():
    deep = asked("How deep is the Tarrow lock?")
    assert check(deep, "The Tarrow lock was lengthened to 96 metres in 1952.", title="Tarrow lock").score == 0
    assert check(deep, "The Tarrow lock was deepened to 6 metres in 1952.", title="Tarrow lock").score >= 0.6
    high = asked("How high is the Brennmoor dam?")
    assert check(high, "The Brennmoor dam was raised to 38 metres in 1960.", title="Brennmoor dam").score >= 0.6


@pytest.mark.parametrize("question, sentence", [
    # a head by title, a place question's locating verb, a share as per cent, an idiom for its verb, a boat by
    # another word, starting again as returning
    ("Who heads the Tessaly Polytechnic?", "Dr. Ansa Morrow has been rector since 2017."),
    ("Where in Harwick is Brell Boatworks located?", "Brell Boatworks is a small boatyard on the West Quay of Harwick."),
    ("What share of voters turned down the Tessaly tunnel?", "In the referendum, 61 per cent of voters rejected "
                                                            "the tunnel."),
    ("In which year did passenger trains start running again to Harwick?", "The line was closed to passengers in 1960 "
                                                                          "until passenger trains returned in 2004."),
    ("What is the Tessaly Marine Station's research boat called?", "Its research vessel, the Petrel, is 14 metres long."),
])
def test_look_ups_in_other_common_words_are_answered(question: str, sentence: str):
    assert check(asked(question), sentence).score >= 0.6


def test_what_came_before_must_be_said_to_come_before():
    # all a question says is in its trailing clause: the answer must stand in that relation to it
    what = asked("What did Anton Brell do before he went into politics?")
    assert what.relation == "before"
    assert check(what, "Before entering politics he managed the ferry office for ten years.",
                 title="Anton Brell").score >= 0.6
    assert check(what, "Anton Brell is a politician from Harwick.", title="Anton Brell").score == 0


def test_the_name_of_a_person_is_a_person_and_a_place_is_no_person():
    assert asked("What was the name of the man who founded the Tessaly Glassworks?").kind == "person"
    assert asked("What is the name of the ship that sank off Harwick in 1904?").kind == "name"
    assert asked("What are the agents detected by the immune system called?").kind is None  # a term, not a name
    assert asked("What is the Tessaly Marine Station's research boat called?").kind == "name"
    founder = asked("What was the name of the man who founded the Tessaly Glassworks?")
    assert check(founder, "The Tessaly Glassworks was founded in 1888 beside the River Tarn.").score == 0
    assert check(founder, "The Tessaly Glassworks was founded in 1888 by Anton Brell.").score >= 0.6
    # "who" may be answered by a body ("the Harwick council"): only a question naming a person noun is held to one
    assert check(asked("Who founded the Tessaly Glassworks?"), "It was founded by the Harwick Town Council.").score >= 0.6


def test_a_count_is_not_answered_by_a_share_or_a_day_of_the_month():
    votes = asked("How many votes were cast in the Tessaly tunnel referendum of 2010?")
    assert check(votes, "In a referendum held on 14 March 2010, 61 per cent of voters rejected the tunnel.").score == 0
    assert check(votes, "In the referendum of 2010, 12,400 votes were cast.").score >= 0.6
    share = asked("How many per cent of voters rejected the Tessaly tunnel?")
    assert check(share, "In the referendum, 61 per cent of voters rejected the tunnel.").score >= 0.6


def test_a_passive_date_question_wants_the_event_it_dates():
    what = asked("When was the road bridge to Tessaly Island opened?")
    assert what.event == "open" and "open" in what.required
    assert check(what, "In 2008 the town proposed a road bridge to Tessaly Island.").score == 0
    assert check(what, "The road bridge to Tessaly Island was opened in 2011.").score >= 0.6


@pytest.mark.parametrize("claim, text", [
    ("the museum charge school classes for their visits", "School classes visit the museum free of charge."),
    ("the Harwick Gazette stop printing during the storms of 1994",
     "The Harwick Gazette has been printed without interruption, even during the storms of 1994."),
])
def test_a_phrase_that_states_the_opposite_contradicts(claim: str, text: str):
    found = find_contradiction(claim, [passage("p", text)], 0.6)
    assert found is not None and found.kind == "antonym"


def test_a_negated_auxiliary_ends_the_slot_and_its_typing_words_are_no_modifiers():
    claims = [p.claim for p in heuristic_presuppositions("Which day of the week can't you visit the Museum of Tides?")]
    assert claims == ["you visit the Museum of Tides"]
    assert check(asked("Which day of the week can't you visit the Museum of Tides?"),
                 "The museum is closed on Mondays.", title="Museum of Tides").score >= 0.6


def test_a_description_that_names_the_thing_itself_keeps_no_unverified_bridge():
    import dspy

    from groundqa.lm.scripted import ScriptedLM

    station = Passage(chunk_id="station#0", doc_id="station", title="Tessaly Marine Station", score=0.7,
                      text="The Tessaly Marine Station is a research station on Tessaly Island, near Harwick. "
                           "Its research vessel, the Petrel, is 14 metres long.")
    village = Passage(chunk_id="harwick#0", doc_id="harwick", title="Harwick", score=0.5,
                      text="Harwick is a fishing village. Its harbour was deepened in 2003 so that larger vessels "
                           "could berth.")
    dspy.configure(lm=ScriptedLM(lambda m: {"answer": "NOT IN SOURCES"}),
                   adapter=dspy.ChatAdapter(use_json_adapter_fallback=False))
    config = QAConfig.for_lm("embedded", verify_premises=False)
    result = GroundedQA(_Scored(station, village), config).run(  # type: ignore[arg-type]
        "What is the research boat that the Tessaly Marine Station has called?")
    assert "Petrel" in result.answer and "deepened" not in result.answer, result.answer
    assert any("no bridge kept" in note for note in result.notes), result.notes
    owned = GroundedQA(_Scored(station, village), config).run("What is the Tessaly Marine Station's research boat called?")  # type: ignore[arg-type]
    assert "Petrel" in owned.answer and "deepened" not in owned.answer, owned.answer
    # a possessive of the answer's type is asked of the name itself: no bridge is tried at all
    from groundqa.programs.answerability import describes_entity

    assert not describes_entity("What was Josiah Brandreth's job?")
    assert describes_entity("How deep is the lake shown in Ottilie Sarn's best-known painting?")


def test_a_relative_shares_the_surname_without_being_a_namesake():
    from groundqa.judges.lexical import names_conflict

    paolo = features("Paolo Marchetti received the Silver Compass award in 1993.")
    brother = features("Odile Marchetti's cartographer brother receive in 1993")
    assert not names_conflict(brother.names, paolo.names, brother.tokens)
    designer = features("Odile Marchetti design the harbor lights")
    assert names_conflict(designer.names, paolo.names, designer.tokens)  # without kin, still a namesake


def test_an_asked_relation_about_an_indefinite_description_is_checked_hop_by_hop():
    # a definite description ("*the* research station that …") is bridged and presupposes only its names (see
    # test_a_question_answered_in_two_hops_presupposes_its_names); an indefinite one is checked in two parts
    claims = [p.claim for p in heuristic_presuppositions(
        "How many permanent staff work at a research station that Ines Halloran directs?")]
    assert claims == ["staff work at a research station", "research station that Ines Halloran directs"]
    # too short a relation to stand alone stays whole
    assert len(heuristic_presuppositions("Who edits newspapers whose photographs Sinead Ardley used?")) == 1


@pytest.mark.parametrize(("question", "describes"), [
    ("How large is the kelp farm of the company Mira Tell founded?", True),
    # a work, or a person by role, is described by a contact clause too
    ("Who led the cast of the play Mireille Adance premiered in 2012?", True),
    ("Who coached the rival Anselm Korvath beat in 1953?", True),
    # in the present, also after the question's own "was": "plays" is never its passive
    ("When was the club Matthias Brel plays top board for founded?", True),
    # after "was" a past participle is the question's own passive, not a contact clause
    ("When was the company Pellory Systems founded?", False),
    ("Where was the architect Clara Vennick trained?", False),
    # a plain noun before a name is no body, work or role ("the storms Sinead Ardley painted")
    ("What was the strongest gust in the storms Sinead Ardley painted?", False),
])
def test_a_contact_clause_describes_a_named_body_work_or_person(question: str, describes: bool) -> None:
    assert describes_entity(question) is describes


def test_a_contact_clause_describes_and_an_agent_noun_says_its_act():
    assert describes_entity("How large is the kelp farm of the company Mira Tell founded?")
    assert check(asked("Who edits the Harwick Gazette?"), "Ansa Morrow has been its editor since 2018.",
                 title="The Harwick Gazette").score >= 0.6
    # a bridged answer reads its passage's opening for what the bridge is ("the local newspaper")
    what = asked("Who edits the newspaper whose photographs Anton Brell used?")
    lead = "Anton Brell painted from photographs in the Harwick Gazette."
    editor = "Ansa Morrow has been its editor since 2018."
    opening = "The Harwick Gazette is the local newspaper of Harwick."
    assert check(what, editor, title="The Harwick Gazette", lead=lead, about=opening).score >= 0.6
    assert check(what, editor, title="The Harwick Gazette", lead=lead).score < 0.6


def test_a_job_question_wants_a_trade_and_a_before_clause_may_be_worded_otherwise():
    what = asked("What job did Anton Brell have before he became harbour master?")
    assert what.kind == "occupation" and what.relation == "before"
    # the relation word and one word of the clause are enough: the clause's event may be worded otherwise
    assert check(what, "Before taking up harbour work he spent ten years as an assistant engineer at Saltmere.",
                 title="Anton Brell").score >= 0.6
    assert check(what, "Anton Brell became harbour master in 1901.", title="Anton Brell").score == 0
    # another job than the one the clause names ("an *assistant* engineer" before "chief engineer")
    chief = asked("What job did Anton Brell have before he became chief engineer?")
    assert check(chief, "Before that he worked as an assistant engineer at Saltmere.", title="Anton Brell").score >= 0.6
    profession = asked("What was the profession of the man whose daughter named the ferry?")
    assert profession.kind == "occupation"
    assert check(profession, "Their younger daughter, Ilse, named the ferry.", title="Jorin Brell").score == 0
    assert check(profession, "Jorin Brell was a banker; his daughter named the ferry.", title="Jorin Brell").score >= 0.6


@pytest.mark.parametrize("question, sentence, title", [
    # how people ask, against how passages state it
    ("Who's in charge of the Harwick Cooperative these days?", "Since 2016 it has been led by chairwoman Ansa Morrow.",
     "Harwick Cooperative"),
    ("Who started the Harwick Flying School?", "It was founded in 1979 by Marjory Skene, a former instructor.",
     "Harwick Flying School"),
    ("Who runs the Harwick Wine Museum?", "The historian Yannick Teller has been its director since 2008.",
     "Harwick Wine Museum"),
    ("On what date did the Harwick Wine Museum open its doors?", "It opened on 14 May 1994.", "Harwick Wine Museum"),
    ("When did the Linnet prototype first take to the air?", "The prototype made its first flight on 11 October 1978.",
     "Linnet"),
    ("Which lighthouse did Tobiah Brell look after?", "From 1962 to 1983 he kept the Skelling Head lighthouse.",
     "Tobiah Brell"),
    ("What year did Harwick get its train station?", "Its railway station opened in 1911.", "Harwick"),
    ("How many of the Harwick Isles have people living on them year-round?", "Only nine of the islands are "
                                                                            "permanently inhabited.", "Harwick Isles"),
    ("How long is the co-op's Long Vault cellar?", "The Long Vault, the cooperative's cellar, is 240 metres long.",
     "Long Vault"),
    ("What's the size of Clos Ardanne's vineyard?", "Its vineyard covers 6 hectares.", "Clos Ardanne"),
])
def test_colloquial_questions_are_answered(question: str, sentence: str, title: str):
    assert check(asked(question), sentence, title=title).score >= 0.6


@pytest.mark.parametrize("question, sentence, title, answered", [
    # a value named for its kind: a people says a nationality, a range a voice, a rock what a peak is made of
    ("What was Ansel Varro's nationality?", "The Norwegian painter Ansel Varro settled in Harwick in 1904.",
     "Ansel Varro", True),
    ("What was Ansel Varro's nationality?", "The painter Ansel Varro settled in Harwick in 1904.", "Ansel Varro", False),
    ("What type of voice did Marit Olsen have?", "Marit Olsen (1901–1980) was a contralto who sang at the Harwick "
                                                 "Opera.", "Marit Olsen", True),
    ("What type of voice did Marit Olsen have?", "Marit Olsen (1901–1980) sang at the Harwick Opera for thirty years.",
     "Marit Olsen", False),
    ("What kind of stone is the Harwick Needle made of?", "The Harwick Needle is a granite stack off the point.",
     "Harwick Needle", True),
    # a work's credit says who made it; a gift who donated it; a ceremony's verb is the act
    ("Who made the bronze bust of Ilse Brell?", "A bronze bust of her by the sculptor Tomas Wendt stands in the "
                                                "square.", "Ilse Brell", True),
    ("Who made the bronze bust of Ilse Brell?", "A bronze bust of her stands in the square.", "Ilse Brell", False),
    ("Who donated the Long Meadow to the town?", "The town obtained it in 1911 as a gift from Ada Quell.",
     "Long Meadow", True),
    ("Who performed the opening of the Harwick lifeboat station?", "It was opened on 3 June 1996 by the actor "
                                                                    "Rolf Imber.", "Harwick lifeboat station", True),
    ("What caused the 1931 fire at the Harwick Mill?", "The fire of 1931 began in the drying loft, where a spark "
                                                       "from a lamp ignited the wool.", "Harwick Mill", True),
    ("What caused the 1931 fire at the Harwick Mill?", "The 1931 fire destroyed the drying loft of the mill.",
     "Harwick Mill", False),
    # a trade asked in other words, a gate for an attendance, a score by its two sides, a misspelt question word
    ("What line of business was Tomas Wendt in?", "Tomas Wendt (1850–1911) was a timber merchant and a magistrate.",
     "Tomas Wendt", True),
    ("What did Tomas Wendt do for a living?", "Tomas Wendt (1850–1911) was a timber merchant and a magistrate.",
     "Tomas Wendt", True),
    ("What did Tomas Wendt do for a living?", "Tomas Wendt (1850–1911) married Ada Quell in 1878.", "Tomas Wendt",
     False),
    ("Average home league gate for Harwick Rovers in 2015?", "Home attendance averaged 2,310 in the league in 2015.",
     "Harwick Rovers", True),
    ("What was the final score of the Harwick Derby?", "Rovers won by 3 to 1 in the final minutes.", "Harwick Derby",
     True),
    ("What was the final score of the Harwick Derby?", "Rovers won the final in extra time.", "Harwick Derby", False),
    ("What equation decribes the motion of the Harwick pendulum?", "Its motion is described by the Wendt equation.",
     "Harwick pendulum", True),
    ("Who painted the Harwick altarpiece?", "The Harwick altarpiece was printed by Tomas Wendt.", "Harwick altarpiece",
     False),
])
def test_what_is_asked_may_be_said_by_a_value_a_credit_or_a_ceremony(question: str, sentence: str, title: str,
                                                                   answered: bool):
    assert (check(asked(question), sentence, title=title).score >= 0.6) is answered


def test_a_premise_is_judged_with_its_passage_title_and_a_rare_name_looked_up_in_so_many_words():
    school = Passage(chunk_id="ilse#1", doc_id="ilse", title="Ilse Brell", score=0.66,
                     text="She graduated from the Harwick School of Viticulture in 1987.")
    verifier = PremiseVerifier(_Fixed(school), extractor="heuristic", judge="offline")
    claim = Presupposition(claim="Ilse Brell studied at the Harwick School of Viticulture", kind="event", role="asked")
    assert verifier.verify(claim, Gates()).supported  # "She" is the page's subject: its title names her
    tun = Passage(chunk_id="coop#2", doc_id="coop", title="Harwick Cooperative", score=0.21,
                  text="Its largest cask, the Great Tun, holds 24,000 litres and was built in 1980 by a cooper.")
    made = Presupposition(claim="made the Great Tun", kind="event", role="asked")
    verdict = PremiseVerifier(_Fixed(tun), extractor="heuristic", judge="offline").verify(made, Gates())
    assert verdict.supported, verdict.rationale  # below the retrieval floor, but the passage names the Great Tun


def test_the_act_of_a_who_question_and_the_noun_of_a_count_are_required():
    designer = asked("Who designed the proposed bridge to Tessaly Island?")
    assert designer.event == "design"
    assert check(designer, "The plan was championed by mayor Anton Brell.", title="Tessaly bridge").score == 0
    assert check(designer, "It was designed by the engineer Ansa Morrow.", title="Tessaly bridge").score >= 0.6
    # the act in other words still counts ("led" / "chaired by")
    assert check(asked("Who led the public inquiry into the Harwick crash?"), "The Rook Inquiry into the Harwick crash "
                 "was chaired by the retired judge Annis Rook.", title="Rook Inquiry").score >= 0.6
    contributors = asked("How many contributors worked on Quorvane 3.0?")
    assert contributors.event == "contributor"
    assert check(contributors, "It ran on a single node; replication was future work.", title="Quorvane 3.0").score == 0
    assert check(contributors, "Some 40 contributors worked on it.", title="Quorvane 3.0").score >= 0.6
    # a generic count ("items", "people") is answered by what is counted ("40,000 charts")
    assert asked("How many items does the Harwick Library hold?").event == ""
    assert "old" not in asked("How many passengers could the old ferry Petrel carry?").required


def test_another_dimension_and_a_span_of_years_answer_nothing():
    deep = asked("How deep is the Oskeld at Harwick?")
    assert check(deep, "At Harwick the river is 140 metres wide.", title="River Oskeld").score == 0
    assert check(deep, "At Harwick the river is 12 metres deep.", title="River Oskeld").score >= 0.6
    staff = asked("How many people work at the Harwick Hangar?")
    assert check(staff, "She ran the Harwick Hangar from 1971 to 1999.", title="Harwick Hangar").score == 0


def test_a_count_of_appearances_is_made_and_a_whole_is_made_up():
    # "make" only carries a count ("how many appearances did he make"), but "make up" is "comprise"
    assert "mak" not in asked("How many appearances did Tobias Brell make for Harwick Athletic?").attribute
    assert "compris" in asked("How many paintings make up Nine Dark Nights?").attribute
    job = asked("What was Josiah Brell's job?")
    assert job.kind == "occupation"
    assert check(job, "Josiah Brell (1861–1930) was a glassworks foreman.", title="Josiah Brell").score >= 0.6


@pytest.mark.parametrize(("question", "sentence", "title"), [
    # the asked compound's head said without a rival modifier: the modifier need not be repeated
    ("What's the surface area of Lake Harrow?", "It is 9.1 kilometres long and covers an area of 6.4 square "
                                                "kilometres.", "Lake Harrow"),
    # the slot's noun says what was asked; the verb that only carries it need not be said
    ("What track gauge does the Harrow Valley Railway use?", "The railway was built to a gauge of 785 mm.",
     "Harrow Valley Railway"),
    ("What motto appears beneath the Harrow Rovers crest?", 'The motto "Fire Makes Us" was added beneath the shield '
                                                            'in 1975.', "Harrow Rovers crest and colours"),
    # "responsible for" says nothing the answer must repeat
    ("Which architect was responsible for the Pelham Stand?", "It was designed by the architect Ruthven Aske and "
                                                               "opened in 1974.", "Pelham Stand"),
])
def test_the_asked_attribute_said_by_its_head_or_slot_noun_is_answered(question: str, sentence: str, title: str):
    assert check(asked(question), sentence, title=title).score >= 0.6


@pytest.mark.parametrize(("question", "sentence", "title"), [
    # a rival modifier of the head: another attribute (SQuAD 2.0 makes unanswerable questions this way)
    ("What is the top speed of the RV Harrow?", "She has berths for 28 scientists and a cruising speed of 12 knots.",
     "RV Harrow"),
    ("What winter course does Odile Harrow teach?", "Odile Harrow now teaches a summer course on tidal energy.",
     "Odile Harrow"),
    # only the asked compound's own head excuses its modifier, not one deeper in the question
    ("What is the annual membership fee of the Harrow Trust?", "The trust has about 1,900 members.", "Harrow Trust"),
    ("What is an example of a problem that rests within the NP simplicity class?",
     "Each problem in P is also member of the class NP.", "Computational complexity theory"),
])
def test_a_modifier_is_excused_only_for_the_asked_heads_own_mention(question: str, sentence: str, title: str):
    assert check(asked(question), sentence, title=title).score < 0.6


def test_whether_or_not_denies_nothing():
    from groundqa.judges.lexical import negates

    sentence = "Its default is 640, and each connection reserves 2 MiB whether or not it is busy."
    assert not features(sentence).negated and not negates(sentence)
    assert check(asked("What is the default value of max_connections?"), "max_connections limits client "
                 "connections; its default is 640, and each connection reserves 2 MiB whether or not it is busy.",
                 title="Configuration reference").score >= 0.6
    assert features("It is not busy.").negated  # a plain negation still is one


def test_a_type_asked_of_a_described_person_comes_from_the_opening_of_their_page():
    from groundqa.programs.bridging import Bridge
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    question = "What was the profession of the man whose daughter gave her name to locomotive No. 1?"
    naming = "The engine was named after Ilse Harrowby, the daughter of the company's first chairman, Jorin Harrowby."
    first = Passage(chunk_id="loco#0", doc_id="loco", title="Locomotive No. 1 Ilse", text=naming, score=0.7)
    hop = [first,
           Passage(chunk_id="jorin#2", doc_id="jorin", title="Jorin Harrowby",
                   text="Their younger daughter, Ilse, gave her name to the railway's first locomotive.", score=0.66),
           Passage(chunk_id="jorin#0", doc_id="jorin", title="Jorin Harrowby",
                   text="Jorin Harrowby (1842–1911) was a banker and the founder of the railway company.", score=0.5)]
    bridge = Bridge(entity="Jorin Harrowby", chunk_id="loco#0", sentence=naming, query="Jorin Harrowby daughter")
    target = second_hop_target(question, hop, bridge)  # the page's opening, not the chunk repeating the clue
    assert target is not None and target.chunk_id == "jorin#0"
    found = extractive_answer(question, build_context([first, target], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "banker" in found.answer, found.shortfall
    # a sentence not about the bridge holds a type, but is no answer about the man described
    other = Passage(chunk_id="town#0", doc_id="town", title="Corvenna",
                    text="Corvenna is a market town whose mayor is a former engineer.", score=0.5)
    found = extractive_answer(question, build_context([first, other], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "engineer" not in found.answer


def test_the_owner_of_what_was_done_is_not_the_person_who_did_it():
    question = 'In which town was the conductor who gave the first performance of the "Salt Marsh" Symphony born?'
    first = [Passage(chunk_id="renneby#1", doc_id="renneby", title="August Harrow", score=0.7,
                     text="He conducted the inaugural concert of the hall in 1911 and gave the first performances of "
                          "Edvin Marrowby's first three symphonies, including the \"Salt Marsh\" Symphony."),
             Passage(chunk_id="sym#0", doc_id="sym", title='Symphony No. 3 "Salt Marsh"', score=0.68,
                     text="It was first performed on 21 February 1912 by the city orchestra under August Harrow. "
                          "Symphony No. 3 is the third of Marrowby's five symphonies.")]
    names = [b.entity for b in find_bridges(question, first, limit=4)]
    assert names[0] == "August Harrow" and "Symphony No" not in names, names
    # a role of the owner's is the way to the person: no cost
    question = "On which island was the chief pilot who testified at the Rook Inquiry born?"
    first = [passage("rook", "It heard evidence from 41 witnesses, including Kestrelwing Air's chief pilot.", "Rook Inquiry")]
    assert [b.entity for b in find_bridges(question, first)][:1] == ["Kestrelwing Air"]


def test_a_role_of_something_described_is_a_person_description():
    question = "For what fee was the academy's most successful graduate sold to Dunhallow Town?"
    assert describes_entity(question)
    what = asked(question)
    assert what.main == ("sell",)  # the description's words weigh half: the naming sentence says them
    assert asked("What is Thorncastle Brewery's best-known beer?").main == ("best", "beer")  # a thing of a name's
    assert check(what, "In January 2012 he joined Dunhallow Town for £85,000, a record fee for a transfer.",
                 title="Declan Sowerby", lead="In 2012 the club signed Declan Sowerby, the academy's most successful "
                                              "graduate.").score >= 0.6


def test_a_colour_question_wants_a_colour():
    what = asked("What colour is the light of the Harrow Lighthouse?")
    assert check(what, "Its light flashes white every ten seconds.", title="Harrow Lighthouse").score >= 0.6
    for topical in ("Its light is visible for 22 nautical miles.",
                    "The keeper served in the merchant navy before joining the lighthouse service and its light."):
        assert check(what, topical, title="Harrow Lighthouse").score == 0.0


def test_a_relative_by_kinship_is_a_description_and_a_paper_is_named_by_its_title():
    what = asked("Which paper does Oswin Harrow's niece write for?")
    assert describes_entity("Which paper does Oswin Harrow's niece write for?")
    assert what.main == ("writ",)  # "niece" describes whom the question is about; "write" is asked
    assert check(what, "Lena Harrow (born 1970) is a sports journalist who has been chief football writer of the "
                       "Marrowby Courier since 1998.", title="Lena Harrow").score >= 0.6


def test_a_kind_of_the_asked_noun_says_it():
    """WordNet's hypernyms (groundqa.hypernyms): "gneiss" is a stone, a "shop" a business; words the question
    asks about that are not what was asked are still needed."""
    stone = asked("What stone was used for the walls of the Harrow Museum?")
    assert stone.category == "stone" and stone.slot  # "was" is no slot noun: "stone" is
    gneiss = check(stone, "Its walls are built of grey gneiss from the quarry above the village.", title="Harrow Museum")
    assert gneiss.score == 1.0 and gneiss.missing == ()
    assert "ston" in check(stone, "Its walls are painted white.", title="Harrow Museum").missing  # no kind of stone
    assert "wall" in check(stone, "Its floors are laid in grey gneiss.", title="Harrow Museum").missing
    business = asked("What kind of business did the goalkeeper run after he retired?")
    assert business.category == "business"
    assert check(business, "After retiring he ran a sports shop on Kiln Row for 20 years.").score >= 0.6
    assert check(business, "After retiring he ran marathons for 20 years.").score < 0.6
    # a kind of the slot's noun does not speak for the main clause: a white tower says nothing of the light
    colour = asked("What colour is the light of the Harrow Lighthouse?")
    assert check(colour, "The tower is painted white with a single red band.", title="Harrow Lighthouse").score == 0.0


def test_a_sentence_that_opens_on_a_pronoun_is_embedded_after_its_title():
    from groundqa.programs.extractive import embedded_text

    assert embedded_text("It was built between 1908 and 1911.", "Corvayne Hall") == (
        "Corvayne Hall. It was built between 1908 and 1911.")
    assert embedded_text("Its roof was renewed in 1990.", "Corvayne Hall").startswith("Corvayne Hall. ")
    assert embedded_text("The hall was built in 1911.", "Corvayne Hall") == "The hall was built in 1911."
    assert embedded_text("Items of the collection are lent.", "Corvayne Hall") == "Items of the collection are lent."
    assert embedded_text("It was built in 1911.", "") == "It was built in 1911."


def test_a_length_run_along_is_no_depth():
    deep = asked("How deep is the Oskeld at Haverlade?")
    runs = "At Haverlade the Oskeld runs for 380 metres between the two weirs."
    assert check(deep, runs, title="River Oskeld").score == 0
    assert check(deep, "At Haverlade the Oskeld is 12 metres deep.", title="River Oskeld").score >= 0.6
    assert check(asked("How long is the Oskeld at Haverlade?"), runs, title="River Oskeld").score >= 0.6


def test_a_bridges_naming_sentence_is_dated_by_its_passages_opening():
    # the naming sentence does not repeat the year the question pins; its passage's first sentence gives it
    from groundqa.programs.bridging import Bridge
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    question = "When was the locomotive that derailed at Tollin Bend in 1931 built?"
    naming = "The evening train, hauled by locomotive No. 5 Brisk, left the rails on Tollin Bend near Harwick station."
    first = Passage(chunk_id="crash#0", doc_id="crash", title="Tollin Bend accident", score=0.7,
                    text=f"The Tollin Bend accident was a derailment on the Harwick Railway on 2 May 1931. {naming}")
    target = Passage(chunk_id="brisk#0", doc_id="brisk", title="Locomotive No. 5 Brisk", score=0.6,
                     text="No. 5 Brisk is a steam tank locomotive built in 1909 at the Harwick Works.")
    bridge = Bridge(entity="Brisk", chunk_id="crash#0", sentence=naming, query="Brisk locomotive built")
    found = extractive_answer(question, build_context([first, target], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "1909" in found.answer, found.shortfall
    # only the opening's years are read, not its words: they must not answer what the second hop must say
    stated = "The Tollin Bend accident was a derailment on the Harwick Railway, built in 1909, on 2 May 1931."
    wordy = Passage(chunk_id="crash#0", doc_id="crash", title="Tollin Bend accident", score=0.7,
                    text=f"{stated} {naming}")
    other = Passage(chunk_id="town#0", doc_id="town", title="Harwick", score=0.6,
                    text="Harwick is a market town of 4,000 people, first recorded in 1299.")
    found = extractive_answer(question, build_context([wordy, other], 4000), floor=0.0, answerability=0.6,
                              bridge=bridge)
    assert "1299" not in found.answer


def test_the_title_of_a_work_is_what_names_it():
    # "What is the title of her book …?" asks for a name: the answer names the book, it need not say "title"
    book = asked("What is the title of Lena Marsh's book on the harbour fire?")
    assert check(book, "She is the author of Ashes and Tide (2012), a history of the harbour fire.").score >= 0.6
    assert check(book, "She has written for the Courier since 1994.").score < 0.6


def test_a_short_sentence_that_opens_on_a_pronoun_is_a_candidate():
    # "It was dissolved in 1937." has two content words of its own; read after its title it says what was asked
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer, rank_sentences

    firm = Passage(chunk_id="firm#1", doc_id="firm", title="Lindmark & Hove", score=0.6,
                   text="After the death of the founder's son in 1931, the business declined. It was dissolved in 1937.")
    context = build_context([firm], 4000)
    assert "It was dissolved in 1937." in [c.text for c in rank_sentences("When was Lindmark & Hove dissolved?", context)]
    found = extractive_answer("When was Lindmark & Hove dissolved?", context, floor=0.0, answerability=0.6)
    assert "1937" in found.answer, found.shortfall


def test_a_lifespan_says_when_someone_was_born():
    born = asked("When was Bastian Korrel born?")
    opening = "Bastian Korrel (1861–1934) was a civil engineer known for his mountain roads."
    assert check(born, opening, title="Bastian Korrel").score >= 0.6
    assert check(asked("Where was Bastian Korrel born?"), opening, title="Bastian Korrel").score == 0
    assert check(born, "Bastian Korrel was a civil engineer known for his mountain roads.",
                 title="Bastian Korrel").score == 0


def test_a_surgeon_or_a_matron_of_something_is_a_description():
    assert describes_entity("Where was the first surgeon of Carrowmere County Hospital born?")
    assert describes_entity("When did the last matron of the Fever House die?")
    assert not describes_entity("Where was Ambrose Kittredge born?")


def test_a_measure_of_something_is_a_number():
    # "What is the population of Velmarre?" is answered by a count, never by a sentence about the villagers
    population = asked("What is the population of Velmarre?")
    assert population.kind == "number"
    assert check(population, "Velmarre had 340 inhabitants in 2011.", title="Velmarre").score >= 0.6
    assert check(population, "For generations the villagers lived from dairy farming.", title="Velmarre").score == 0
    assert check(asked("What is the annual budget of the garden?"),
                 "The garden has an annual budget of 1.2 million crowns.").score >= 0.6


def test_the_questions_own_numbers_and_dates_are_no_measure():
    mass = asked("What is the mass of the asteroid 4127 Velmarre?")
    assert check(mass, "4127 Velmarre is a main-belt asteroid discovered on 3 September 1987.").score == 0
    assert check(mass, "4127 Velmarre has a mass of about 3 billion tonnes.").has_type


def test_once_is_formerly_unless_times_are_asked():
    ships = asked("How many ships were inspected at the Gannet Island Quarantine Station in total?")
    assert not check(ships, "Ships entering the port were once inspected at the quarantine station on Gannet "
                            "Island.", title="Gannet Island Quarantine Station").has_type
    assert check(asked("How many times did the club win the cup?"), "The club won the cup once, in 1987.").score >= 0.6


def test_another_year_is_no_contradiction_where_the_passage_dates_the_claim_too():
    # "the fund turned to buying equipment after 1952" is another occasion: the passage says what it bought in 1913
    fund = passage("fund", "The Quayside Aid Fund is a charity of the port. The fund paid for the hospital's first "
                           "X-ray apparatus, installed in 1913. After the hospital passed to the health board in 1952, "
                           "the fund turned to buying equipment for the wards.", "Quayside Aid Fund")
    assert find_contradiction("Quayside Aid Fund buy for the hospital in 1913", [fund], 0.6) is None
    later = passage("fund", "The Quayside Aid Fund is a charity of the port. After the hospital passed to the health "
                            "board in 1952, the fund turned to buying equipment for the hospital.", "Quayside Aid Fund")
    found = find_contradiction("Quayside Aid Fund buy for the hospital in 1913", [later], 0.6)
    assert found is not None and found.kind == "year"




def test_a_numbered_name_is_no_denial():
    # "locomotive *No.* 1 Ilse" numbers the engine; the passage's "rather than being scrapped" is the denial
    assert not features("locomotive No. 1 Ilse scrapped in 1958").negated
    assert features("No ship was scrapped in 1958").negated
    ilse = passage("ilse", "Ilse was withdrawn in 1958, but rather than being scrapped it was placed on a plinth "
                           "outside the station.", "Locomotive No. 1 Ilse")
    found = find_contradiction("locomotive No. 1 Ilse scrapped in 1958", [ilse], 0.6)
    assert found is not None and found.kind == "negation"




@pytest.mark.parametrize("title, text, question, entity", [
    # "Tolland *Slipways*" is the shipyard of "the shipyard that built …", not the director named beside it
    ("RV Corvina Grey", "She was ordered in 1960 under director Osric Tavener, built by Tolland Slipways at Harwick and "
     "launched in 1962.", "Who founded the shipyard that built the RV Corvina Grey?", "Tolland Slipways"),
    ("Skellan Island", "The island was owned by the Vennick family until 1952, when it was bought by the Hollins "
     "Maritime Trust.", "In what year was the charity that owns Skellan Island founded?", "Hollins Maritime Trust"),
    # "hauled by *locomotive* No. 5 Brisk": the name right after the noun the question describes is that thing
    ("Tollin Bend accident", "The Tollin Bend accident was a derailment on the Harwick Railway on 2 May 1931. The evening "
     "train, hauled by locomotive No. 5 Brisk, left the rails on Tollin Bend near Harwick station.",
     "When was the locomotive that derailed at Tollin Bend in 1931 built?", "Brisk"),
    # "the *manager*, Tobias Crane": the described noun in apposition
    ("Great Ashgate Strike", "The strike was a stoppage by weavers at Ashgate Mill. It began when the manager, Tobias "
     "Crane, announced a wage cut.", "At which mill did the manager who announced a wage cut begin his working life?",
     "Tobias Crane"),
    # "the Copper Lantern *inn*": the name right before the described thing's own noun, however short the noun
    ("Ida Tavenor", "Ida Tavenor was an astronomer. She was born in Velmoor, where her parents kept the Copper Lantern "
     "inn.", "In what year did the current owners buy the inn where Ida Tavenor grew up?", "Copper Lantern"),
    # "Matron Winifred Clay" is Winifred Clay: the second hop must find her under the name her own page uses
    ("Saltings Fever House", "The Saltings Fever House was an isolation hospital on the marsh. Matron Winifred Clay "
     "moved fever patients there in April 1891.",
     "In which town did the matron who moved patients to the Saltings Fever House die?", "Winifred Clay"),
    # "a 1997 play *by* Tobias Fenwright" names the author of the play; the board that commissioned it is no author
    ("Winter at Greyhollow", "Commissioned by the director Ruan Hethercott, Winter at Greyhollow is a 1997 play by "
     "Tobias Fenwright.", "What job did the author of Winter at Greyhollow do before writing plays?",
     "Tobias Fenwright"),
    ("Vesper at First Light", "Bought by the collector Anton Mayr, the oil painting Vesper at First Light was painted "
     "in 1934 by Ottilie Sarn.", "When did the painter of Vesper at First Light die?", "Ottilie Sarn"),
])
def test_the_bridge_is_the_name_the_description_calls_for(title: str, text: str, question: str, entity: str):
    assert bridged(question, passage("first-hop", text, title)) == entity


def test_a_noun_after_a_name_is_no_bridge_unless_it_is_the_described_things_own():
    # "the Kestrelhorn *fire*" is not the director who led its evacuation
    fire = passage("fire", "The Kestrelhorn fire broke out on 12 January 1962 in the residence wing. Director Margit "
                           "Dallow led the twelve people on the summit to safety.", "Kestrelhorn fire of 1962")
    assert bridged("What is the title of the memoir written by the director who led the evacuation during the 1962 "
                   "fire?", fire) not in (None, "Kestrelhorn")


def test_a_negated_why_question_presupposes_no_event_with_its_negation_cut_off():
    # "Why couldn't the firefighters get to the summit?" is answered by "could not reach the summit", which must not
    # read as denying "the firefighters to the summit"
    claims = [p.claim for p in heuristic_presuppositions("Why couldn't the Velmoor firefighters get to the summit "
                                                         "during the 1962 fire?")]
    assert claims == ["Velmoor"]
    assert heuristic_presuppositions("Why did the Velmoor firefighters reach the summit during the 1962 fire?")[0].kind \
        == "event"


def test_the_particle_of_a_phrasal_verb_need_not_be_said():
    # "When did the paper close *down*?" is answered by "The paper closed on 30 June 1961."
    closed = asked("When did the Carrow Courier close down?")
    assert check(closed, "The paper closed on 30 June 1961.", title="Carrow Courier").score >= 0.6


def test_a_role_at_the_time_of_an_event_is_a_description():
    assert describes_entity("Whom did the proprietor at the time of the 1912 compositors' strike marry?")
    assert describes_entity("Where was the manager during the 1987 cup run born?")


@pytest.mark.parametrize("question, answer", [
    ("What price did Josiah Penrose pay for the Ashby estate?", "In 1819 he bought the Ashby estate for £3,400."),
    ("When did Ashby Mill shut down?", "Ashby Mill closed on April 30, 1971, after 150 years of production."),
    ("Lady Hester power rating?", "Rated at 120 indicated horsepower, Lady Hester drove the weaving shed."),
    ("who sued the Sentinel for libel in 1926", "Marchbank v Sentinel Newspaper Company was a libel action heard at "
                                                 "the Westmarch Assizes in February 1926."),
    ("Which barrister defended the Sentinel against Marchbank?", "Against Marchbank the Sentinel was represented by the "
                                                                 "barrister Gideon Ferrars."),
    ("What type of camera did Josiah Penrose mostly use?", "He used a Halvard quarter-plate camera for most of his "
                                                           "career."),  # "used" is "use"; "mostly" frames the slot
    ("Colour photos first appeared in the Sentinel in which year?", "The press allowed the Sentinel to print "
                                                                    "photographs in colour for the first time in 1974."),
])
def test_a_price_a_closure_and_a_power_said_in_other_words(question: str, answer: str):
    assert check(asked(question), answer, title="Josiah Penrose").score >= 0.6


def test_the_kind_asked_for_is_no_presupposition():
    # "What *kind of organisation* owns the Sentinel today?" takes only the Sentinel for granted
    assert [p.claim for p in heuristic_presuppositions("What kind of organisation owns the Sentinel today?")] == [
        "Sentinel"]


def test_a_year_asked_at_the_end_is_a_date_question():
    assert asked("Colour photos first appeared in the Sentinel in which year?").kind == "date"


def test_a_question_answered_in_two_hops_presupposes_its_names():
    # "the body *that* bought the Sentinel" is named on one page and chaired on another: no one passage carries it
    claims = heuristic_presuppositions("Who chaired, from its foundation, the body that bought the Sentinel from "
                                       "Harcastle for £1?")
    assert {p.claim for p in claims} >= {"Sentinel", "Harcastle"} and all(p.kind == "existence" for p in claims)
    # a participle is no relative clause: SQuAD's "the classes *defined by* …" keeps its asked relation
    claims = heuristic_presuppositions("What does not induce a proper hierarchy on the classes defined by "
                                       "constraining the respective resources?")
    assert [p.role for p in claims] == ["asked"]
    # so is a role described by what it is of ("the chief arbiter *of* the Tarrow Open"): one page names him, another
    # says what he wrote
    claims = heuristic_presuppositions("What rule change did the chief arbiter of the Tarrow Open author?")
    assert {p.claim for p in claims} == {"Tarrow Open"} and all(p.kind == "existence" for p in claims)


@pytest.mark.parametrize("question, refused, answered", [
    # "How long is the *road* …?" is not answered by the length of an asteroid's orbit from another passage
    ("How long is the road from Velmarre up to the observatory?",
     ("4127 Velmarre", "It orbits the Sun once every 4.3 years at an average distance of about 2.6 astronomical units."),
     ("Orsevin Summit Road", "The Orsevin Summit Road is a mountain road running 17.2 kilometres from Velmarre to the "
                             "observatory.")),
    # "What *started* the fire?" asks for a cause: when and where it broke out is no answer
    ("What started the 1962 fire at Kestrelhorn?",
     ("Kestrelhorn fire of 1962", "The Kestrelhorn fire broke out in the early hours of 12 January 1962."),
     ("Kestrelhorn fire of 1962", "It was caused by an overheated stove in the kitchen, and winds spread the flames.")),
    # what a thing weighs is a weight
    ("How much did the Brennick rotary press weigh?",
     ("Brennick rotary press", "The Brennick rotary press printed 900 sheets an hour."),
     ("Brennick rotary press", "The Brennick rotary press had a mass of 14 tonnes.")),
])
def test_what_is_asked_decides_which_sentence_answers(question: str, refused: tuple[str, str],
                                                      answered: tuple[str, str]):
    what = asked(question)
    assert check(what, refused[1], title=refused[0]).score == 0
    assert check(what, answered[1], title=answered[0]).score >= 0.6


def test_the_measured_thing_and_the_asked_cause():
    assert asked("How long is the road from Velmarre up to the observatory?").measured == stem("road")
    assert asked("How deep is the lake shown in Ottilie Sarn's best-known painting?").measured == ""  # a hop away
    assert asked("What started the 1962 fire at Kestrelhorn?").event == stem("cause")


def test_an_opposite_act_denies_a_claim_only_about_one_occasion():
    # "it closed to traffic in 1967" does not deny that the canal opened: both happened, at different times
    canal = passage("canal", "The Vessary Trust restores the eastern part of the Vessary Canal, which had closed to "
                             "commercial traffic in 1967.", "Vessary Canal Trust")
    assert find_contradiction("the Vessary Canal open throughout", [canal], 0.6) is None
    # an occasion both speak of ("2.0") makes the opposite act a denial; a closed set needs no occasion
    release = passage("r2", "Quorvane 2.0 removed the Redis dependency.", "Quorvane 2.0")
    found = find_contradiction("Quorvane 2.0 add Redis", [release], 0.6)
    assert found is not None and found.kind == "antonym"
    third = passage("law", "Newton's Third Law is a result of applying symmetry.", "Newton's laws")
    assert find_contradiction("Newton's Fifth Law", [third], 0.6) is not None


@pytest.mark.parametrize("question, answer, title", [
    ("When did the Great Breach occur?", "The Great Breach of 1867 was the collapse of an embankment on the night of "
                                         "11–12 March 1867.", "Great Breach of 1867"),
    ("What was Tobias Wrenn's hometown?", "Born in Sallowfen, he joined the survey team in 1826.", "Tobias Wrenn"),
    ("Birthplace of Edda Marrowby?", "Born in the village of Fenlow Cross, she trained at the Calder School of "
                                     "Speech.", "Edda Marrowby"),
    ("Which organisation hands out the Cressing Awards?", "The Cressing Awards are annual prizes for theatre, presented "
                                                          "by the Cressing Trust.", "Cressing Awards"),
    ("how much did rebuilding the lantern playhouse after the fire cost", "Restoration, supervised by Hilda Grose, "
                                                                          "cost 186,000 crowns.", "Lantern Playhouse"),
    # from the ski resort's first look
    ("When did the Grosse Hornveltbahn start operating?", "Designed by the engineer Bertil Ahlgren, it opened on 20 "
                                                          "December 1936.", "Grosse Hornveltbahn"),
    ("how tall is the hornvelt", "It rises to 2,948 m and is joined to the Kesselgrat ridge.", "Hornvelt"),
    ("Who is the CEO of Hornvelt-Bahnen?", "Doris Ammeter has been chief executive since 2016.", "Hornvelt-Bahnen"),
    ("Which hotel group purchased the Grand Hotel Marwede in 1981?", "The foundation sold it to the hotel group "
                                                                     "Alpenrose Hotels in 1981.", "Grand Hotel Marwede"),
    ("What's the steepest incline on the Schwarze Wand?", "Its steepest section reaches a maximum gradient of 71 per "
                                                          "cent.", "Schwarze Wand"),
    ("Who was the first director of the Altbrenna Snow Station?", "Its first head was the geologist Marta Inabnit.",
     "Altbrenna Snow Station"),
    ("At what altitude does the Berghaus Kesselgrat stand?", "The Berghaus Kesselgrat is a mountain hotel at an "
                                                             "altitude of 2,640 m.", "Berghaus Kesselgrat"),
    ("what ended lenka brodbeck's racing career", "A knee injury forced her to retire in 1984.", "Lenka Brodbeck"),
    # everyday words for formal ones (session 18; sentences written for the test)
    ("Ada Brill date of birth?", "Ada Brill (born 3 May 1958) is a harbour pilot.", "Ada Brill"),
    ("Who took over from Ivo Dane as harbour master?", "Dane retired in 1931 and was succeeded as harbour master by "
                                                      "his deputy, Tom Ash.", "Port Lew"),
    ("What was the death toll in Brenn from the 1910 storm?", "Nine people drowned in Brenn during the storm.",
     "1910 storm"),
    ("Who stole the Brenn Chalice?", "The thief, a sailor named Olaf Reen, took the Brenn Chalice from the vestry.",
     "Brenn Chalice"),
    ("Where were Ada Brill's harbour pictures put on show?", "Her photographs of the harbour were exhibited in Lewmouth "
                                                             "in 1988.", "Ada Brill"),
    ("Why did Ivo Dane quit as harbour master?", "Dane resigned as harbour master in 1931 because of ill health.",
     "Ivo Dane"),
    ("Books lost in the 1899 fire?", "Some 2,000 books were destroyed in the 1899 fire.", "Brenn library"),
    ("Who donated the chalice to the church?", "The chalice came to the church in 1702 as a gift from the merchant "
                                               "Olaf Reen.", "Brenn Chalice"),
    ("What kind of wood does the Brenn boatyard prefer?", "The boatyard favours larch wood from the Lew valley.",
     "Brenn boatyard"),
    ("Which school did Ada Brill attend?", "She studied at the Lewmouth School of Navigation.", "Ada Brill"),
    ("How many folios does the Brenn Gospels have?", "The Brenn Gospels has 212 vellum leaves.", "Brenn Gospels"),
    ("When was the Lew Point light taken out of service?", "The light was discontinued on 30 April 1977.",
     "Lew Point light"),
    ("When is the warden of the Brenn guild chosen?", "Its warden is elected annually in March.", "Brenn guild"),
    ("What type of market was the Brenn Fair originally?", "It began as a horse market in 1412.", "Brenn Fair"),
    ("What is thought to have started the Brenn mill fire?", "It began in the drying loft, probably from an "
                                                            "overheated stove.", "Brenn mill fire"),
    ("How long did the 1912 dockers' walkout at Brenn go on?", "The Brenn dock strike of 1912 lasted eleven weeks.",
     "Brenn dock strike"),
    ("how strong is brenn porter", "The porter is 5.2% ABV.", "Brenn porter"),
    ("How big was the standard Brenn cask?", "The guild fixed the standard Brenn cask at 34 gallons.", "Brenn cask"),
    ("Brenn Sound narrowest width?", "The Sound narrows to 900 metres at Lew Point.", "Brenn Sound"),
    ("What kind of ship was the Lark?", "The Lark was a three-masted barque lost off Lew Point in 1866.", "Lark"),
    ("Lew Hut bed count?", "Today the hut has 48 beds.", "Lew Hut"),
    ("What breed of dog was Brin?", "Brin (1950–1962) was a German Shepherd avalanche dog.", "Brin"),
    ("How tall is the Palm House at its highest point?", "The structure is 96 metres long and rises to 21 metres at "
                                                         "the central dome.", "Palm House"),
    ("Who was the architect of the Palm House?", "It was designed by the engineer Ada Brill in 1886.", "Palm House"),
    ("What is the title of Ivo Dane's autobiography?", "Dane later wrote a memoir, Under the Rotor, in 2001.",
     "Ivo Dane"),
    ("What was the name of the steamer the Brenn Expedition sailed on?", "The party left Lewmouth in 1897 aboard the "
                                                                         "steamer Tern.", "Brenn Expedition"),
    ("Which company helped pay for the Brenn Expedition?", "It was funded jointly by the garden and the seed "
                                                           "merchants Harrold & Vane.", "Brenn Expedition"),
    ("what colour are the blooms of the lew lily", "The lew lily bears hanging orange flowers.", "Lew lily"),
    ("Peak wind speed during the Brenn Gale?", "Gusts of up to 148 km/h were recorded during the gale.", "Brenn Gale"),
    ("How often is the Brenn Review published nowadays?", "Since 1968 the Brenn Review has been issued twice a year.",
     "Brenn Review"),
    ("What is the motto of the Brenn lifeboat crew?", 'Its motto is "Nobody stays on the rocks".', "Brenn lifeboat"),
    # session 19 (sentences written for the test): trade words, idioms, irregular pasts, numbered phases, "sort"
    ("Which guild admitted Ada Brill as its first female member?", "In 1902 she became the first woman admitted to "
                                                                   "the Lewmouth Pilots' Guild.", "Ada Brill"),
    ("Since when has entry to the Brenn museum been free of charge?", "Admission has been free since 1998.",
     "Brenn museum"),
    ("Brenn Mills turnover in 1990?", "Revenue was 40 million crowns in 1990.", "Brenn Mills"),
    ("What stake did the Reen family end up with?", "The Reen family received 35 percent of the new company.",
     "Brenn Mills"),
    ("How many pills does the Brenn factory make annually?", "The plant makes about 90 million tablets a year.",
     "Brenn factory"),
    ("How often is Lewtrine given?", "Lewtrine is given as an injection at an interval of two weeks.", "Lewtrine"),
    ("How many vehicles can the Tern carry?", "The ferry can carry 40 cars.", "Tern"),
    ("Why was the Lewtrine phase 3 trial halted?", "The Phase III trial was stopped in 2006 because the drug worked no "
                                                   "better than a placebo.", "Lewtrine"),
    ("What sort of vessel was the Lark?", "The last hull built at Brenn was the dredger Lark.", "Brenn boatyard"),
    ("Where did Ivo Dane sit as a magistrate?", "Dane sat as a magistrate in Lewmouth from 1920.", "Ivo Dane"),
    ("Why did the Lewmouth Courier create the Brenn Rally?", "In 1920 the Courier launched the Brenn Rally to sell "
                                                            "more papers in summer.", "Lewmouth Courier"),
    ("Where does Brenn Events have its head office?", "It is headquartered on Quay Street in Lewmouth.",
     "Brenn Events"),
    ("What nickname do locals give the Lew Steps?", 'Locals call them "the Ladder".', "Lew Steps"),
    ("When was the Lewmouth velodrome inaugurated?", "The Lewmouth velodrome was opened on 2 June 1911.",
     "Lewmouth velodrome"),
    ("How high is the Brenn Pass?", "The road is 14 km long and tops out at 1,870 m above sea level.", "Brenn Pass"),
])
def test_a_look_up_said_in_everyday_words(question: str, answer: str, title: str):
    assert check(asked(question), answer, title=title).score >= 0.6


def test_idioms_are_read_in_the_words_passages_use_and_speed_keeps_its_stem():
    assert plain_words("Why was Lewtrine taken off the market?") == "Why was Lewtrine withdrawn?"
    assert plain_words("When did the board give Lewtrine the green light?") == "When did the board approved Lewtrine?"
    # "speed" is no past tense of "spe"; "agreed" is "agree" + "d"
    assert stem("speed") == stem("speeds") == "speed" and stem("agreed") == stem("agree")
    assert "3" in features("The Phase III trial").numbers and not features("I was there").numbers


def test_a_hometown_is_a_place_of_the_name_itself_and_a_terse_look_up_opens_on_its_noun():
    assert asked("What was Tobias Wrenn's hometown?").kind == "place"
    assert not find_bridges("What was Tobias Wrenn's hometown?", [passage(
        "w", "In old age he retired to Tarnwick, where he died.", "Tobias Wrenn")])
    birthplace = asked("Birthplace of Edda Marrowby?")
    assert birthplace.kind == "place" and {"edda", stem("marrowby")} <= set(birthplace.names)
    assert check(birthplace, "Edda Marrowby (3 May 1898 – 17 January 1971) was an actress-manager.",
                 title="Edda Marrowby").score == 0  # a lifespan says when, never where


def test_a_lifespan_with_days_and_months_says_when_someone_was_born_and_died():
    opening = "Ottilie Sarn (2 March 1902 - 17 October 1979) was a landscape painter of the valley."
    assert check(asked("When did Ottilie Sarn die?"), opening, title="Ottilie Sarn").score >= 0.6
    assert check(asked("When was Ottilie Sarn born?"), opening, title="Ottilie Sarn").score >= 0.6


def test_the_second_hop_asks_what_the_naming_sentence_does_not_say():
    # the main clause names only the slot: the relative clause's words describe the bridge, the first hop found them
    works = passage("works", "The Corvenna Works is the locomotive workshop of the Selvatrin Mountain Railway, located "
                             "a few hundred metres east of the railway's station in Corvenna.", "Corvenna Works")
    found = find_bridges("How many inhabitants does the town where the railway's workshop is located have?", [works])
    assert "Corvenna inhabitants" in [b.query for b in found]
    # "the shipowner *behind* the founding of …" describes someone
    assert describes_entity("What instrument did the shipowner behind the founding of the Ostrevane Symphony "
                            "Orchestra play?")


def test_an_event_verb_is_light_only_where_its_time_or_place_is_asked():
    assert stem("occur") not in asked("When did the Great Breach occur?").attribute
    assert stem("occur") in asked("What occurs when all components of the immune system are active?").attribute


def test_a_measure_of_a_name_is_answered_about_that_name_not_a_place_it_is_near():
    population = asked("What is the population of Tarnwick?")
    calverholt = "Calverholt is a village on the Vessary Canal, 52 km east of Tarnwick."
    assert check(population, "The village has a population of about 2,400.", title="Calverholt",
                 about=calverholt).score == 0
    assert check(population, "The town has a population of about 12,400.", title="Tarnwick",
                 about="Tarnwick is a river port at the western end of the canal.").score >= 0.6


def test_a_compound_length_is_no_width():
    tunnel = "The Thornhaw Tunnel is a 2,240-metre tunnel on the summit level of the Vessary Canal."
    assert check(asked("How wide is the Thornhaw Tunnel?"), tunnel, title="Thornhaw Tunnel").score == 0
    assert check(asked("How long is the Thornhaw Tunnel?"), tunnel, title="Thornhaw Tunnel").score >= 0.6
    assert check(asked("How wide is the Thornhaw Tunnel?"), "The Thornhaw Tunnel is a 9-metre-wide bore.",
                 title="Thornhaw Tunnel").score >= 0.6  # a compound that names its own dimension
    assert check(asked("How wide is the river at Harwick?"), "At Harwick the river is 40 metres deep.",
                 title="River Oskeld").score == 0  # "wide" is looked up by its stem


def test_a_role_of_a_described_owner_may_be_picked_by_an_adjective():
    assert describes_entity("Where did the Quillmere company's current artistic director work before coming to "
                            "Brasswick?")
    assert describes_entity("Who was the orchestra's principal conductor in 1950?")


def test_who_holds_a_role_of_a_named_thing_is_asked_of_it_and_the_role_must_be_said():
    leader = "Who was the leader of the 1912 boatmen's strike on the Vessary Canal?"
    assert not find_bridges(leader, [passage("strike", "The boatmen's strike of 1912 began at Sallowfen on 3 June 1912.",
                                             "Boatmen's strike of 1912")])
    what = asked(leader)
    assert check(what, "The boatmen's strike of 1912 was a stoppage on the Vessary Canal that began at Sallowfen.",
                 title="Boatmen's strike of 1912").score == 0
    assert check(what, "The strike was led by Walter Henchard, a keel captain from Calverholt.",
                 title="Boatmen's strike of 1912").score >= 0.6
    # a clause inside the description is another hop: the founder of the club *that won* the cup is bridged
    assert find_bridges("Who was the founder of the club that won the 1987 cup?", [passage(
        "cup", "The 1987 cup was won by Marrowby Athletic.", "1987 cup")])


def test_a_count_of_deaths_is_denied_in_other_words():
    claims = heuristic_presuppositions("How many workers died in the Great Fire of 1911?")
    assert (claims[0].claim, claims[0].role) == ("workers died in the Great Fire of 1911", "counted")
    fire = passage("fire", "The Great Fire of 1911 destroyed the furnace hall. No one was killed in the fire, although "
                           "fourteen workers were treated for burns and smoke.", "Great Fire of 1911")
    found = find_contradiction(claims[0].claim, [fire], 0.6, frozenset({"negation"}))
    assert found is not None and "No one was killed" in found.sentence
    # a death is still the opposite of surviving
    wreck = passage("wreck", "Her captain, Jonas Pell, died in the wreck of the Meriden in 1935.", "Meriden")
    assert find_contradiction("Jonas Pell survive the wreck of the Meriden", [wreck], 0.6) is not None


def test_the_other_side_of_an_exchange_denies_only_a_claim_that_names_who_did_it():
    sale = passage("works", "The Orlanc family ran the works until 1988, when it was sold to Brannock Holdings.",
                   "Orlanc Glassworks")
    assert find_contradiction("acquired the Orlanc Glassworks from the family in 1988", [sale], 0.6) is None
    engine = passage("engine", "In 2015 Quorvane sold the Lodestack engine to Brannock Holdings.", "Quorvane")
    found = find_contradiction("Quorvane buy the Lodestack engine in 2015", [engine], 0.6)
    assert found is not None and found.kind == "antonym"


def test_who_did_one_side_of_an_exchange_is_answered_by_the_other_side():
    what = asked("Who acquired the Orlanc Glassworks from the family in 1988?")
    assert check(what, "The Orlanc family ran the works until 1988, when it was sold to Brannock Holdings.",
                 title="Orlanc Glassworks").score >= 0.6


def test_a_bridge_named_with_a_plural_possessive_and_its_own_year():
    # "the Kelbrunn Glassworkers' Union" is one name, and the union's founding year is no swap of the strike's 1934
    strike = passage("strike", "The Blowers' Strike of 1934 was a stoppage at the glassworks. It was called by the "
                               "Kelbrunn Glassworkers' Union after the management announced a cut in piece rates.",
                     "Blowers' Strike of 1934")
    question = "Who founded the union that called the 1934 strike at the glassworks?"
    assert bridged(question, strike) == "Kelbrunn Glassworkers' Union"
    what = asked(question)
    assert check(what, "It was founded in 1897 by Ferdl Nossek, a gatherer.", title="Kelbrunn Glassworkers' Union",
                 about="The Kelbrunn Glassworkers' Union was a trade union at the glassworks.",
                 lead="Blowers' Strike of 1934. It was called by the Kelbrunn Glassworkers' Union.").score >= 0.6
    # without the lead that says 1934, another year is a swap
    assert check(what, "It was founded in 1897 by Ferdl Nossek, a gatherer.",
                 title="Kelbrunn Glassworkers' Union").score == 0
    assert check(asked("Who trained Jarek Vondel?"), "He was apprenticed to the foreman Anselm Greiff.",
                 title="Jarek Vondel").score >= 0.6


def test_the_role_asked_for_said_in_the_answer_mentions_what_was_asked():
    # "library" is not repeated by the sentence that names the branch's architect
    what = asked("who was the architect of Stelling Hill library")
    # read, as the program reads it, after its title and the sentence before
    assert check(what, "It opened in 1974 in a hexagonal timber building designed by the architect Fenna Roost.",
                 title="Stelling Hill Branch. Stelling Hill is the newest of the three branch libraries.").score >= 0.6




def test_what_did_a_named_doer_buy_names_the_doer():
    assert asks_doer("Which hotel group purchased the Grand Hotel Marwede in 1981?")
    assert not asks_doer("What did Quorvane buy in 2015?") and not asks_doer("Quorvane buy the engine")




def test_a_diameter_or_a_distance_is_no_height():
    tall = asked("How tall is the dome of the Corn Exchange?")
    assert "the sentence measures how wide" in check(
        tall, "The hall is 31 metres in diameter beneath a glass dome.", title="Corn Exchange").missing
    assert "the sentence measures how far" in check(
        tall, "The dome stands about 120 metres from the river.", title="Corn Exchange").missing
    assert check(tall, "The dome is 42 metres tall.", title="Corn Exchange").has_type
    # a distance between two places is a length
    assert check(asked("How long is the road from Brenn to the pass?"),
                 "The road runs 17 kilometres from Brenn to the pass.", title="Pass road").has_type


def test_who_holds_a_post_today_is_not_answered_by_a_former_holder():
    today = asked("Who is the harbour master of Port Lew today?")
    assert not check(today, "Ana Brill (born 1950) was the harbour master of Port Lew from 1996 to 2013.").has_type
    assert not check(today, "The harbour master of Port Lew was Tom Ash (1901–1977).").has_type
    assert check(today, "Since 2014 the harbour master of Port Lew has been Ivo Dane.").has_type
    # a past question is answered by a past holder
    assert check(asked("Who was the harbour master of Port Lew in the 1990s?"),
                 "Ana Brill was the harbour master of Port Lew from 1996 to 2013.").has_type


def test_a_dimension_named_before_its_value_is_that_dimension():
    long = asked("How long is the East Pier at Brenn harbour?")
    assert "the sentence measures how deep" in check(
        long, "Between the piers the harbour has a depth of 7.5 metres at low water.", title="Brenn harbour").missing
    assert "the sentence measures how high" in check(
        long, "Its lamp stands at an altitude of 21 metres above the East Pier.", title="Brenn harbour").missing
    assert check(long, "The East Pier has a length of 410 metres.", title="Brenn harbour").has_type
    assert check(asked("How high is the top station?"), "The top station stands at an altitude of 2,163 metres.",
                 title="Top station").has_type


def test_a_sentence_naming_the_asked_name_beside_a_namesake_swaps_nothing():
    both = "The North Pier, 640 metres long, was built in 1846; the shorter South Pier, 410 metres, followed in 1902."
    assert check(asked("How long is the North Pier at Brenn harbour?"), both, title="Brenn Harbour").has_type
    assert not check(asked("How long is the North Pier at Brenn?"), "The South Pier is 410 metres long.",
                     title="Brenn harbour").has_type




def test_a_relative_the_question_asks_about_is_required():
    son = asked("In what year did Ada Brill's son take over her share of the yard?")
    assert not check(son, "Ada Brill (1779–1854) became co-owner of the Brenn yard in 1816.", title="Ada Brill").has_type
    assert check(son, "Her son Tom took over her share of the yard in 1841.", title="Ada Brill").has_type
    # a sentence about the relative herself need not say how she is related
    niece = asked("Which paper does Ivo Dane's niece write for?")
    assert check(niece, "Lena Dane (born 1970) has been chief writer of the Brenn Courier since 1998.",
                 title="Lena Dane").has_type


def test_a_who_question_answered_by_her_own_page_names_her():
    from groundqa.programs.context import build_context
    from groundqa.programs.extractive import extractive_answer

    page = Passage(chunk_id="lind#1", doc_id="lind", title="Marta Lind", score=0.7,
                   text="Marta Lind is a marine pilot from Inchbrae. Since 2020 she has chaired the trustees of the "
                        "Brenn Lantern Museum.")
    question = "Who has chaired the trustees, since 2020, of the museum that holds the Lark's bell?"
    found = extractive_answer(question, build_context([page], 4000), floor=0.0, answerability=0.6)
    assert found.answer.startswith("Marta Lind: Since 2020 she has chaired"), found.answer
    # a sentence that names the person itself is quoted as written
    named = Passage(**{**page.model_dump(), "text": "Since 2020 Marta Lind has chaired the trustees of the Brenn "
                                                    "Lantern Museum."})
    found = extractive_answer(question, build_context([named], 4000), floor=0.0, answerability=0.6)
    assert found.answer.startswith("Since 2020 Marta Lind"), found.answer


@pytest.mark.parametrize("question, sentence, title, typed", [
    # a price or payment is an amount of money, which a length or a year is not
    ("How much was the engineer paid for designing the pier?",
     "Designed by the engineer and completed in 1874, the pier is 310 metres long.", "Orme Pier", False),
    ("How much was the engineer paid for designing the pier?",
     "The engineer was paid 1,200 crowns for designing the pier.", "Orme Pier", True),
    ("How much was the engineer paid for designing the pier?",
     "For designing the pier the engineer was paid £400.", "Orme Pier", True),
    ("How much does a ticket for the museum cost?", "A ticket for the museum costs forty francs.", "", True),
    ("How much does a ticket for the museum cost?", "A ticket for the museum costs nothing: entry is free.", "", True),
    ("How much salt does the cooperative mine each year?",  # an amount that is not money stays a number
     "The cooperative mines 4,000 tonnes of salt each year.", "", True),
    ("How much money was raised for the Brenn lifeboat?", "The appeal raised £4,000 for the Brenn lifeboat.", "", True),
    ("How much money was raised for the Brenn lifeboat?",
     "The appeal for the Brenn lifeboat was launched in 1904.", "", False),
    ("By how much was the Brenn breakwater raised after the 1887 gale?",  # raising by a height is no money
     "After the gale of 1887 the Brenn breakwater was raised by 2.5 metres.", "", True),
    ("What was the Brenn Brewing Company's turnover in 2019?",  # a turnover is money, a head count none
     "The company employed about 410 people in 2019.", "Brenn Brewing Company", False),
    ("What was the Brenn Brewing Company's turnover in 2019?",
     "In 2019 the company had a turnover of £38 million.", "Brenn Brewing Company", True),
    # a sum of money is no count
    ("How many boats were in Ivo Dane's fleet?", "Ivo Dane ran a fleet of boats, which his widow sold for £2,400.",
     "Ivo Dane", False),
    ("How many boats were in Ivo Dane's fleet?", "Ivo Dane's fleet numbered 14 boats.", "Ivo Dane", True),
    # a span of time is no count unless the question asks for its unit
    ("What is the population of Brenn?", "For six centuries the people of Brenn lived from fishing.", "Brenn", False),
    ("What is the population of Brenn?", "Brenn has a population of 1,240.", "Brenn", True),
    ("How many seasons did Ada Vell coach the club?", "Ada Vell coached the club for seven seasons.", "", True),
    ("How long did the strike last?", "The strike lasted eleven weeks.", "", True),
    # a year is no length
    ("How long was the pilot boat Tern?", "The pilot boat Tern was withdrawn from service in 1986.", "Tern", False),
    ("How long was the pilot boat Tern?", "The pilot boat Tern was 14 metres long.", "Tern", True),
    # "one of" counts nothing
    ("How many people came to the first Tarrow Fair in 1702?", "First held in 1702, it is one of the oldest fairs in "
                                                             "the county.", "Tarrow Fair", False),
    ("How many people came to the first Tarrow Fair in 1702?", "Some 900 people came to the first fair in 1702.",
     "Tarrow Fair", True),
])
def test_a_value_must_be_of_the_asked_kind(question: str, sentence: str, title: str, typed: bool):
    assert check(asked(question), sentence, title=title).has_type is typed


def test_bridge_candidates_named_after_their_noun_by_a_firm_or_in_a_succession():
    """Session 22: three ways a sentence says which of its names the description is."""
    # "the engine known as Old Maud": the described noun, then the name it is known by
    mill = passage("mill", "Tomas Brecken ran Fellgate Mill until 1901. Under him the mill bought the steam engine "
                           "known as Old Maud.", "Tomas Brecken")
    engine = find_bridges("Which firm built the steam engine that Tomas Brecken bought for the mill?", [mill])
    assert engine[0].entity == "Old Maud"
    # a name ending in -works is a firm: "the company whose gift ..." is Orrel Chainworks, not the club
    gift = passage("hut", "The Skarn Hut was built by the Skarn Climbing Club with a gift from Orrel Chainworks.",
                   "Skarn Hut")
    company = find_bridges("Who founded the company whose gift paid for the Skarn Hut?", [gift])
    assert company[0].entity == "Orrel Chainworks"
    # a firm, not the verb "work" that shares the stem of "works"
    assert stem("company") in _kinds({"chainwork"}, "Orrel Chainworks") and stem("work") not in _kinds(
        {"chainwork"}, "Orrel Chainworks")
    assert not _kinds({"work"}, "Works")  # one word "Works" is no compound name
    # "X's predecessor" is the name X succeeded; "X's successor" the name that followed X
    editor = passage("ashby", "Ansel Morrow edited the Dunley Post from 1880 to 1902. He succeeded Hugh Tamsin, under "
                              "whom he had served. He was followed in the editorship by Ira Kell.", "Ansel Morrow")
    before = find_bridges("Which paper did Ansel Morrow's predecessor as editor go on to edit?", [editor])
    after = find_bridges("Where was Ansel Morrow's successor as editor born?", [editor])
    assert before[0].entity == "Hugh Tamsin"
    assert after[0].entity == "Ira Kell"


def test_a_birth_date_is_no_date_of_another_event():
    retire = asked("In what year did the racer who holds the course record retire?")
    assert check(retire, "Ola Brenn (born 4 May 1980) is a retired downhill racer.").score == 0.0
    assert check(retire, "Ola Brenn retired in 2019 after a shoulder injury.").score > 0.0
    born = asked("In what year was the racer who holds the course record born?")
    assert check(born, "Ola Brenn (born 4 May 1980) is a retired downhill racer.").score > 0.0


def test_a_list_of_names_with_years_gives_the_name_of_the_asked_year():
    # "the 2016 winner" is the name the list gives 2016, not the first or the most frequent one
    regatta = passage("regatta", "The Strait Regatta is a dinghy race. Its winners: Piet Arvo won in 2012, Lena Quint "
                                 "in 2014, Piet Arvo again in 2015, Lena Quint again in 2016 and Tobin Maro in 2017.",
                      "Strait Regatta")
    winner = find_bridges("In what year did the grandfather of the 2016 Strait Regatta winner arrive on the island?",
                          [regatta])
    assert winner[0].entity == "Lena Quint"
    assert find_bridges("Where was the winner of the 2017 Strait Regatta born?", [regatta])[0].entity == "Tobin Maro"


def test_a_kin_relation_and_an_arrival_said_from_the_other_side():
    # "Lena Quint is the granddaughter of Amos Quint" says who her grandfather is; "came to" is "arrived"
    what = asked("In what year did the grandfather of Lena Quint arrive on Calder Island?")
    lead = "Lena Quint is the granddaughter of Amos Quint, the first resident doctor of Calder Island."
    arrival = "He came to Calder Island in 1958 as its first resident doctor."
    assert check(what, arrival, title="Amos Quint. ", lead=lead).missing == ()
    assert "grandfather" in check(what, arrival, title="Amos Quint. ",
                                  lead="Lena Quint is a neighbour of Amos Quint.").missing
    assert "arriv" in check(what, "He left Calder Island in 1958.", title="Amos Quint. ", lead=lead).missing


def test_the_first_one_to_do_something_is_a_description():
    # "the first woman to serve as Collector" describes someone another page names; a question about a name is none
    assert describes_entity("In what year was the first woman to serve as Collector of Customs at Varnholt born?")
    assert describes_entity("Where was the last keeper to live in the lighthouse born?")
    assert not describes_entity("In what year was Hanna Drevik born?")
    roll = passage("collectors", "Benedikt Sorrel held the office from 1889 to 1904. Hanna Drevik, the first woman to "
                                 "serve as Collector of Customs at Varnholt, was collector from 1904 to 1921.",
                   "Collectors of Customs at Varnholt")
    assert find_bridges("In what year was the first woman to serve as Collector of Customs at Varnholt born?",
                        [roll])[0].entity == "Hanna Drevik"


def test_a_thing_described_by_what_a_described_agent_did_spans_two_pages():
    # "the cutter commissioned by the collector known as 'the Iron Ledger'": one page gives the collector's
    # nickname, another the cutter he commissioned; only the names are checked, read without their quotes
    claims = [p.claim for p in heuristic_presuppositions(
        "Which boatbuilders built the cutter commissioned by the collector known as 'the Iron Ledger'?")]
    assert claims == ["Iron Ledger"]
    # a named agent can be checked on one page
    assert [p.claim for p in heuristic_presuppositions("Who owned the ship built by Brask Shipworks?")] == [
        "owned the ship built by Brask Shipworks"]
