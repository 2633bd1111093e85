"""Words that say what a question's word says, in the words passages use: one table for the answerability check
and the premise judge.

A question asks "Who *stole* the psalter?", "Why did she *quit*?", "When was the light *taken out of service*?";
the passage says "The *thief*, a bookseller …", "She *resigned* in 1958", "The light was *discontinued* in 1977".
:data:`SYNONYMS` maps a question's term (a stem, as :func:`~groundqa.judges.lexical.stem` makes it) to the stems
that say it otherwise. It reads one way, from the asked word to the passage's: a *paper* may be the *Courier*,
not every courier a paper. Idioms are read before this table (``plain_words`` in
:mod:`groundqa.programs.answerability`: "take over from" is "succeeded").
"""

from __future__ import annotations

from groundqa.judges.lexical import TextFeatures, stem


def stemmed_groups(groups: dict[str, str]) -> dict[str, frozenset[str]]:
    """``{"quit": "resign retire"}`` -> ``{stem("quit"): {stem("resign"), stem("retire")}}``: word tables keyed and
    filled by stems, as the answer check compares words. Two keys with one stem ("start" and "begin": ``stem`` reads
    "start" as "begin") are an error: the later would silently replace the earlier."""
    out: dict[str, frozenset[str]] = {}
    for key, words in groups.items():
        if stem(key) in out:
            raise ValueError(f"stemmed_groups: {key!r} has the stem {stem(key)!r} of an earlier key")
        out[stem(key)] = frozenset(stem(w) for w in words.split())
    return out


