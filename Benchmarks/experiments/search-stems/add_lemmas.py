"""Copies a content database and adds the lemma pairs Vocabulary.addLemmas would (`=lemma` beside each form of the
content that a line of the lemma table holds), for content the benchmark built without a lemma table.

    python3 add_lemmas.py CONTENT OUTPUT samples/ro-lemmas.tsv.gz
"""
import gzip
import shutil
import sqlite3
import sys

from build_stems import fold, words


def modernized(word):
    """As RomanianStemmer.modernized, near enough: ş ţ as ș ț, î inside a word as â."""
    word = word.replace('ş', 'ș').replace('ţ', 'ț')
    return word[0] + word[1:-1].replace('î', 'â') + word[-1] if len(word) > 2 else word


def main(source, output, table):
    shutil.copy(source, output)
    db = sqlite3.connect(output)
    content = {modernized(w.lower()) for (text,) in db.execute("SELECT text FROM passages") for w in words(text)}
    pairs = set()
    for line in gzip.open(table, 'rt', encoding='utf-8'):
        forms = line.rstrip('\n').split('\t')
        for form in forms:
            if form in content:
                pairs.add((fold(form), '=' + forms[0]))
    with db:
        db.executemany("INSERT OR IGNORE INTO vocabulary (form, stem, folded_stem) VALUES (?, ?, ?)",
                       [(form, stem, fold(stem)) for form, stem in pairs])


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3])
