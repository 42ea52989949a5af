"""100 queries made as marginalia-bench makes them (60 single words of five letters or more with a diacritic, typed
without it; 20 pairs; 10 two-word phrases; 10 four-letter prefixes; from the sample's lines; Python's own seeded
generator, so not the benchmark's very queries), each with the statements' arguments as SearchQuery writes them:
the words as typed, today's widest expression (forms from the vocabulary) and rank function, and the widest
expression with the stems column instead (the keys of the typed form, only when another form shares one, as
today's forms tier exists only then) and its rank function. One line a query, separated by tabs.

    python3 queries.py SAMPLE_CONTENT CONTENT_V2 OUTPUT [--no-prefix] [--no-forms]
"""
import random
import re
import sqlite3
import sys

from build_stems import token

FORMS = """SELECT DISTINCT other.form FROM vocabulary typed JOIN vocabulary other ON other.stem = typed.stem
    WHERE typed.form = ?1 ORDER BY other.form"""
KEYS = """SELECT DISTINCT typed.stem FROM vocabulary typed WHERE typed.form = ?1 AND EXISTS (
    SELECT 1 FROM vocabulary other WHERE other.stem = typed.stem AND other.form <> typed.form) ORDER BY typed.stem"""


def strip_diacritics(text):
    import unicodedata
    return ''.join(c for c in unicodedata.normalize('NFD', text) if unicodedata.category(c) != 'Mn')


def words_in(line):
    return [w.strip('-') for w in re.split(r"[^\w-]|[\d_]", line) if w.strip('-')]


def quoted(text):
    return '"' + text.replace('"', '""') + '"'


def make_queries(lines):
    random.seed(1)
    searchable = sorted({w.lower() for line in lines for w in words_in(line)
                         if len(w) >= 5 and strip_diacritics(w.lower()) != w.lower() and '-' not in w})
    queries = []
    while len(queries) < 100:
        roll = len(queries) % 10
        if roll < 6:
            queries.append(strip_diacritics(random.choice(searchable)))
            continue
        typed = [strip_diacritics(w.lower()) for w in words_in(random.choice(lines))]
        longer = [w for w in typed if len(w) >= 3 and '-' not in w]
        if len(typed) < 2 or len(longer) < 2:
            continue
        if roll in (6, 7):
            first = random.choice(longer)
            queries.append(f"{first} {random.choice([w for w in longer if w != first] or [first])}")
        elif roll == 8:
            start = random.randrange(len(typed) - 1)
            queries.append(f'"{typed[start]} {typed[start + 1]}"')
        else:
            queries.append(random.choice(longer)[:4] + '*')
    return queries


def expressions(query, others_of, prefixes, forms):
    """The words as typed, the widest expression, its rank tree and the plain words, as SearchQuery makes them."""
    if query.startswith('"'):
        return quoted(query[1:-1]), quoted(query[1:-1]), "&1 |1 0:0", []
    if query.endswith('*'):
        return quoted(query[:-1]) + ' *', quoted(query[:-1]) + ' *', "&1 |1 0:0", []
    plain, widest, trees, words = [], [], [], []
    phrase = 0
    for word in query.split():
        words.append(word)
        others = [t for t in others_of(word) if t != quoted(word)] if forms else []
        variant, leaves = quoted(word), [f"{phrase}:0"]
        phrase += 1
        if others:
            variant = "(" + " OR ".join([quoted(word)] + others) + ")"
            leaves += [f"{phrase + i}:1" for i in range(len(others))]
            phrase += len(others)
        if len(word) >= 4 and prefixes:
            variant = f"({variant} OR {quoted(word)} *)"
            leaves.append(f"{phrase}:2")
            phrase += 1
        plain.append(quoted(word))
        widest.append(variant)
        trees.append(f"|{len(leaves)} " + " ".join(leaves))
    return " AND ".join(plain), " AND ".join(widest), f"&{len(trees)} " + " ".join(trees), words


def main(sample, content, output, prefixes=True, forms=True):
    lines = [text for (text,) in sqlite3.connect(sample).execute("SELECT text FROM passages")]
    db = sqlite3.connect(content)
    today = lambda w: [quoted(f) for (f,) in db.execute(FORMS, (w,))]
    stems = lambda w: [quoted(token(k)) for (k,) in db.execute(KEYS, (w,))]
    with open(output, 'w') as out:
        for query in make_queries(lines):
            plain, old, old_tree, words = expressions(query, today, prefixes, forms)
            _, new, new_tree, _ = expressions(query, stems, prefixes, forms)
            out.write("\t".join([query, plain, old, f"marginalia_rank('{old_tree}')", new,
                                 f"marginalia_rank('{new_tree}')", " ".join(words)]) + "\n")


if __name__ == '__main__':
    flags = sys.argv[4:]
    main(sys.argv[1], sys.argv[2], sys.argv[3], prefixes='--no-prefix' not in flags, forms='--no-forms' not in flags)
