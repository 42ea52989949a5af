#!/usr/bin/env python3
"""Build Marginalia's sample content from the tiny-eminescu corpus.

Usage (from the repository root):

    python3 samples/tools/make_samples.py /work/shared/corpus/eminescu/tiny-eminescu.txt samples/

Python 3 standard library only.  The output is deterministic: running the
script twice gives byte-identical files.

Provenance
----------
The input is ``tiny-eminescu.txt``: 160 poems by Mihai Eminescu (1850-1889,
public domain), compiled by the GitHub repository narcisaguran/tiny-eminescu
(MIT licence, copyright 2024 Narcisa Guran), scraped from a Romanian lyrics
site.  Each poem is a line ``Versuri <Title>``, a line ``-``, then verse lines
separated by blank lines.  The licence file next to the corpus is copied to
``samples/LICENSE-tiny-eminescu``.

What it writes (into the output directory)
------------------------------------------
``eminescu-2026.1.json``
    Edition 1, faithful to the corpus: one document per distinct poem, one
    passage per verse line, every string NFC-normalised.  The corpus's mess is
    kept on purpose (cedilla ş/ţ next to comma-below ș/ț, soft hyphens U+00AD,
    non-breaking hyphens U+2011, lines without diacritics, ",." and "!."
    artefacts, a stray "." line, a stray HTTP chunk-size line "6984").
    Cleaned in edition 1 only: trailing spaces of titles (allowed), titles
    restored where the scraper cut them at a hyphen or lost their diacritics
    (TITLE_FIXES), the lyrics site's "Alte poezii de dragoste ..." box that
    the scraper glued to the end of "Luceafarul" (16 lines), and duplicate
    copies of the same poem (see dedupe(): 160 poems -> 114 documents; of
    each group the copy with the most Romanian diacritics is kept, ties go to
    the first one, PREFERRED settles two ties, COMPILATIONS drops "Sonete",
    which only concatenates Sonet I-III).  Document ids are ASCII slugs of the title (see
    slugify); passage ids are ``<slug>.<n>``, n = 1, 2, ... in reading order.

``eminescu-2026.2.json``
    Edition 2, a realistic update of edition 1:
    * every cedilla letter ş Ş ţ Ţ becomes comma-below ș Ș ț Ț (texts and
      titles);
    * soft hyphens U+00AD are removed (in this corpus all 41 stand where a
      dash was, between spaces or at a line end, so the double or trailing
      space they leave is collapsed/trimmed);
    * non-breaking hyphens U+2011 become "-";
    * trailing whitespace is removed;
    * REWORDINGS: 22 verse lines of 14 poems (4 in "luceafarul") reworded in
      small, realistic ways (spelling modernisation, punctuation, one word
      order change, typo fixes, word substitutions restoring the printed
      text), each listed with document id, passage id, old and new text;
    * INSERTIONS: 2 lines inserted in the middle of a poem ("glossa",
      "sara-pe-deal"); a new line gets the id ``<slug>.<max n + 1>`` but sits
      at its reading position in the passages array;
    * DELETIONS: 3 lines deleted ("strigoii" x2, "daca-iubesti-fara-sa-speri");
      ids are never reused;
    * REMOVED_DOCUMENT: the short fragment "Şi dacă de cu ziuă"
      (id "si-daca-de-cu-ziua", 4 lines) is removed;
    * ADDED_DOCUMENT: "Sara pe deal" in the text Eminescu printed (24 long
      lines, Convorbiri literare 1885), id "sara-pe-deal-2".  The corpus only
      has the sung arrangement of that poem (short half-lines, "(bis)"), kept
      as "sara-pe-deal"; every short Eminescu poem we could reproduce with
      confidence (e.g. "Ce te legeni...") is already in the corpus, so the
      added document is the printed text of this poem, not a poem missing
      from the corpus.  Its id exercises the "-2" disambiguation rule.
    Every surviving passage keeps its id.

``CHANGES-2026.2.md``
    Human-readable list of what edition 2 changed, with counts.

``README.md``, ``LICENSE-tiny-eminescu``
    What the samples are, provenance, regeneration, the id scheme.

``tiny.json``, ``tiny-2.json``
    A hand-made 2-document, 6-passage content source (edition "tiny-1", lines
    of "Mai am un singur dor" and "Noi amândoi avem același dascăl!") with
    cedilla and comma-below letters, ă/â/î, a soft hyphen inside a word (added
    by hand: "liniş\\u00adtea") and a 213-character line (a whole stanza
    joined with spaces), and its update "tiny-2" (comma-below, soft hyphen
    removed, one line reworded, one passage deleted, one inserted).

At the end the script re-reads everything it wrote and validates it (JSON
parses, ids unique/non-empty/well-formed, texts NFC/non-empty, edition 2
keeps every surviving id, edition-2 texts equal the normalised edition-1
texts except for the listed changes, the counts in CHANGES hold) and prints
a summary.  Any failed check aborts with a non-zero exit status.
"""

import difflib
import json
import os
import re
import shutil
import sys
import unicodedata

# ---------------------------------------------------------------------------
# Characters and text helpers
# ---------------------------------------------------------------------------

SOFT_HYPHEN = "\u00ad"
NB_HYPHEN = "\u2011"
CEDILLA_TO_COMMA = {"ş": "ș", "Ş": "Ș", "ţ": "ț", "Ţ": "Ț"}
CEDILLA = "".join(CEDILLA_TO_COMMA)
COMMA_BELOW = "".join(CEDILLA_TO_COMMA.values())
RO_DIACRITICS = set("ăâîĂÂÎ" + CEDILLA + COMMA_BELOW)
_FOLD_SC = str.maketrans({"ş": "s", "ș": "s", "Ş": "S", "Ș": "S",
                          "ţ": "t", "ț": "t", "Ţ": "T", "Ț": "T"})
_TO_COMMA = str.maketrans(CEDILLA_TO_COMMA)


def nfc(s):
    return unicodedata.normalize("NFC", s)


def fold(s):
    """Lowercase, diacritics removed: ş/ș->s, ţ/ț->t, ă/â->a, î->i, é->e."""
    s = unicodedata.normalize("NFD", s.translate(_FOLD_SC))
    return "".join(c for c in s if not unicodedata.combining(c)).lower()


def slugify(title):
    """Stable ASCII slug: folded, runs of anything but [a-z0-9] -> '-'."""
    s = re.sub(r"[^a-z0-9]+", "-", fold(title)).strip("-")
    if not s:
        raise ValueError("empty slug for title %r" % title)
    return s


def normalize2(s):
    """The mechanical part of the edition-2 update."""
    s = s.translate(_TO_COMMA).replace(NB_HYPHEN, "-")
    if SOFT_HYPHEN in s:
        s = s.replace(SOFT_HYPHEN, "")
        s = re.sub(r" {2,}", " ", s)   # a soft hyphen between two spaces
    return s.rstrip()


# ---------------------------------------------------------------------------
# Corpus parsing
# ---------------------------------------------------------------------------

HEADER_PREFIX = "Versuri "
BOILERPLATE_START = re.compile(r"^Alte poezii\b")   # lyrics-site box


class Poem:
    def __init__(self, header_line, raw_title, verses, dropped_tail):
        self.header_line = header_line    # 1-based line number of "Versuri ..."
        self.raw_title = raw_title        # NFC, trailing spaces kept
        self.verses = verses              # non-blank lines, NFC, in order
        self.dropped_tail = dropped_tail  # boilerplate removed from the end

    @property
    def title(self):
        return self.raw_title.rstrip()

    def label(self):
        return "%r (line %d)" % (self.title, self.header_line)


