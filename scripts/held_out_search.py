#!/usr/bin/env python3
"""Measures search in every form on Romanian text the project never tuned on, judged by a dictionary lemmatizer.

Text, read where Debian installs it (nothing of it is copied into the repository), one of two corpora:
`--corpus manpages`, the paragraphs of Debian's Romanian manual pages (`manpages-ro` 4.18.1-1, GPL and other free
licences), or `--corpus gimp-help`, the paragraphs of the GIMP user manual in Romanian (`gimp-help-ro` 2.10.34-2,
GFDL 1.2+, HTML under /usr/share/gimp/2.0/help/ro). Judge: Apertium's Romanian morphological analyser
(`apertium-es-ro` 0.7.5-1, its `ro-es.automorf.bin`, run with `lt-proc` from `lttoolbox`), which owes nothing to
the Snowball stemmer or the lemma table the content build records forms with (`scripts/ro_lemmas.py`: the Hunspell
dictionary and simplemma's lexicon, neither made from Apertium's).

Method: every paragraph of at least eight words is a passage of a content built with `marginalia content
build`. Queries are words of the text of four letters or more whose lemma the analyser knows and that occur
there in at least two forms; each is typed lowercase without diacritics, in the form it has in the text. A
passage is expected when one of its words shares a lemma with the word the query was typed from; found when
`marginalia search QUERY --limit 1000 --json` lists it. Recall and precision are averaged over the queries.

    apt-get install -y manpages-ro apertium-es-ro lttoolbox
    apt-get install -y --no-install-recommends gimp-help-ro      # for --corpus gimp-help
    swift build --product marginalia
    python3 scripts/held_out_search.py [--corpus manpages|gimp-help] [--queries 70] [--seed 1] [--marginalia PATH]
"""
import argparse
import gzip
import html.parser
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unicodedata

MAN = "/usr/share/man/ro"
GIMP_HELP = "/usr/share/gimp/2.0/help/ro"
ANALYSER = "/usr/share/apertium/apertium-es-ro/ro-es.automorf.bin"
WORD = re.compile(r"[^\W\d_]+(?:[\u0300-\u036f][^\W\d_]*)*")


def paragraphs():
    """The paragraphs of every Romanian manual page, in a fixed order, roff requests and escapes left out."""
    for section in sorted(os.listdir(MAN)):
        for name in sorted(os.listdir(os.path.join(MAN, section))):
            path = os.path.join(MAN, section, name)
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8", errors="replace") as file:
                current = []
                for line in file:
                    line = line.rstrip("\n")
                    if line.startswith((".", "'")):
                        if line[1:3] in ("PP", "SH", "SS", "TP", "IP", "LP", "P ", "P") or line.strip() == ".P":
                            yield " ".join(current)
                            current = []
                        continue
                    line = re.sub(r"\\f[BIRP]|\\f\(..|\\[&-]|\\\(..|\\e|\\c", "", line)
                    current.append(line.replace("\\-", "-"))
                yield " ".join(current)


class ParagraphParser(html.parser.HTMLParser):
    """The text of an HTML page's `<p>` elements, one paragraph each, tags left out."""

    def __init__(self):
        super().__init__()
        self.paragraphs, self.current = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "p":
            self.current = []

    def handle_endtag(self, tag):
        if tag == "p" and self.current is not None:
            self.paragraphs.append("".join(self.current))
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current.append(data)


def help_paragraphs():
    """The paragraphs of every page of the GIMP manual in Romanian, in a fixed order."""
    for name in sorted(os.listdir(GIMP_HELP)):
        if name.endswith(".html"):
            parser = ParagraphParser()
            with open(os.path.join(GIMP_HELP, name), encoding="utf-8", errors="replace") as file:
                parser.feed(file.read())
            yield from parser.paragraphs


