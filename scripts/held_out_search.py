#!/usr/bin/env python3
"""Measures search in every form on Romanian text the project never tuned on, judged by a dictionary lemmatizer.

Text: the paragraphs of Debian's Romanian manual pages (`manpages-ro`, GPL and other free licences, read where
the package installs them; nothing of it is copied into the repository). Judge: Apertium's Romanian
morphological analyser (`apertium-es-ro`, its `ro-es.automorf.bin`, run with `lt-proc` from `lttoolbox`), which
owes nothing to the Snowball stemmer or the Hunspell table the content build records forms with.

Method: every paragraph of at least eight words is a passage of a content built with `marginalia content
build`. Queries are words of the text of four letters or more whose lemma the analyser knows and that occur
there in at least two forms; each is typed lowercase without diacritics, in the form it has in the text. A
passage is expected when one of its words shares a lemma with the word the query was typed from; found when
`marginalia search QUERY --limit 1000 --json` lists it. Recall and precision are averaged over the queries.

    apt-get install -y manpages-ro apertium-es-ro lttoolbox
    swift build --product marginalia
    python3 scripts/held_out_search.py [--queries 70] [--seed 1] [--marginalia PATH]
"""
import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unicodedata

MAN = "/usr/share/man/ro"
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
    parser.add_argument("--queries", type=int, default=70)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passages", type=int, default=400)
    parser.add_argument("--marginalia", default=".build/debug/marginalia")
    options = parser.parse_args()

    passages = []
    for paragraph in paragraphs():
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

    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "held-out.json")
        with open(source, "w", encoding="utf-8") as file:
            json.dump({"edition": "held-out-1", "language": "ro", "title": "Pagini de manual",
                       "documents": [{"id": "man", "title": "Pagini de manual", "passages": [
                           {"id": f"man.{i + 1}", "text": text} for i, text in enumerate(passages)]}]}, file)
        content = os.path.join(work, "content.db")
        env = dict(os.environ, MARGINALIA_STORE=os.path.join(work, "user.db"))
        subprocess.run([options.marginalia, "content", "build", source, "-o", content], check=True, env=env,
                       capture_output=True)
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
    print(f"{len(passages)} passages, {len(queries)} queries (seed {options.seed}): "
          f"mean recall {sum(recalls) / len(recalls):.3f}, mean precision {sum(precisions) / len(precisions):.3f}")


if __name__ == "__main__":
    sys.exit(main())