def parse_corpus(path):
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if "\r" in text:
        raise SystemExit("expected LF line endings in %s" % path)
    lines = text.split("\n")
    heads = [i for i, l in enumerate(lines) if l.startswith(HEADER_PREFIX)]
    if not heads or heads[0] != 0:
        raise SystemExit("the corpus must start with a 'Versuri <Title>' line")
    poems = []
    for a, b in zip(heads, heads[1:] + [len(lines)]):
        if a + 1 >= len(lines) or lines[a + 1] != "-":
            raise SystemExit("line %d: expected '-' after the title" % (a + 2))
        # Blank and whitespace-only lines separate verses and stanzas; the
        # newline itself is not part of a verse.
        verses = [nfc(l) for l in lines[a + 2:b] if l.strip()]
        tail = []
        for i, v in enumerate(verses):
            if BOILERPLATE_START.match(v):
                verses, tail = verses[:i], verses[i:]
                break
        if not verses:
            raise SystemExit("line %d: poem without verses" % (a + 1))
        poems.append(Poem(a + 1, nfc(lines[a][len(HEADER_PREFIX):]), verses, tail))
    return poems


# ---------------------------------------------------------------------------
# Duplicates
# ---------------------------------------------------------------------------
# The corpus holds many poems two to five times: the same poem transcribed
# with and without diacritics, with "..." added to the title, with a typo
# more or less.  Two poems are the same poem when their folded texts are at
# least SAME_POEM similar (difflib ratio).  Measured on this corpus: every
# duplicate pair scores >= 0.78 ("Dorinta", a sung version with repeated
# stanzas, vs "Dorinţa"), every pair of different poems <= 0.51, so the
# threshold sits in a wide gap.  Of each group the copy with the most
# Romanian diacritics is kept (ties: the first in the corpus) unless
# PREFERRED names another one.

SAME_POEM = 0.70
WORD_PREFILTER = 0.30

# header line -> (corpus title, why this copy rather than the default pick)
PREFERRED = {
    6808: ("Lasă", "same diacritics count as line 6906, but that copy has "
                   "the typos 'Ohii' and stray ' -'; line 7004 is identical"),
    11458: ("Scrisoarea I", "identical to 'Scrisoarea 1' (line 11136) except "
                            "'Vreo' (that copy: 'Vre o'); Roman numeral like "
                            "Scrisoarea II-V"),
}

# A poem that only concatenates other kept poems.  header line -> (title,
# header lines of the poems it is made of).  Checked line by line below.
COMPILATIONS = {
    13396: ("Sonete", (13303, 13334, 13365)),   # = Sonet I + Sonet II + Sonet III
}


def poem_key(p):
    return re.sub(r"[^a-z0-9]+", " ", fold(" ".join(p.verses))).strip()


def similarity(a, b):
    """difflib ratio of two poem keys; 0.0 when they share few words.

    The word-set prefilter only saves time (the full comparison of all pairs
    takes minutes): on this corpus same-poem pairs share >= 0.76 of their
    words (Jaccard), different poems <= 0.52.
    """
    wa, wb = set(a.split()), set(b.split())
    if len(wa & wb) < WORD_PREFILTER * len(wa | wb):
        return 0.0
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if sm.real_quick_ratio() < SAME_POEM or sm.quick_ratio() < SAME_POEM:
        return 0.0
    return sm.ratio()


def diacritic_score(p):
    return sum(ch in RO_DIACRITICS for v in p.verses for ch in v)


def line_key(v):
    return re.sub(r"[^a-z]+", "", fold(v))


def check_compilation(comp, parts):
    """Every line of comp (bar scraper junk) closely matches a line of parts."""
    keys = [line_key(v) for p in parts for v in p.verses]
    unmatched = []
    for v in comp.verses:
        k = line_key(v)
        if len(k) < 3:
            continue
        best = max(difflib.SequenceMatcher(None, k, x, autojunk=False).ratio()
                   for x in keys)
        if best < 0.8:
            unmatched.append(v)
    # the compilation contains one verse split in two by a chunk-size line
    if len(unmatched) > 2:
        raise SystemExit("%s is not just %s: %r" % (
            comp.label(), ", ".join(p.label() for p in parts), unmatched))