def fold(word):
    """Lowercase, without diacritics: as a reader types."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def analyse(words):
    """Each word's lemmas by the analyser (lowercase); a word it does not know has none."""
    text = "\n".join(words) + "\n"
    output = subprocess.run(["lt-proc", ANALYSER], input=text.encode("utf-8"), capture_output=True,
                            check=True).stdout.decode("utf-8")
    lemmas = {}
    for unit in re.findall(r"\^([^$]*)\$", output):
        surface, *readings = unit.split("/")
        known = {reading.split("<")[0].lower() for reading in readings if not reading.startswith("*")}
        lemmas[surface] = known
    return lemmas


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["manpages", "gimp-help"], default="manpages")
    parser.add_argument("--queries", type=int, default=70)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passages", type=int, default=400)
    parser.add_argument("--marginalia", default=".build/debug/marginalia")
    parser.add_argument("--lemmas", help="the lemma table for content build (default: the bundled one)")
    parser.add_argument("--keep", help="a directory to keep the content source and database in, to look into")
    options = parser.parse_args()

    passages = []
    for paragraph in (paragraphs() if options.corpus == "manpages" else help_paragraphs()):
        text = unicodedata.normalize("NFC", re.sub(r"\s+", " ", paragraph).strip())
        if len(WORD.findall(text)) >= 8 and re.search(r"[ăâîșşțţ]", text.lower()):
            passages.append(text)
    passages = passages[: options.passages]
    tokens = [[w.lower() for w in WORD.findall(text)] for text in passages]
    vocabulary = sorted({w for words in tokens for w in words})
    lemmas = analyse(vocabulary)

    forms_of = {}
    for word in vocabulary:
        for lemma in lemmas.get(word, ()):
            forms_of.setdefault(lemma, set()).add(word)
    candidates = [w for w in vocabulary if len(w) >= 4 and lemmas.get(w)
                  and any(len(forms_of[lemma]) >= 2 for lemma in lemmas[w])]
    rng = random.Random(options.seed)
    queries = rng.sample(candidates, min(options.queries, len(candidates)))

    with tempfile.TemporaryDirectory() as temporary:
        work = options.keep or temporary
        os.makedirs(work, exist_ok=True)
        source = os.path.join(work, "held-out.json")
        with open(source, "w", encoding="utf-8") as file:
            json.dump({"edition": "held-out-1", "language": "ro", "title": "Pagini de manual",
                       "documents": [{"id": "man", "title": "Pagini de manual", "passages": [
                           {"id": f"man.{i + 1}", "text": text} for i, text in enumerate(passages)]}]}, file)
        content = os.path.join(work, "content.db")
        env = dict(os.environ, MARGINALIA_STORE=os.path.join(work, "user.db"))
        table = ["--lemmas", options.lemmas] if options.lemmas else []
        subprocess.run([options.marginalia, "content", "build", source, "-o", content, "--force"] + table,
                       check=True, env=env, capture_output=True)
        recalls, precisions = [], []
        for word in sorted(queries):
            typed = fold(word)
            expected = {f"man.{i + 1}" for i, words in enumerate(tokens)
                        if any(lemmas.get(w, set()) & lemmas[word] for w in words)}
            result = subprocess.run([options.marginalia, "--content", content, "search", typed, "--limit", "1000",
                                     "--json"], env=env, capture_output=True, check=True)
            found = {hit["passage"] for hit in json.loads(result.stdout)["hits"]}
            recall = len(found & expected) / len(expected) if expected else 1.0
            precision = len(found & expected) / len(found) if found else (1.0 if not expected else 0.0)
            recalls.append(recall)
            precisions.append(precision)
            print(f"  {typed} (from {word}, lemma {'/'.join(sorted(lemmas[word]))}): {len(expected)} expected, "
                  f"{len(found)} found, recall {recall:.2f} precision {precision:.2f}")
    print(f"{options.corpus}: {len(passages)} passages, {len(queries)} queries (seed {options.seed}): "
          f"mean recall {sum(recalls) / len(recalls):.3f}, mean precision {sum(precisions) / len(precisions):.3f}")


if __name__ == "__main__":
    sys.exit(main())