SYNONYMS: dict[str, frozenset[str]] = stemmed_groups({
    "belong": "member part",
    "store": "keep kept hold house",
    "teach": "lecture professor taught",
    "work": "employ job worked",
    "creator": "start started found founded create created author wrote",  # "*started by* Pell Amundsen-Roe"
    "design": "designer",
    # "his history of the library was *published* in 1930"; an opera is *composed*
    "write": "author wrote writer publish published compose composed composer",
    "author": "playwright writer wrote written novelist poet",
    "lead": "led leader head chair chaired chairman chairwoman direct directed director",
    "leader": "lead leads led head headed chair chaired",
    "director": "head headed chief leader",  # "the first *director*" / "its first *head* was"
    "incline": "gradient slope grade",
    "head": "rector director chair chairman chairwoman president leader lead led principal dean chief",
    "boat": "vessel ship",
    "ship": "vessel boat",
    "resumed": "return returned reopen reopened restart restarted resume again",
    "rejected": "reject voted against refuse refused decline declined",
    "premiere": "first performed premiered",
    "sponsor": "fund funded funding finance financed backing backed",
    "pay": "paid bought buy sold sell purchased cost",
    "buy": "bought sold sell purchased acquired",  # one exchange: "who *acquired* it" / "it was *sold to* X"
    "sell": "sold bought buy purchased transfer transferred",  # "*sold to* Dunhallow" / "a record *transfer* fee"
    "paper": "newspaper courier gazette herald times journal chronicle",  # "which *paper*" / "the *Courier*"
    "set": "found founded establish established start started create created form formed",  # "who *set up* the trust"
    "home": "born native birthplace live lived",  # "his *home* village" / "born in the village of"
    "hometown": "born native birthplace grew",
    "birthplace": "born native",
    "arrive": "came come arrival reached settled",  # "when did he *arrive* on the island" / "he *came* to the island"
    # a kin relation said from the other side: "Lena Quint is the *granddaughter* of Amos Quint" says who her
    # grandfather is
    "grandfather": "granddaughter grandson grandchild", "grandmother": "granddaughter grandson grandchild",
    "granddaughter": "grandfather grandmother grandparent", "grandson": "grandfather grandmother grandparent",
    "rebuild": "restoration restored rebuilt reconstruction repair repaired",
    "play": "player played",
    # a part in a film or a play: "Which actor *portrayed* Aldo Brenn?" / "Tomas Ekberg *was cast as* Aldo Brenn",
    # "… *reprised his role as* Aldo Brenn"
    "portray": "cast role play played star starred reprise reprised",
    "actor": "cast role played starred",
    "actress": "cast role played starred",
    "movie": "film films",
    "music": "composer composed score soundtrack",  # "Who wrote the *music* for it?" / "… returned as its *composer*"
    "call": "name named renamed known traded dubbed nickname nicknamed",  # "What was it *called* before 1819?" / "*traded as* … until 1819"
    "found": "establish established set start started",  # "the *founder* of the school" / "It was *set up* in 1809 by"
    "founder": "establish established set start started",
    # "who *started* the school" ("start" is stemmed "begin"); "when did the fire *start*" / "the fire *broke out* on
    # 14 March 1923"
    "begin": "found founded establish established set start started broke outbreak",
    "run": "director direct directs head heads manage manager managed lead leads led operate operated chair",
    "train": "railway rail line station apprentice apprenticed pupil",  # the line, or who "trained" whom
    "ticket": "fare fares",
    "score": "goal goals goalscorer scored scorer",
    "hold": "capacity seat seats seated accommodate accommodates holds",  # "how many people can it *hold*"
    "inhabitant": "population resident residents people live lives inhabited",
    "employee": "staff employ employs employed worker workers people",
    "member": "members membership",
    # a question's "switched off" is read "disabled" (``plain_words``); a passage may say either
    "disable": "disabled switch switched turn turned shut",
    "host": "present presents presented presenter",  # "who *hosts* the morning show" / "its *presenter* since 2019"
    "sack": "dismiss dismissed fire fired",  # "how many reporters got *sacked*" / "no journalist was *dismissed*"
    "scrap": "disband disbanded abolish abolished close closed",  # "when she *scrapped* the orchestra"
    "connect": "link linked links interconnect",  # "what network *connected* the nodes" / "the nodes were *linked* by"
    # "How many *components make up* a Calibre 12?" / "The design *consisted of* 147 *parts*"
    "component": "part parts piece pieces",
    "comprise": "consist consisted compose composed contain contained made",
    "registration": "registered register",
    "flew": "flight flown fly flies airborne",
    "kept": "keeper keep keeps tended",
    "graduated": "graduate degree diploma qualified completed finished",
    "open": "opened inaugurated founded established",
    "visit": "visitor open closed admission entry",  # "which day can't you *visit* it" / "closed on Mondays"
    # light verbs of phrasal look-ups: "when does X *take place*", "what day does X *come out*"
    "take": "held hold happen occur",
    "come": "released release published publish appear issued out",
    "nurse": "matron",  # a matron is a hospital's head nurse
    "shut": "close closed closure",
    "sued": "sue action lawsuit suit",  # "who sued the paper" / "Marchbank v Sentinel was a libel *action*"
    "defend": "represent represented counsel",
    # everyday words for what passages put formally
    "birth": "born",  # "date of *birth*" / "(*born* 12 August 1968)"
    "quit": "resign resigned retire retired",
    # "Why did he *step down*?" (read "resigned") / "Two years after his *resignation*", "He *stepped down* in 1934"
    "resign": "resignation retire retired quit step stepped stood",
    "crash": "accident collision derailment disaster wreck",  # "the Sallow Hill *crash*" / "the … *accident* of 1927"
    "lose": "destroy destroyed burnt burned",  # "books *lost* in the fire" / "volumes were *destroyed*"
    "blaze": "fire",  # "the Montbrac *blaze*" / "fire destroyed the still hall"
    "relocate": "move moved",  # "when did the shop *relocate*" / "moved to the old bank building"
    "move": "switch switched relocate relocated",  # "Why did Quennet *move to* a permissive licence?" / "The *switch*"
    # "Which organisation *hands out* the Cressing Awards?" (read "awards") / "*presented by* the Cressing Trust"
    "award": "present presented presents grant granted give gave allocate allocated distribute distributed",
    "donate": "gift given gave present presented bequeath bequeathed donor",
    "steal": "thief theft",
    "folio": "leaf leaves",
    "prefer": "favour favours favoured favor favors favored",
    "attend": "studied study educated pupil student",  # "which school did she *attend*" / "she *studied at*"
    "headcount": "employ employed employs staff workforce",
    "picture": "photograph photographs photo photos painting paintings",
    "decommission": "discontinued discontinue withdrawn closed retired extinguished",
    "choose": "elect elected elects",  # "When is the Master *chosen*?" / "is *elected* annually"
    "originally": "began begin first initially",  # "What type of fair was it *originally*?" / "it *began as*"
    "walkout": "strike stoppage",
    "organise": "call called lead led",  # "the union that *organised* the 1948 strike" / "It was *called by* the … Union"
    "strong": "abv alcohol proof",  # "how strong is the stout" / "5.2% ABV"
    "architect": "designed design designer",  # "Who was the *architect* of …?" / "It was *designed* by the engineer …"
    "autobiography": "memoir memoirs",
    "sail": "aboard sailed voyage",
    "fund": "funded funding financed sponsored paid",
    "bloom": "flower flowers blossom blossoms",
    "flow": "river stream",  # "Which river *flows* through Varnoux?" / "a spa town on the *River* Aubrine"
    "wind": "gust gusts gale",
    "publish": "issued issue appear appeared published",
    # "came out" is read as *released* ("when release 4.0 came out"); a paper that comes out on Fridays is published
    "release": "published publish issued issue appear appeared",
    # everyday words of people and trade ("its first *female* member" / "the first *woman* admitted")
    "female": "woman women",
    "male": "man men",
    "entry": "admission admitted entrance",  # "*entry* is free" / "*admission* has been free since 2001"
    "admission": "entry entrance",
    "turnover": "revenue sales",
    "revenue": "turnover sales income",
    "phd": "doctorate doctoral",
    "doctorate": "phd",
    "stake": "per cent percent share",  # "what *stake* did they end up with" / "received 22 *percent*"
    "pill": "tablet tablets capsule capsules",
    "tablet": "pill pills",
    "factory": "plant mill",
    "halt": "stop stopped suspend suspended abandon abandoned",
    "vehicle": "car cars lorry lorries truck trucks bus buses",
    "interval": "every",  # "dosing *interval*" / "*every* four weeks"
    "annually": "year yearly annual",
    "create": "launch launched found founded establish established set",  # "Why did the paper *create* the race?"
    "headquarters": "headquartered based",
    "nickname": "call called dubbed known",  # "What *nickname* do riders give it?" / "Riders *call* it …"
    "inaugurate": "open opened",
    "ban": "suspension suspended banned",
    "lawsuit": "case action suit claim",  # "the *lawsuit* over the drug" / "The *case* was filed in 1998"
    "stable": "hold holds house housed accommodate",  # "how many trams could be *stabled*" / "could *hold* 90 cars"
    "gate": "attendance crowd crowds spectators visitors",  # "the average home *gate*" / "*attendance* of 1,790"
    "crowd": "people spectators onlookers attendance",
    "trophy": "shield prize award awards awarded medal",  # "the youth competition *trophy*" / "*awards* the Quillan Cup"
    "decide": "decision",  # "Why did the board *decide* to shut it?" / "announced the *decision*, citing …"
    "offer": "invitation invited proposal",  # "turn down the *offer*" / "declined an *invitation*"
    "repurchase": "bought buy back regained recovered",  # "*repurchased*" / "*bought back* by public subscription"
    "survive": "saved spared escaped intact",  # "Why did the dome *survive* the fire?" / "was *saved* because"
    "monk": "abbey monastery priory friary friar brother",  # "gave it *to the monks*" / "*the abbey* obtained it"
    "interview": "question questioned questioning examine examined",  # "*interviewed* 34 monks" / "*questioned* each"
    "inspection": "visitation visit inspect inspected",  # "his 1462 *inspection*" / "the *visitation* of 1462"
    # "Why did he *invent* his splint?" / "Kittredge *designed* it because"; "Who *invented* the frame?" / "*patented* … by"
    "invent": "design designed devise devised patent patented",
    "supersede": "replace replaced replacing favour successor",  # "deprecated … *in favour of* qstd.tide"
    "beat": "defeat defeated defeating",  # "the player Anselm Korvath *beat*" / "*defeating* … Radomir Eszeny"
    "editorship": "editor edited edit",  # "give up the *editorship*" / "Cornelius Ashby *edited* the Sentinel"
    "mediate": "broker brokered mediator",  # "who *mediated* the settlement" / "a settlement *brokered* by"
    # "what *took over from* tuning forks" (read as "succeeded"): "the forks were *replaced by* an electronic tuner"
    "succeed": "replace replaced successor follow followed",
    "follow": "succeed succeeded successor",  # "Who *followed* him as captain?" / "He was *succeeded* as captain by"
    "illustration": "miniature plate drawing picture",  # "11 full-page *miniatures*"
    "circus": "company troupe show",  # "Why did Jonah Quistle leave the *circus*?" / "he left the *company*"
    "control": "dominate domination rule ruled govern governed",  # "under Western European *domination*"
    "use": "utilise utilised utilize utilized employ employed",  # "The church was *utilised* by the dukes"
    "preside": "judge chair chaired",  # "Who *presided over* the trial?" / "heard … before *Judge* Tobias Wren"
    "maiden": "born née",  # "Greta Hollin's *maiden* name" / "Greta Hollin, *born* Greta Aust"
    "voice": "present presented presenter host hosted",  # "the *voice* of The Lantern Hour" / "*presented* by"
    "depart": "left leave leaving departure",  # "watched the last tram *depart*" / "The final car … *left*"
    "throw": "expel expelled",  # "What got him *thrown out* of the club?" / "the committee *expelled* him"
    "subject": "depict depicts depicted portray portrays portrayed",  # "the *subject* of the painting" / "It *depicts*"
    "background": "train trained study studied educated",  # "what engineering *background*" / "*Trained* in railway …"
    "annual": "year yearly",  # "best-ever *annual* gate" / "Its record *year* was 2019"
})


def said_otherwise(term: str) -> frozenset[str]:
    """The stems that say ``term`` (a stem) in other words; empty for none."""
    return SYNONYMS.get(term, frozenset())


def says(term: str, unit: TextFeatures) -> bool:
    """Whether ``unit`` says ``term`` (a stem): in its word, spelt one letter otherwise, or in one that says it otherwise."""
    return unit.covers_misspelt(term) or bool(said_otherwise(term) & unit.content)


__all__ = ["SYNONYMS", "said_otherwise", "says", "stemmed_groups"]