def dedupe(poems):
    """Return (kept poems in corpus order, groups, compilations dropped)."""
    by_line = {p.header_line: p for p in poems}
    for line, (title, _why) in PREFERRED.items():
        if by_line.get(line) is None or by_line[line].title != title:
            raise SystemExit("PREFERRED: no poem %r at line %d" % (title, line))
    keys = [poem_key(p) for p in poems]
    parent = list(range(len(poems)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(poems)):
        for j in range(i + 1, len(poems)):
            if similarity(keys[i], keys[j]) >= SAME_POEM:
                parent[find(j)] = find(i)
    groups = {}
    for i in range(len(poems)):
        groups.setdefault(find(i), []).append(poems[i])
    kept, dup_groups = [], []
    for members in groups.values():
        pick = None
        for m in members:
            if m.header_line in PREFERRED:
                pick = m
        if pick is None:
            pick = max(members, key=lambda m: (diacritic_score(m), -m.header_line))
        kept.append(pick)
        if len(members) > 1:
            dup_groups.append((pick, [m for m in members if m is not pick]))
    comps = []
    kept_lines = {p.header_line for p in kept}
    for line, (title, part_lines) in COMPILATIONS.items():
        comp = by_line.get(line)
        if comp is None or comp.title != title or line not in kept_lines:
            raise SystemExit("COMPILATIONS: no kept poem %r at line %d" % (title, line))
        parts = [by_line[l] for l in part_lines]
        if any(l not in kept_lines for l in part_lines):
            raise SystemExit("COMPILATIONS: parts of %r are not kept" % title)
        check_compilation(comp, parts)
        comps.append((comp, parts))
        kept = [p for p in kept if p is not comp]
    kept.sort(key=lambda p: p.header_line)
    dup_groups.sort(key=lambda g: g[0].header_line)
    return kept, dup_groups, comps


# ---------------------------------------------------------------------------
# Titles
# ---------------------------------------------------------------------------
# The scraper cut some titles at the first hyphen or apostrophe ("S" for
# "S-a dus amorul"; all of these are the titles without trailing spaces) and
# some titles lost their diacritics ("Luceafarul").  Edition 1 and 2 show the
# proper title; the slug is made from it, so it is the same in every edition
# ("Luceafarul" and "Luceafărul" both give "luceafarul").
# header line -> (corpus title, proper title)

TITLE_FIXES = {
    481: ("Calin", "Călin"),
    1376: ("Ce", "Ce-ţi doresc eu ţie, dulce Românie"),
    1443: ("Colinde colinde", "Colinde, colinde"),
    1841: ("Cu mâine zilele", "Cu mâine zilele-ţi adaogi"),
    2275: ("Daca iubesti fara sa speri", "Dacă iubeşti fără să speri"),
    2440: ("De ce nu", "De ce nu-mi vii"),
    2538: ("De vorbiţi mă fac că n", "De vorbiţi mă fac că n-aud"),
    2560: ("De", "De-aş avea"),
    2612: ("De", "De-or trece anii..."),
    2905: ("Din lyra sparta", "Din lyra spartă"),
    3923: ("Făt", "Făt-Frumos din tei"),
    4092: ("Fata", "Fata-n grădina de aur"),
    5517: ("Imi amintesc...", "Îmi amintesc..."),
    6507: ("La bucovina", "La Bucovina"),
    6679: ("La mormântul lui aron pumnul", "La mormântul lui Aron Pumnul"),
    6808: ("Lasă", "Lasă-ţi lumea ta uitată"),
    7137: ("Luceafarul", "Luceafărul"),
    8817: ("O ramai, ramai cu bine...", "O, rămâi, rămâi cu bine..."),
    8953: ("O, ramâi", "O, rămâi"),
    9051: ("Pajul cupidon", "Pajul Cupidon"),
    9486: ("Peste varfuri", "Peste vârfuri"),
    9978: ("Rasai asupra mea", "Răsai asupra mea"),
    10084: ("Rugaciune", "Rugăciune"),
    10226: ("S", "S-a dus amorul"),
    13568: ("Stelele", "Stelele-n cer"),
    14425: ("Trecut", "Trecut-au anii"),
    14637: ("Vorbeste", "Vorbeşte-ncet"),
}


# ---------------------------------------------------------------------------
# Edition 1
# ---------------------------------------------------------------------------

EDITION_1 = "eminescu-2026.1"
EDITION_2 = "eminescu-2026.2"
LANGUAGE = "ro"
COLLECTION_TITLE = "Poezii"


def assign_slug(title, taken):
    base = slugify(title)
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = "%s-%d" % (base, n)
    taken.add(slug)
    return slug


def build_edition1(kept):
    by_line = {p.header_line: p for p in kept}
    for line, (raw, _proper) in TITLE_FIXES.items():
        if line not in by_line or by_line[line].title != raw:
            raise SystemExit("TITLE_FIXES: no kept poem %r at line %d" % (raw, line))
    taken, docs, origin = set(), [], {}
    for p in kept:
        title = nfc(TITLE_FIXES[p.header_line][1]) if p.header_line in TITLE_FIXES \
            else p.title
        slug = assign_slug(title, taken)
        passages = [{"id": "%s.%d" % (slug, n), "text": v}
                    for n, v in enumerate(p.verses, 1)]
        docs.append({"id": slug, "title": title, "passages": passages})
        origin[slug] = p
    return {"edition": EDITION_1, "language": LANGUAGE,
            "title": COLLECTION_TITLE, "documents": docs}, origin


# ---------------------------------------------------------------------------
# Edition 2: the listed, reviewable changes
# ---------------------------------------------------------------------------
# Texts on the "new" side are written the edition-2 way (comma-below letters,
# no soft hyphens); the "old" side must equal the edition-1 text exactly.

# (document id, passage id, old text, new text, kind of change)
REWORDINGS = [
    ("luceafarul", "luceafarul.1",
     "A fost odata ca-n povesti,", "A fost odată ca-n povești,",
     "spelling: diacritics restored"),
    ("luceafarul", "luceafarul.3",
     "Din rude mari imparatesti,", "Din rude mari împărătești,",
     "spelling: diacritics restored"),
    ("luceafarul", "luceafarul.129",
     "Ca doua patimi fără sat", "Ca două patimi fără saț",
     "word: 'sat' (village) -> 'saț' (satiety), as printed"),
    ("luceafarul", "luceafarul.373",
     "Si ea l-a prins în brate..", "Si ea l-a prins în brate.",
     "punctuation"),
    ("peste-varfuri", "peste-varfuri.3",
     "Peste ramuri de arin", "Dintre ramuri de arin",
     "word substitution, as printed"),
    ("peste-varfuri", "peste-varfuri.9",
     "De ce taci, cand femecata", "De ce taci, cand fermecata",
     "typo"),
    ("copii-eram-noi-amandoi", "copii-eram-noi-amandoi.38",
     "Îbalt-adânc s-au cufundat", "În balt-adânc s-au cufundat",
     "typo"),
    ("copii-eram-noi-amandoi", "copii-eram-noi-amandoi.50",
     "Cordial i-am strâns eu l***.", "Cordial i-am strâns eu laba.",
     "word restored: the lyrics site had starred out 'laba' (the cat's paw)"),
    ("copii-eram-noi-amandoi", "copii-eram-noi-amandoi.60",
     "Într-un cotlonde sobă.", "Într-un cotlon de sobă.",
     "typo: missing space"),
    ("numai-poetul", "numai-poetul.10",
     "Trece peste nemărginirea timpurilui:", "Trece peste nemărginirea timpului:",
     "typo"),
    ("somnoroase-pasarele", "somnoroase-pasarele.4",
     "Noapte bună!.", "Noapte bună!",
     "punctuation: scraper's stanza-end '.' dropped"),
    ("la-steaua", "la-steaua.8",
     "Luci vederii noastre,.", "Luci vederii noastre.",
     "punctuation"),
    ("sara-pe-deal", "sara-pe-deal.15",
     "Umeri spre bolta senina", "Umezi pe bolta senina",
     "two words, as printed ('Stelele nasc umezi pe bolta senină')"),
    ("strigoii", "strigoii.27",
     "Si natii cal", "Si natii calatoare, impinse de a mea,",
     "verse mended: the scraper had split it around the line '6984'"),
    ("calin", "calin.107",
     "Dulci cuvinte ne'nţelese, însă pline de-nţeles.",
     "Dulci cuvinte ne-nțelese, însă pline de-nțeles.",
     "spelling modernisation: ' -> -"),
    ("epigonii", "epigonii.17",
     "S-au dus toţi, s-au dus cu toate pe o cale ne'nturnată.",
     "S-au dus toți, s-au dus cu toate pe o cale ne-nturnată.",
     "spelling modernisation: ' -> -"),
    ("epigonii", "epigonii.85",
     "Pe-a lor urme luminoase voi asemenea mergéţi.",
     "Pe-a lor urme luminoase voi asemenea mergeți.",
     "spelling modernisation: old accent mark dropped"),
    ("colinde-colinde", "colinde-colinde.3",
     "Căci ghiaţa se 'ntinde", "Căci gheața se-ntinde",
     "spelling modernisation: 'ghiaţa' -> 'gheața', ''ntinde' -> '-ntinde'"),
    ("glossa", "glossa.1",
     "Vreme trece vreme vine", "Vreme trece, vreme vine,",
     "punctuation"),
    ("mortua-est", "mortua-est.63",
     "Şi nu ştiu gândirea-mi în ce o să stâng:",
     "Și nu știu gândirea-mi în ce să o stâng:",
     "word order: 'o să' -> 'să o', the reading of the corpus's other copy"),
    ("de-or-trece-anii", "de-or-trece-anii.2",
     "Ea tot mai mult îmi va plăcé,", "Ea tot mai mult îmi va plăcea,",
     "spelling modernisation: 'plăcé' -> 'plăcea'"),
    ("de-or-trece-anii", "de-or-trece-anii.10",
     "De ar vorbi, de ar tăcé:", "De ar vorbi, de ar tăcea:",
     "spelling modernisation: 'tăcé' -> 'tăcea'"),
]

# (document id, new passage id, inserted after passage id, text, why)
INSERTIONS = [
    ("glossa", "glossa.8", "glossa.3", "Tu te-ntreaba si socoate",
     "the 4th line of the theme stanza was missing (this copy has no "
     "diacritics; the restored line follows it)"),
    ("sara-pe-deal", "sara-pe-deal.54", "sara-pe-deal.52", "Cine pe ea",
     "in this sung arrangement every stanza repeats its 7th half-line; the "
     "last stanza lacked the repeat"),
]

# (document id, passage id, old text, why)
DELETIONS = [
    ("strigoii", "strigoii.28", "6984",
     "HTTP chunk-size number the scraper left inside a verse"),
    ("strigoii", "strigoii.29", "atoare, impinse de a mea,.",
     "second half of the split verse, merged into strigoii.27"),
    ("daca-iubesti-fara-sa-speri", "daca-iubesti-fara-sa-speri.37", ".",
     "stray '.' line after the last stanza"),
]

# (document id, title in edition 1, why)
REMOVED_DOCUMENT = ("si-daca-de-cu-ziua", "Şi dacă de cu ziuă",
                    "a short 4-line fragment; removed to exercise document removal")

# The poem as Eminescu printed it (Convorbiri literare, 1885), public domain,
# written out from memory of the canonical text, edition-2 orthography.  The
# corpus's "sara-pe-deal" is the sung arrangement of this poem.
ADDED_DOCUMENT = {
    "after": "sara-pe-deal",
    "title": "Sara pe deal",
    "lines": [
        "Sara pe deal buciumul sună cu jale,",
        "Turmele-l urc, stele le scapără-n cale,",
        "Apele plâng, clar izvorând în fântâne;",
        "Sub un salcâm, dragă, m-aștepți tu pe mine.",
        "Luna pe cer trece-așa sfântă și clară,",
        "Ochii tăi mari caută-n frunza cea rară,",
        "Stelele nasc umezi pe bolta senină,",
        "Pieptul de dor, fruntea de gânduri ți-e plină.",
        "Nourii curg, raze-a lor șiruri despică,",
        "Streșine vechi casele-n lună ridică,",
        "Scârțâie-n vânt cumpăna de la fântână,",
        "Valea-i în fum, fluiere murmură-n stână.",
        "Și osteniți oameni cu coasa-n spinare",
        "Vin de la câmp; toaca răsună mai tare,",
        "Clopotul vechi împle cu glasul lui sara,",
        "Sufletul meu arde-n iubire ca para.",
        "Ah! în curând satul în vale-amuțește;",
        "Ah! în curând pasu-mi spre tine grăbește:",
        "Lângă salcâm sta-vom noi noaptea întreagă,",
        "Ore întregi spune-ți-voi cât îmi ești dragă.",
        "Ne-om răzima capetele-unul de altul",
        "Și surâzând vom adormi sub înaltul,",
        "Vechiul salcâm. – Astfel de noapte bogată,",
        "Cine pe ea n-ar da viața lui toată?",
    ],
}


def count_chars(texts, chars):
    return {c: sum(t.count(c) for t in texts) for c in chars}


def build_edition2(ed1):
    docs1 = {d["id"]: d for d in ed1["documents"]}
    texts1 = {p["id"]: p["text"] for d in ed1["documents"] for p in d["passages"]}
    reworded = {}
    for doc, pid, old, new, _kind in REWORDINGS:
        if texts1.get(pid) != old or not pid.startswith(doc + "."):
            raise SystemExit("REWORDINGS: %s is %r, not %r" % (pid, texts1.get(pid), old))
        if normalize2(new) != new or nfc(new) != new:
            raise SystemExit("REWORDINGS: new text of %s is not clean" % pid)
        if pid in reworded:
            raise SystemExit("REWORDINGS: %s listed twice" % pid)
        reworded[pid] = new
    deleted = set()
    for doc, pid, old, _why in DELETIONS:
        if texts1.get(pid) != old or not pid.startswith(doc + "."):
            raise SystemExit("DELETIONS: %s is %r, not %r" % (pid, texts1.get(pid), old))
        if pid in reworded:
            raise SystemExit("DELETIONS: %s is also reworded" % pid)
        deleted.add(pid)
    inserted_after = {}
    next_n = {}
    for doc, new_id, after, text, _why in INSERTIONS:
        d = docs1[doc]
        n = next_n.get(doc, max(int(p["id"].rsplit(".", 1)[1]) for p in d["passages"]) + 1)
        if new_id != "%s.%d" % (doc, n):
            raise SystemExit("INSERTIONS: the new id must be %s.%d, not %s" % (doc, n, new_id))
        next_n[doc] = n + 1
        if after not in texts1 or after in deleted or not after.startswith(doc + "."):
            raise SystemExit("INSERTIONS: no surviving passage %s" % after)
        if normalize2(text) != text or not text.strip():
            raise SystemExit("INSERTIONS: text of %s is not clean" % new_id)
        inserted_after.setdefault(after, []).append({"id": new_id, "text": text})
    removed_id, removed_title, _why = REMOVED_DOCUMENT
    if removed_id not in docs1 or docs1[removed_id]["title"] != removed_title:
        raise SystemExit("REMOVED_DOCUMENT: no document %s %r" % (removed_id, removed_title))

    stats = {
        "cedilla": {c: 0 for c in CEDILLA}, "cedilla_passages": 0,
        "cedilla_titles": {c: 0 for c in CEDILLA}, "cedilla_title_docs": 0,
        "soft_hyphens": 0, "soft_hyphen_passages": 0, "soft_hyphen_trimmed": 0,
        "nb_hyphens": 0, "nb_hyphen_passages": 0,
        "trailing_ws_passages": 0, "trailing_ws_titles": 0,
    }
    taken = set(docs1)
    docs2 = []
    for d in ed1["documents"]:
        if d["id"] == removed_id:
            continue
        title2 = normalize2(d["title"])
        if title2 != d["title"]:
            tc = count_chars([d["title"]], CEDILLA)
            for c in CEDILLA:
                stats["cedilla_titles"][c] += tc[c]
            stats["cedilla_title_docs"] += 1 if sum(tc.values()) else 0
            stats["trailing_ws_titles"] += 1 if d["title"] != d["title"].rstrip() else 0
        passages = []
        for p in d["passages"]:
            pid, t1 = p["id"], p["text"]
            if pid not in deleted:
                if pid in reworded:
                    t2 = reworded[pid]
                else:
                    t2 = normalize2(t1)
                    pc = count_chars([t1], CEDILLA)
                    for c in CEDILLA:
                        stats["cedilla"][c] += pc[c]
                    stats["cedilla_passages"] += 1 if sum(pc.values()) else 0
                    if SOFT_HYPHEN in t1:
                        stats["soft_hyphens"] += t1.count(SOFT_HYPHEN)
                        stats["soft_hyphen_passages"] += 1
                        if t1.replace(SOFT_HYPHEN, "") != t1.replace(SOFT_HYPHEN, "").rstrip():
                            stats["soft_hyphen_trimmed"] += 1
                    if NB_HYPHEN in t1:
                        stats["nb_hyphens"] += t1.count(NB_HYPHEN)
                        stats["nb_hyphen_passages"] += 1
                    if t1 != t1.rstrip():
                        stats["trailing_ws_passages"] += 1
                if not t2.strip():
                    raise SystemExit("edition 2: %s would be empty" % pid)
                passages.append({"id": pid, "text": t2})
            passages.extend(inserted_after.get(pid, []))
        docs2.append({"id": d["id"], "title": title2, "passages": passages})
        if d["id"] == ADDED_DOCUMENT["after"]:
            title = ADDED_DOCUMENT["title"]
            slug = assign_slug(title, taken)
            docs2.append({"id": slug, "title": title, "passages": [
                {"id": "%s.%d" % (slug, n), "text": t}
                for n, t in enumerate(ADDED_DOCUMENT["lines"], 1)]})
            stats["added"] = slug
    if "added" not in stats:
        raise SystemExit("ADDED_DOCUMENT: no document %s" % ADDED_DOCUMENT["after"])
    ed2 = {"edition": EDITION_2, "language": LANGUAGE,
           "title": COLLECTION_TITLE, "documents": docs2}
    return ed2, stats


# ---------------------------------------------------------------------------
# tiny.json / tiny-2.json: hand-made, for fast unit tests
# ---------------------------------------------------------------------------
# Lines of "Mai am un singur dor" (cedilla ş/ţ, ă/â/î; a soft hyphen added
# by hand inside "liniştea") and of "Noi amândoi avem același dascăl!"
# (comma-below ș/ț; its first stanza joined with spaces into one 213-character
# line).  tiny-2: comma-below everywhere, soft hyphen removed, the long line
# reworded ("..", the scraper's artefact, -> "."), one passage deleted, one
# inserted (a line of the poem that tiny-1 skips).

_DOR = "mai-am-un-singur-dor"
_DASCAL = "noi-amandoi-avem-acelasi-dascal"
_STANZA = ("Noi amândoi avem același dascăl,", "Școlari suntem aceleiași păreri..",
           "Unitul gând oricine recunoască-l.", "Ce știi tu azi, eu am știut de ieri.",
           "De-aceleași lucruri plângem noi și râdem..",
           "Non idem est si duo dicunt idem.")

TINY_1 = {
    "edition": "tiny-1", "language": "ro", "title": "Poezii",
    "documents": [
        {"id": _DOR, "title": "Mai am un singur dor", "passages": [
            {"id": _DOR + ".1", "text": "Mai am un singur dor:"},
            {"id": _DOR + ".2", "text": "În liniş\u00adtea serii"},
            {"id": _DOR + ".3", "text": "Să mă lăsaţi să mor"},
            {"id": _DOR + ".4", "text": "Ci-mi împletiţi un pat"},
        ]},
        {"id": _DASCAL, "title": "Noi amândoi avem același dascăl!", "passages": [
            {"id": _DASCAL + ".1", "text": " ".join(_STANZA)},
            {"id": _DASCAL + ".2", "text": "Ne-a despărțit, de nu mergem de-a valma."},
        ]},
    ],
}

TINY_2 = {
    "edition": "tiny-2", "language": "ro", "title": "Poezii",
    "documents": [
        {"id": _DOR, "title": "Mai am un singur dor", "passages": [
            {"id": _DOR + ".1", "text": "Mai am un singur dor:"},
            {"id": _DOR + ".2", "text": "În liniștea serii"},
            {"id": _DOR + ".3", "text": "Să mă lăsați să mor"},
            {"id": _DOR + ".5", "text": "La marginea mării;"},            # inserted
            {"id": _DOR + ".4", "text": "Ci-mi împletiți un pat"},
        ]},
        {"id": _DASCAL, "title": "Noi amândoi avem același dascăl!", "passages": [
            {"id": _DASCAL + ".1", "text": " ".join(_STANZA).replace("..", ".")},  # reworded
            # _DASCAL + ".2" deleted
        ]},
    ],
}
TINY_CHANGES = {"reworded": {_DASCAL + ".1"}, "deleted": {_DASCAL + ".2"},
                "inserted": {_DOR + ".5"}}


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------

def _js(s):
    # Invisible format characters are written as escapes so that the files
    # can be reviewed; the parsed strings are unchanged.
    return (json.dumps(s, ensure_ascii=False)
            .replace(SOFT_HYPHEN, "\\u00ad").replace(NB_HYPHEN, "\\u2011"))


def dump_content(obj):
    """JSON with one passage per line (readable, diff-friendly)."""
    out = ["{",
           '  "edition": %s,' % _js(obj["edition"]),
           '  "language": %s,' % _js(obj["language"]),
           '  "title": %s,' % _js(obj["title"]),
           '  "documents": [']
    for i, d in enumerate(obj["documents"]):
        out.append('    {"id": %s, "title": %s, "passages": [' % (_js(d["id"]), _js(d["title"])))
        ps = d["passages"]
        for j, p in enumerate(ps):
            out.append('      {"id": %s, "text": %s}%s' % (
                _js(p["id"]), _js(p["text"]), "," if j < len(ps) - 1 else ""))
        out.append("    ]}%s" % ("," if i < len(obj["documents"]) - 1 else ""))
    out += ["  ]", "}", ""]
    return "\n".join(out)


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def md_quote(s):
    """A passage text inside Markdown inline code, invisible characters shown."""
    s = s.replace(SOFT_HYPHEN, "\\u00ad").replace(NB_HYPHEN, "\\u2011")
    tick = "``" if "`" in s else "`"
    return "%s%s%s" % (tick, s, tick)


def n_passages(ed):
    return sum(len(d["passages"]) for d in ed["documents"])


def changes_md(ed1, ed2, stats, removed_doc, added_doc):
    ced = stats["cedilla"]
    ct = stats["cedilla_titles"]
    L = []
    L.append("# Changes in %s (from %s)" % (EDITION_2, EDITION_1))
    L.append("")
    L.append("Generated by `samples/tools/make_samples.py`; do not edit by hand.")
    L.append("")
    L.append("| | %s | %s |" % (EDITION_1, EDITION_2))
    L.append("|---|---:|---:|")
    L.append("| documents | %d | %d |" % (len(ed1["documents"]), len(ed2["documents"])))
    L.append("| passages | %d | %d |" % (n_passages(ed1), n_passages(ed2)))
    L.append("")
    L.append("All surviving passages keep their ids. New passages get the next free")
    L.append("number of their document (`<slug>.<max n + 1>`) and sit at their reading")
    L.append("position; ids of deleted passages are never reused.")
    L.append("")
    L.append("## Orthography and invisible characters")
    L.append("")
    L.append("Counted on the passages that changed only mechanically (the reworded")
    L.append("lines below are written with comma-below letters as well).")
    L.append("")
    L.append("- Cedilla letters replaced by comma-below: **%d** (ş→ș %d, Ş→Ș %d, ţ→ț %d, Ţ→Ț %d) "
             "in %d passages; in titles: %d more (ş→ș %d, Ş→Ș %d, ţ→ț %d, Ţ→Ț %d) in %d titles."
             % (sum(ced.values()), ced["ş"], ced["Ş"], ced["ţ"], ced["Ţ"],
                stats["cedilla_passages"], sum(ct.values()), ct["ş"], ct["Ş"], ct["ţ"],
                ct["Ţ"], stats["cedilla_title_docs"]))
    L.append("- Soft hyphens (U+00AD) removed: **%d** in %d passages, all in "
             "`fata-n-gradina-de-aur`. Each stood where a dash was (between two spaces "
             "or at the end of the line), so the space left behind was collapsed, and "
             "%d passages lost a trailing space."
             % (stats["soft_hyphens"], stats["soft_hyphen_passages"], stats["soft_hyphen_trimmed"]))
    L.append("- Non-breaking hyphens (U+2011) replaced by `-`: **%d** in %d passages "
             "(`vorbeste-ncet`)." % (stats["nb_hyphens"], stats["nb_hyphen_passages"]))
    L.append("- Trailing whitespace removed: %d passages, %d titles. (Besides the soft-hyphen "
             "lines above, the corpus has trailing spaces only on its title lines, which "
             "edition 1 already trims.)"
             % (stats["trailing_ws_passages"], stats["trailing_ws_titles"]))
    L.append("")
    L.append("## Reworded passages (%d)" % len(REWORDINGS))
    L.append("")
    for doc, pid, old, new, kind in REWORDINGS:
        L.append("- `%s`: %s → %s — %s" % (pid, md_quote(old), md_quote(new), kind))
    L.append("")
    L.append("## Inserted passages (%d)" % len(INSERTIONS))
    L.append("")
    for doc, new_id, after, text, why in INSERTIONS:
        L.append("- `%s`, after `%s`: %s — %s" % (new_id, after, md_quote(text), why))
    L.append("")
    L.append("## Deleted passages (%d)" % len(DELETIONS))
    L.append("")
    for doc, pid, old, why in DELETIONS:
        L.append("- `%s`: %s — %s" % (pid, md_quote(old), why))
    L.append("")
    L.append("## Removed document")
    L.append("")
    L.append("- `%s` \"%s\", %d passages — %s." % (
        removed_doc["id"], removed_doc["title"], len(removed_doc["passages"]),
        REMOVED_DOCUMENT[2]))
    L.append("")
    L.append("## Added document")
    L.append("")
    L.append("- `%s` \"%s\", %d passages, placed after `%s`: the poem as Eminescu printed it "
             "(Convorbiri literare, 1885). The corpus has only its sung arrangement "
             "(`%s`). The id shows the rule for a second document with the same title."
             % (added_doc["id"], added_doc["title"], len(added_doc["passages"]),
                ADDED_DOCUMENT["after"], ADDED_DOCUMENT["after"]))
    L.append("")
    return "\n".join(L)


def readme_md(ed1, ed2, poems, dup_groups, comps, origin, boiler):
    kept_docs = {p.header_line: slug for slug, p in origin.items()}
    L = []
    A = L.append
    A("# Sample content: Mihai Eminescu, *Poezii*")
    A("")
    A("Content sources for Marginalia's tests, demos and benchmarks: real, messy")
    A("Romanian verse in two editions, so that annotations can be made on one edition")
    A("and carried over to the next.")
    A("")
    A("This file, the JSON files and `CHANGES-2026.2.md` are generated by")
    A("`tools/make_samples.py`; change the script, not the outputs.")
    A("")
    A("| File | What |")
    A("|---|---|")
    A("| `eminescu-2026.1.json` | edition `%s`: %d documents, %d passages, faithful to the corpus |"
      % (EDITION_1, len(ed1["documents"]), n_passages(ed1)))
    A("| `eminescu-2026.2.json` | edition `%s`: %d documents, %d passages, a realistic update |"
      % (EDITION_2, len(ed2["documents"]), n_passages(ed2)))
    A("| `CHANGES-2026.2.md` | every change from edition 1 to edition 2, with counts |")
    A("| `tiny.json`, `tiny-2.json` | editions `tiny-1` / `tiny-2`: 2 documents, %d / %d passages, for fast unit tests |"
      % (n_passages(TINY_1), n_passages(TINY_2)))
    A("| `LICENSE-tiny-eminescu` | licence of the corpus compilation |")
    A("| `tools/make_samples.py` | the generator (Python 3, standard library only) |")
    A("")
    A("## Provenance and licence")
    A("")
    A("The poems are by Mihai Eminescu (1850–1889) and are in the public domain. The text")
    A("comes from `tiny-eminescu.txt` (160 poems), compiled by the GitHub repository")
    A("narcisaguran/tiny-eminescu under the MIT licence (copyright 2024 Narcisa Guran,")
    A("see `LICENSE-tiny-eminescu`) and scraped from a Romanian lyrics site. The added")
    A("document of edition 2 (`sara-pe-deal-2`) is the poem's printed text (1885),")
    A("also public domain. Some corpus poems may be misattributed to Eminescu by")
    A("the lyrics site (for example `imi-amintesc`); they are kept as they are.")
    A("")
    A("## Regenerating")
    A("")
    A("From the repository root:")
    A("")
    A("    python3 samples/tools/make_samples.py /work/shared/corpus/eminescu/tiny-eminescu.txt samples/")
    A("")
    A("The script is deterministic, validates what it wrote and prints a summary.")
    A("It copies `LICENSE` from the corpus directory to `LICENSE-tiny-eminescu`.")
    A("")
    A("## Format")
    A("")
    A("    {\"edition\": \"eminescu-2026.1\", \"language\": \"ro\", \"title\": \"Poezii\",")
    A("     \"documents\": [{\"id\": \"luceafarul\", \"title\": \"Luceafărul\",")
    A("                    \"passages\": [{\"id\": \"luceafarul.1\", \"text\": \"A fost odata ca-n povesti,\"}]}]}")
    A("")
    A("All strings are NFC. Soft hyphens and non-breaking hyphens are written as")
    A("`\\u00ad` / `\\u2011` escapes (so they can be seen); the parsed text contains the")
    A("characters themselves.")
    A("")
    A("## Ids")
    A("")
    A("- **Document id**: an ASCII slug of the title: lower case, diacritics folded")
    A("  (ă/â→a, î→i, ş/ș→s, ţ/ț→t, é→e), every run of other characters → `-`, trimmed:")
    A("  \"Odă (în metru antic)\" → `oda-in-metru-antic`. The slug is made from the proper")
    A("  title (see below), so restoring diacritics never changes it. A second document")
    A("  with the same slug gets `-2` (then `-3`, ...): `sara-pe-deal-2` in edition 2.")
    A("- **Passage id**: `<document id>.<n>`, n = 1, 2, 3, ... in reading order in the")
    A("  edition where the document first appears; one passage per verse line.")
    A("- **Stability**: a passage keeps its id in later editions even when its text")
    A("  changes. A new passage takes the next unused number of its document")
    A("  (`<id>.<max n + 1>`) but is placed at its reading position, so ids are not")
    A("  sorted inside a document. Ids of deleted passages and documents are never")
    A("  reused.")
    A("")
    A("## From the corpus to edition 1")
    A("")
    A("- One passage per non-blank line; blank lines (verse and stanza breaks) are")
    A("  dropped. The corpus's stanza breaks are unreliable anyway: many are lost, and")
    A("  the scraper marked them by appending `.` to the line (`Noapte bună!.`).")
    A("- Kept as they are: cedilla ş/ţ (most text) next to comma-below ș/ț (only")
    A("  `noi-amandoi-avem-acelasi-dascal`), 41 soft hyphens (all in")
    A("  `fata-n-gradina-de-aur`, where they stand for dashes), 7 non-breaking hyphens")
    A("  (`vorbeste-ncet`), poems without diacritics (`luceafarul`, `strigoii`, ...),")
    A("  old accents (`plăcé`), a starred-out word (`l***`), a stray `.` line, a stray")
    A("  HTTP chunk-size line `6984` splitting a verse in `strigoii`, date lines (`1876`).")
    A("- Removed: the lyrics site's \"Alte poezii de dragoste de Mihai Eminescu.\" box")
    A("  (%d lines) glued to the end of `luceafarul`; trailing spaces of titles." % boiler)
    A("- Duplicates: the corpus holds many poems two to five times (with and without")
    A("  diacritics, with \"...\" in the title, a typo more or less). Poems whose folded")
    A("  texts are at least %d%% similar are one poem; the copy with the most" % round(SAME_POEM * 100))
    A("  diacritics is kept (ties: the first; two ties decided by hand). `Sonete` only")
    A("  concatenates Sonet I-III and is dropped too. %d poems → %d documents."
      % (len(poems), len(ed1["documents"])))
    A("")
    A("| Kept (corpus line) | Document | Dropped copies (corpus line) |")
    A("|---|---|---|")
    for pick, others in dup_groups:
        A("| %s (%d) | `%s` | %s |" % (pick.title, pick.header_line, kept_docs[pick.header_line],
                                     "; ".join("%s (%d)" % (o.title, o.header_line) for o in others)))
    for comp, parts in comps:
        A("| %s | %s | %s (%d): concatenation of those |" % (
            ", ".join(p.title for p in parts), ", ".join("`%s`" % kept_docs[p.header_line] for p in parts),
            comp.title, comp.header_line))
    A("")
    A("- Titles: the scraper cut some titles at their first hyphen or apostrophe (\"S\"")
    A("  for \"S-a dus amorul\") and some lost their diacritics. The documents use the")
    A("  proper title:")
    A("")
    A("| Corpus title (line) | Title | Document |")
    A("|---|---|---|")
    for line, (raw, proper) in sorted(TITLE_FIXES.items()):
        A("| %s (%d) | %s | `%s` |" % (raw, line, proper, kept_docs[line]))
    A("")
    A("## Edition 2")
    A("")
    A("Cedilla → comma-below, soft hyphens removed, non-breaking hyphens → `-`,")
    A("trailing whitespace removed, %d lines reworded, %d inserted, %d deleted,"
      % (len(REWORDINGS), len(INSERTIONS), len(DELETIONS)))
    A("one document removed (`%s`) and one added" % REMOVED_DOCUMENT[0])
    A("(`sara-pe-deal-2`). Details and counts: `CHANGES-2026.2.md`.")
    A("")
    A("## tiny.json and tiny-2.json")
    A("")
    A("Hand-made (defined in the script) from lines of \"Mai am un singur dor\" and \"Noi")
    A("amândoi avem același dascăl!\": cedilla ş/ţ and comma-below ș/ț, ă/â/î, a soft")
    A("hyphen inside a word (`liniş\\u00adtea`, added by hand) and a %d-character line"
      % len(" ".join(_STANZA)))
    A("(a whole stanza joined with spaces). `tiny-2`: comma-below everywhere, soft")
    A("hyphen removed, `%s.1` reworded," % _DASCAL)
    A("`%s.2` deleted, `%s.5` inserted between `%s.3`" % (_DASCAL, _DOR, _DOR))
    A("and `%s.4`." % _DOR)
    A("")
    return "\n".join(L)


# ---------------------------------------------------------------------------
# Validation (runs on the files as written)
# ---------------------------------------------------------------------------

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class Invalid(Exception):
    pass


def check(cond, msg, *args):
    if not cond:
        raise Invalid(msg % args if args else msg)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def validate_content(ed, name):
    check(isinstance(ed, dict) and list(ed) == ["edition", "language", "title", "documents"],
          "%s: top-level keys must be edition, language, title, documents", name)
    for k in ("edition", "language", "title"):
        check(isinstance(ed[k], str) and ed[k].strip(), "%s: empty %s", name, k)
    check(isinstance(ed["documents"], list) and ed["documents"], "%s: no documents", name)
    doc_ids, pids = set(), set()
    for d in ed["documents"]:
        check(isinstance(d, dict) and list(d) == ["id", "title", "passages"],
              "%s: document keys must be id, title, passages", name)
        did = d["id"]
        check(isinstance(did, str) and SLUG_RE.match(did), "%s: bad document id %r", name, did)
        check(did not in doc_ids, "%s: duplicate document id %s", name, did)
        doc_ids.add(did)
        t = d["title"]
        check(isinstance(t, str) and t.strip() == t and t, "%s: bad title of %s: %r", name, did, t)
        check(unicodedata.is_normalized("NFC", t), "%s: title of %s not NFC", name, did)
        check(isinstance(d["passages"], list) and d["passages"], "%s: %s has no passages", name, did)
        pid_re = re.compile(r"^%s\.([1-9][0-9]*)$" % re.escape(did))
        for p in d["passages"]:
            check(isinstance(p, dict) and list(p) == ["id", "text"],
                  "%s: passage keys must be id, text (in %s)", name, did)
            pid, text = p["id"], p["text"]
            check(isinstance(pid, str) and pid_re.match(pid), "%s: bad passage id %r in %s", name, pid, did)
            check(pid not in pids and pid not in doc_ids, "%s: duplicate id %s", name, pid)
            pids.add(pid)
            check(isinstance(text, str) and text.strip(), "%s: empty passage %s", name, pid)
            check(unicodedata.is_normalized("NFC", text), "%s: %s not NFC", name, pid)
    return len(doc_ids), len(pids)


def pnum(pid):
    return int(pid.rsplit(".", 1)[1])


def validate_update(ed1, ed2, name, reworded, deleted, inserted, removed_docs, added_docs):
    """reworded: pid -> (old, new) or None; inserted: new pid -> anchor pid."""
    docs1 = {d["id"]: d for d in ed1["documents"]}
    docs2 = {d["id"]: d for d in ed2["documents"]}
    check(set(docs2) == (set(docs1) - set(removed_docs)) | set(added_docs),
          "%s: documents are not edition 1 - removed + added", name)
    check(not (set(added_docs) & set(docs1)), "%s: an added document id reuses an old one", name)
    seen_rew, seen_del, seen_ins = set(), set(), set()
    for did, d2 in docs2.items():
        for p in d2["passages"]:
            t = p["text"]
            check(not any(c in t for c in CEDILLA), "%s: cedilla letter left in %s", name, p["id"])
            check(SOFT_HYPHEN not in t and NB_HYPHEN not in t, "%s: U+00AD/U+2011 left in %s", name, p["id"])
            check(t == t.rstrip(), "%s: trailing whitespace in %s", name, p["id"])
        check(normalize2(d2["title"]) == d2["title"], "%s: title of %s not clean", name, did)
        if did not in docs1:
            continue
        d1 = docs1[did]
        check(d2["title"] == normalize2(d1["title"]), "%s: title of %s changed", name, did)
        t1 = {p["id"]: p["text"] for p in d1["passages"]}
        ids1 = [p["id"] for p in d1["passages"] if p["id"] not in deleted]
        ids2 = [p["id"] for p in d2["passages"]]
        check([i for i in ids2 if i not in inserted] == ids1,
              "%s: %s: surviving ids changed or moved", name, did)
        max1 = max(pnum(i) for i in t1)
        order = {pid: k for k, pid in enumerate(ids2)}
        for p in d2["passages"]:
            pid = p["id"]
            if pid in inserted:
                check(pid not in t1 and pnum(pid) > max1, "%s: inserted id %s reuses a number", name, pid)
                anchor = inserted[pid]
                check(order.get(anchor, -2) + 1 == order[pid], "%s: %s is not right after %s", name, pid, anchor)
                seen_ins.add(pid)
            elif pid in reworded:
                exp = reworded[pid]
                if exp is None:
                    check(p["text"] != normalize2(t1[pid]), "%s: %s not reworded", name, pid)
                else:
                    check(t1[pid] == exp[0] and p["text"] == exp[1], "%s: rewording of %s differs", name, pid)
                seen_rew.add(pid)
            else:
                check(p["text"] == normalize2(t1[pid]), "%s: unexpected change in %s", name, pid)
        seen_del |= set(t1) - set(ids2)
    check(seen_rew == set(reworded), "%s: rewordings not all applied", name)
    check(seen_ins == set(inserted), "%s: insertions not all applied", name)
    check(seen_del == set(deleted), "%s: deleted %s, expected %s", name, sorted(seen_del), sorted(deleted))


def recount(ed1, ed2, reworded, deleted, removed_docs):
    """Recompute the edition-2 counts from the files, independently of the build."""
    ids2 = {p["id"] for d in ed2["documents"] for p in d["passages"]}
    titles2 = {d["id"]: d["title"] for d in ed2["documents"]}
    c = {"cedilla": {ch: 0 for ch in CEDILLA}, "soft_hyphens": 0, "nb_hyphens": 0,
         "cedilla_titles": {ch: 0 for ch in CEDILLA}}
    for d in ed1["documents"]:
        if d["id"] in removed_docs:
            continue
        if d["id"] in titles2:
            for ch in CEDILLA:
                c["cedilla_titles"][ch] += d["title"].count(ch)
        for p in d["passages"]:
            if p["id"] in ids2 and p["id"] not in reworded:
                for ch in CEDILLA:
                    c["cedilla"][ch] += p["text"].count(ch)
                c["soft_hyphens"] += p["text"].count(SOFT_HYPHEN)
                c["nb_hyphens"] += p["text"].count(NB_HYPHEN)
    return c


def validate_all(out, corpus_verses, stats):
    p = lambda name: os.path.join(out, name)
    corpus_lines = set(corpus_verses)
    ed1, ed2 = load(p("eminescu-2026.1.json")), load(p("eminescu-2026.2.json"))
    t1, t2 = load(p("tiny.json")), load(p("tiny-2.json"))
    n1 = validate_content(ed1, "edition 1")
    n2 = validate_content(ed2, "edition 2")
    validate_content(t1, "tiny-1")
    validate_content(t2, "tiny-2")
    check(ed1["edition"] == EDITION_1 and ed2["edition"] == EDITION_2, "edition names")
    check(t1["edition"] == "tiny-1" and t2["edition"] == "tiny-2", "tiny edition names")
    for ed in (ed1, ed2, t1, t2):
        check(ed["language"] == "ro", "language must be ro")

    # edition 1 is the corpus text
    for d in ed1["documents"]:
        for q in d["passages"]:
            check(q["text"] in corpus_lines, "edition 1: %s is not a corpus line", q["id"])
    all1 = [q["text"] for d in ed1["documents"] for q in d["passages"]]
    check(sum(t.count(SOFT_HYPHEN) for t in all1) == 41, "edition 1 should keep the 41 soft hyphens")
    check(sum(t.count(NB_HYPHEN) for t in all1) == 7, "edition 1 should keep the 7 U+2011")
    check(any(ch in t for t in all1 for ch in COMMA_BELOW), "edition 1 should keep comma-below letters")

    # edition 2 against edition 1
    reworded = {pid: (old, new) for _d, pid, old, new, _k in REWORDINGS}
    deleted = {pid for _d, pid, _o, _w in DELETIONS}
    inserted = {pid: after for _d, pid, after, _t, _w in INSERTIONS}
    validate_update(ed1, ed2, "edition 2", reworded, deleted, inserted,
                    [REMOVED_DOCUMENT[0]], [stats["added"]])
    rc = recount(ed1, ed2, reworded, deleted, [REMOVED_DOCUMENT[0]])
    check(rc["cedilla"] == stats["cedilla"], "cedilla count: %s != %s", rc["cedilla"], stats["cedilla"])
    check(rc["cedilla_titles"] == stats["cedilla_titles"], "cedilla title count differs")
    check(rc["soft_hyphens"] == stats["soft_hyphens"] == 41, "soft hyphen count differs")
    check(rc["nb_hyphens"] == stats["nb_hyphens"] == 7, "U+2011 count differs")
    with open(p("CHANGES-2026.2.md"), encoding="utf-8") as f:
        changes = f.read()
    for needle in ("**%d**" % sum(rc["cedilla"].values()), "**%d**" % rc["soft_hyphens"],
                   "**%d**" % rc["nb_hyphens"], "| passages | %d | %d |" % (n1[1], n2[1]),
                   "| documents | %d | %d |" % (n1[0], n2[0]),
                   "## Reworded passages (%d)" % len(REWORDINGS),
                   "## Inserted passages (%d)" % len(INSERTIONS),
                   "## Deleted passages (%d)" % len(DELETIONS)):
        check(needle in changes, "CHANGES-2026.2.md does not state %r", needle)
    for _d, pid, _o, _n, _k in REWORDINGS:
        check("`%s`" % pid in changes, "CHANGES-2026.2.md does not list %s", pid)
    check(15 <= len(REWORDINGS) <= 25, "15-25 rewordings expected")
    check(len({d for d, *_ in REWORDINGS}) >= 5 and any(d == "luceafarul" for d, *_ in REWORDINGS),
          "rewordings must be spread over several poems, luceafarul included")

    # tiny
    texts = [q["text"] for d in t1["documents"] for q in d["passages"]]
    joined = "\n".join(texts)
    for ch in "ăâî":
        check(ch in joined, "tiny-1 lacks %s", ch)
    check(any(ch in joined for ch in "şŞ") and any(ch in joined for ch in "ţŢ"), "tiny-1 lacks cedilla ş/ţ")
    check(any(ch in joined for ch in "șȘ") and any(ch in joined for ch in "țȚ"), "tiny-1 lacks comma-below ș/ț")
    check(re.search(r"\w\u00ad\w", joined), "tiny-1 lacks a soft hyphen inside a word")
    check(max(len(t) for t in texts) >= 200, "tiny-1 lacks a 200+ character line")
    lines = corpus_verses
    for t in texts:
        t0 = t.replace(SOFT_HYPHEN, "")
        ok = t0 in corpus_lines or any(" ".join(lines[i:i + k]) == t0
                                       for k in range(2, 9) for i in range(len(lines) - k))
        check(ok, "tiny-1: %r is not from the corpus", t)
    validate_update(t1, t2, "tiny-2", {pid: None for pid in TINY_CHANGES["reworded"]},
                    TINY_CHANGES["deleted"],
                    {pid: _DOR + ".3" for pid in TINY_CHANGES["inserted"]}, [], [])
    return ed1, ed2, t1, t2


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: %s CORPUS.txt OUTPUT_DIR\n" % argv[0])
        return 2
    corpus, out = argv[1], argv[2]
    licence = os.path.join(os.path.dirname(os.path.abspath(corpus)), "LICENSE")
    if not os.path.isfile(licence):
        sys.stderr.write("no LICENSE next to %s\n" % corpus)
        return 2
    os.makedirs(out, exist_ok=True)

    poems = parse_corpus(corpus)
    boiler = sum(len(p.dropped_tail) for p in poems)
    kept, dup_groups, comps = dedupe(poems)
    ed1, origin = build_edition1(kept)
    ed2, stats = build_edition2(ed1)
    removed_doc = next(d for d in ed1["documents"] if d["id"] == REMOVED_DOCUMENT[0])
    added_doc = next(d for d in ed2["documents"] if d["id"] == stats["added"])

    write(os.path.join(out, "eminescu-2026.1.json"), dump_content(ed1))
    write(os.path.join(out, "eminescu-2026.2.json"), dump_content(ed2))
    write(os.path.join(out, "CHANGES-2026.2.md"),
          changes_md(ed1, ed2, stats, removed_doc, added_doc))
    write(os.path.join(out, "README.md"),
          readme_md(ed1, ed2, poems, dup_groups, comps, origin, boiler))
    write(os.path.join(out, "tiny.json"), dump_content(TINY_1))
    write(os.path.join(out, "tiny-2.json"), dump_content(TINY_2))
    shutil.copyfile(licence, os.path.join(out, "LICENSE-tiny-eminescu"))

    corpus_verses = [v for p in poems for v in p.verses]
    try:
        ed1, ed2, t1, t2 = validate_all(out, corpus_verses, stats)
    except Invalid as e:
        sys.stderr.write("VALIDATION FAILED: %s\n" % e)
        return 1

    ced = sum(stats["cedilla"].values())
    print("corpus: %d poems -> %d documents (%d duplicate copies and %d compilation dropped; "
          "%d boilerplate lines removed)"
          % (len(poems), len(ed1["documents"]), sum(len(o) for _p, o in dup_groups),
             len(comps), boiler))
    print("%s: %d documents, %d passages" % (EDITION_1, len(ed1["documents"]), n_passages(ed1)))
    print("%s: %d documents, %d passages" % (EDITION_2, len(ed2["documents"]), n_passages(ed2)))
    print("  cedilla -> comma-below: %d in passages (%s), %d in titles"
          % (ced, ", ".join("%s %d" % (c, n) for c, n in stats["cedilla"].items()),
             sum(stats["cedilla_titles"].values())))
    print("  soft hyphens removed: %d; U+2011 -> '-': %d; trailing whitespace trimmed: %d passages"
          % (stats["soft_hyphens"], stats["nb_hyphens"],
             stats["trailing_ws_passages"] + stats["soft_hyphen_trimmed"]))
    print("  reworded: %d, inserted: %d, deleted: %d passages; removed document: %s; added: %s"
          % (len(REWORDINGS), len(INSERTIONS), len(DELETIONS), REMOVED_DOCUMENT[0], stats["added"]))
    print("tiny-1: %d documents, %d passages; tiny-2: %d documents, %d passages"
          % (len(t1["documents"]), n_passages(t1), len(t2["documents"]), n_passages(t2)))
    print("validation: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
