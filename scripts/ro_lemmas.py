#!/usr/bin/env python3
"""Writes samples/ro-lemmas.tsv.gz, the Romanian lemma table a content build records word forms with.

Source: the Romanian Hunspell dictionary of LibreOffice's dictionaries (Debian's `hunspell-ro`, MPL-2.0:
/usr/share/hunspell/ro_RO.dic and ro_RO.aff). Every entry of the dictionary is expanded by its affix rules with
Hunspell's own `unmunch` (Debian's `hunspell-tools`), and each entry's forms make one line: the entry, then its
forms, separated by tabs. Entries with a single form are left out. The gzip file has no name and no time in its
header, so that the same dictionary always gives the same bytes.

    apt-get install -y hunspell-ro hunspell-tools
    python3 scripts/ro_lemmas.py [OUTPUT]
"""
import gzip
import subprocess
import sys

DIC = "/usr/share/hunspell/ro_RO.dic"
AFF = "/usr/share/hunspell/ro_RO.aff"


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else "samples/ro-lemmas.tsv.gz"
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
    lines = ["\t".join(group) for group in groups if len(group) > 1]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with open(output, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as compressed:
            compressed.write(data)
    print(f"{output}: {len(lines)} entries, {sum(len(g) for g in groups if len(g) > 1)} forms")


if __name__ == "__main__":
    main()
