#!/usr/bin/env python3
"""Writes samples/ro-lemmas.tsv.gz, the Romanian lemma table a content build records word forms with.

Two sources, merged by lemma:

- The Romanian Hunspell dictionary of LibreOffice's dictionaries (Debian's `hunspell-ro` 1:7.5.0-1, MPL-2.0:
  /usr/share/hunspell/ro_RO.dic and ro_RO.aff), for the regular paradigms. Every entry of the dictionary is
  expanded by its affix rules with Hunspell's own `unmunch` (Debian's `hunspell-tools`); the entry is the lemma.
- The Romanian full-form lexicon of simplemma (PyPI `simplemma` 2.0.0, code MIT; its data are lemmatization lists
  from Michal Měchura's lemmatization-lists (ODbL 1.0), Wiktionary through Kaikki (CC BY-SA), FreeLing, spaCy's
  lookups data and UniMorph: see its README's "Credits and licenses"), for what affix rules do not give: irregular
  and suppletive verbs (`are`, `au`, `avut` of `avea`; `sunt`, `era`, `fost` of `fi`), participles (`deschis` of
  `deschide`), forms of nouns made from adverbs (`binelui`) and the old orthography (`cîți`, `sînt`). Only its
  dictionary is read (form → lemma), never its rules.

A participle that is a lemma of its own (an adjective: `făcut`, with `făcute`, `făcuți`) and that simplemma's
lexicon gives as a form of a verb (`face`) has its forms listed under the verb too.

Both are written as today's orthography writes ș and ț (comma below; the cedilla letters ş ţ are the same letters
encoded before 2003), lowercase and NFC; a lemma written with î inside the word (`cît`) is written with â (`cât`),
so that both spellings of a word share a lemma. Forms with anything other than Romanian letters (a hyphen, an
apostrophe, a Cyrillic look-alike) are left out: a content build splits words there, so they could never match.
Each lemma makes one line, the lemma and then its other forms sorted, separated by tabs; lemmas are sorted, and a
lemma with no other form is left out. The gzip file has no name and no time in its header, so that the same
sources always give the same bytes.

    apt-get install -y hunspell-ro hunspell-tools
    python3 -m pip install simplemma==2.0.0
    python3 scripts/ro_lemmas.py [OUTPUT]
"""
import gzip
import re
import subprocess
import sys
import unicodedata

DIC = "/usr/share/hunspell/ro_RO.dic"
AFF = "/usr/share/hunspell/ro_RO.aff"
ROMANIAN = re.compile(r"[a-zăâîșț]+")


def normalized(word):
    """`word` lowercase, NFC, with comma-below ș ț; None when it holds anything other than Romanian letters."""
    word = unicodedata.normalize("NFC", word.lower()).replace("ş", "ș").replace("ţ", "ț")
    return word if ROMANIAN.fullmatch(word) else None


def modern_lemma(word):
    """A lemma in today's orthography: î inside the word as â (`cît` → `cât`)."""
    return word[:1] + word[1:-1].replace("î", "â") + word[-1:] if len(word) > 2 else word


def hunspell_groups():
    """The entries of the Hunspell dictionary, each with the forms its affix rules give (the entry first)."""
    with open(DIC, encoding="utf-8") as file:
        roots = [line.split("/")[0].strip() for line in file.read().split("\n")[1:] if line.strip()]
    expanded = subprocess.run(["unmunch", DIC, AFF], check=True, capture_output=True).stdout.decode("utf-8")
    groups, current, next_root = [], None, 0
    # unmunch writes each entry's own word first, then the forms its flags give, entry after entry.
    for form in (line.strip() for line in expanded.split("\n")):
        if not form:
            continue
        if next_root < len(roots) and form == roots[next_root]:
            current = [form]
            groups.append(current)
            next_root += 1
        elif current is not None and form not in current:
            current.append(form)
    if next_root != len(roots):
        sys.exit(f"unmunch gave {next_root} of the {len(roots)} entries: the table would be misaligned")
    return groups


def simplemma_pairs():
    """simplemma's Romanian dictionary, as (form, lemma) pairs."""
    from simplemma.strategies.dictionaries.dictionary_factory import _load_dictionary_from_disk
    return [(form.decode("utf-8"), lemma.decode("utf-8")) for form, lemma in _load_dictionary_from_disk("ro").items()]


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else "samples/ro-lemmas.tsv.gz"
    forms_of = {}

    def add(lemma, form):
        lemma, form = normalized(lemma), normalized(form)
        if lemma is None or form is None:
            return
        lemma = modern_lemma(lemma)
        forms_of.setdefault(lemma, set()).add(form)

    for group in hunspell_groups():
        for form in group:
            add(group[0], form)
    pairs = simplemma_pairs()
    for form, lemma in pairs:
        add(lemma, form)
        add(lemma, lemma)
    # A participle that is a lemma of its own (the adjective `făcut`: `făcute`, `făcuți`) is also a form of its
    # verb (`face`) when simplemma's lexicon says so: its forms join the verb's, one step only.
    verb_of = {}
    for form, lemma in pairs:
        form, lemma = normalized(form), normalized(lemma)
        if form and lemma and form.endswith(("t", "s")) and modern_lemma(lemma) != form:
            verb_of[form] = modern_lemma(lemma)
    participles = {lemma: set(forms) for lemma, forms in forms_of.items() if verb_of.get(lemma) in forms_of}
    for participle, forms in sorted(participles.items()):
        forms_of[verb_of[participle]] |= forms
    lines = []
    for lemma in sorted(forms_of):
        others = sorted(forms_of[lemma] - {lemma})
        if others:
            lines.append("\t".join([lemma] + others))
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with open(output, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as compressed:
            compressed.write(data)
    print(f"{output}: {len(lines)} lemmas, {sum(line.count(chr(9)) + 1 for line in lines)} forms, "
          f"{len(data)} bytes before compression")


if __name__ == "__main__":
    main()
