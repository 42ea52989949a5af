"""Copies a content database (schema 2) and rebuilds its passages_fts with a second column, `stems`: each word of
the passage as the keys its folded form has in the content's vocabulary (every stem, and every lemma when the
vocabulary has lemmas), one token per key. "Every form of the word" is then one posting list (or one per key of
the typed form) instead of an OR over the forms. Prototype only: the library does not read this layout.

    python3 build_stems.py CONTENT_V2 OUTPUT
"""
import shutil
import sqlite3
import sys
import unicodedata

# A key as one token of the unicode61 tokenizer with remove_diacritics 2, injectively: a leading "0" (no word of a
# passage starts so, so the keys' postings are apart from the words'), a-z as is, Romanian letters with diacritics
# as a letter and a digit, the lemma mark "=" as "8", anything else as "9" and seven digits of its code point.
ESCAPES = {'ă': 'a1', 'â': 'a2', 'î': 'i2', 'ș': 's1', 'ț': 't1', '=': '8'}


def token(key):
    out = ['0']
    for c in key:
        if 'a' <= c <= 'z':
            out.append(c)
        elif c in ESCAPES:
            out.append(ESCAPES[c])
        else:
            out.append('9%07d' % ord(c))
    return ''.join(out)


def fold(word):
    """As Vocabulary.form: lowercase, no diacritics."""
    return ''.join(c for c in unicodedata.normalize('NFD', word) if unicodedata.category(c) != 'Mn').lower()


def words(text):
    """As Vocabulary.words: runs of letters and the marks inside them."""
    found, current = [], ''
    for c in text:
        if c.isalpha() or (current and unicodedata.category(c) == 'Mn'):
            current += c
        elif current:
            found.append(current)
            current = ''
    if current:
        found.append(current)
    return found


def main(source, output):
    shutil.copy(source, output)
    db = sqlite3.connect(output)
    keys = {}
    for form, stem in db.execute("SELECT form, stem FROM vocabulary"):
        keys.setdefault(form, set()).add(stem)
    rows = db.execute("SELECT rowid, c0 FROM passages_fts_content").fetchall()
    db.executescript("""
        DROP TABLE passages_fts;
        CREATE VIRTUAL TABLE passages_fts USING fts5(text, stems, tokenize = 'unicode61 remove_diacritics 2');
        """)
    with db:
        for rowid, text in rows:
            stems = [token(k) for w in words(text) for k in sorted(keys.get(fold(w), ()))]
            db.execute("INSERT INTO passages_fts (rowid, text, stems) VALUES (?, ?, ?)", (rowid, text, ' '.join(stems)))
    db.execute("INSERT INTO passages_fts (passages_fts) VALUES ('optimize')")
    db.commit()
    db.execute("VACUUM")


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
