#!/usr/bin/env bash
# Checks the Python reference (marginalia_ref.py) against the Swift tool, and the archive schemas
# (scripts/validate_archive.py) against the Swift reader:
#   1. a store built with the Swift tool (creates, edits, tags, deletes, undeletes, reattach, bookmarks,
#      positions) exports to the same lines with both, apart from the header's createdAt; both validate;
#   2. the reference imports the Swift export into a new store and into an empty Swift-made store: the Swift
#      `verify` passes, `list --json --deleted` and every table equal the original, re-exports are identical;
#   3. merges of diverged stores, a partial archive (changes waiting for their create), a re-import, a copied
#      store's own device id, and a large shuffled synthetic archive (one of its devices first seen after the
#      first batch) give the same tables, byte for byte (device numbers, clocks blobs, digests), and the same
#      import report (`marginalia --json import`) with both importers;
#   4. hand-broken archives are refused by the Swift import, the reference import and the validator alike, and
#      unusual but valid ones accepted by all three (with the same resulting tables).
#
#   Benchmarks/reference/check_reference.sh            # builds the Swift tool with `swift build`
#   MARGINALIA=/path/to/marginalia Benchmarks/reference/check_reference.sh
#   KEEP_WORK=1 ...                                     # keep the stores and archives it made
#
# Needs python3; step 4 and the validation also need the jsonschema package. Exits non-zero on any difference.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REF="$HERE/marginalia_ref.py"
VALIDATE="$ROOT/scripts/validate_archive.py"
if [ -z "${MARGINALIA:-}" ]; then
    (cd "$ROOT" && swift build >&2)
    MARGINALIA="$ROOT/.build/debug/marginalia"
fi
WORK=$(mktemp -d)
if [ -n "${KEEP_WORK:-}" ]; then echo "work directory: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
cd "$WORK"
FAILED=0
PASSED=0
pass() { PASSED=$((PASSED + 1)); echo "ok: $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*"; }
# A store is created on first use: the tool refuses a --store that names no file but for `init`.
m() {
    local store=$1; shift
    [ -e "$store" ] || "$MARGINALIA" --store "$store" init >/dev/null
    "$MARGINALIA" --store "$store" --content "$WORK/c.db" "$@"
}
copy_store() { for suffix in "" -wal -shm; do [ ! -e "$1$suffix" ] || cp "$1$suffix" "$2$suffix"; done; }
HAVE_JSONSCHEMA=1
python3 -c 'import jsonschema' 2>/dev/null || { HAVE_JSONSCHEMA=0; echo "note: no jsonschema module; skipping validation"; }

cat > helper.py <<'PY'
import gzip, json, random, re, sqlite3, sys, time, uuid

def lines(path):
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        return f.read().split("\n")[:-1]

def write(path, out):
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in out))

def dump(path):
    """Every table but the full-text index, with the meta rows that differ between stores left out. The stores
    compared hold the same devices in the same order of first change, so their store-local numbers (devices.number,
    changes.device, the device numbers inside annotations.clocks) must agree too: rows are compared as stored, the
    clocks blob byte for byte (as hex). annotations.number (the notes index's rowid) is left out: it follows the
    order a projection writes rows in (id order for the Swift import into an empty store, which projects the whole
    log at once), which is not part of the state."""
    db = sqlite3.connect(path)
    annotation_columns = ", ".join(row[1] for row in db.execute("PRAGMA table_info(annotations)")
                                   if row[1] != "number")
    # newest_own_wall is this machine's own fact (its clock's newest local write), not the log's: a store that only
    # imported has none. What the adapters keep (adapter_state: the store's file identity) is not dumped.
    for sql in ("SELECT key, value FROM meta WHERE key NOT IN ('device_id', 'created_at', 'newest_own_wall') "
                "ORDER BY key",
                "SELECT number, id FROM devices ORDER BY number",
                # The receipt differs between the store that made a change and one that imported it.
                "SELECT seq, change_id, hlc, device, entity, entity_id, op, fields, digest FROM changes ORDER BY seq",
                f"SELECT {annotation_columns} FROM annotations ORDER BY id",
                "SELECT * FROM positions ORDER BY document"):
        for row in db.execute(sql):
            print(json.dumps([value.hex() if isinstance(value, bytes) else value for value in row],
                             ensure_ascii=False))

def synth(path, count):
    """A shuffled archive of `count` changes from three devices: creates after their edits, deletes,
    undeletes, tags, reanchors, positions, duplicate stamps' tie-breaks."""
    rng = random.Random(7)
    devices = ["dev-a", "dev-b", "dev-c"]
    base = time.time_ns() // 1_000_000 - 86_400_000
    ids = [f"ann-{i:05d}" for i in range(count // 8)]
    changes = []
    def add(entity, entity_id, op, fields, ms=None):
        ms = base + rng.randrange(80_000_000) if ms is None else ms
        changes.append({"type": "change", "changeId": str(uuid.UUID(int=rng.getrandbits(128))),
                        "hlc": f"{ms:015d}-{rng.randrange(3):05d}", "device": rng.choice(devices), "entity": entity,
                        "entityId": entity_id, "op": op, "fields": fields})
    def anchor(passage):
        start = rng.randrange(20)
        return {"document": "d", "start": {"passage": passage, "offset": start},
                "end": {"passage": passage, "offset": start + rng.randrange(9)}, "quote": "q\u0103\"\\",
                "prefix": "", "suffix": "s", "edition": rng.choice(["t-1", "t-2"])}
    for aid in ids:
        fields = {"kind": rng.choice(["highlight", "note", "bookmark"]), **anchor("d.1")}
        if rng.random() < 0.5:
            fields["tags"] = {"t%d" % rng.randrange(5): True}
        add("annotation", aid, "create", fields)
    while len(changes) < count:
        roll = rng.random()
        aid = rng.choice(ids + ["orphan-%d" % rng.randrange(50)])
        if roll < 0.35:
            fields = {}
            if rng.random() < 0.6: fields["note"] = rng.choice(["", "n\u00e9", "tab\there", "x" * rng.randrange(40)])
            if rng.random() < 0.4: fields["color"] = rng.choice(["", "red", "blue"])
            if rng.random() < 0.5 or not fields:
                fields["tags"] = {"t%d" % rng.randrange(5): rng.random() < 0.6 for _ in range(rng.randrange(1, 3))}
            add("annotation", aid, "edit", fields)
        elif roll < 0.5:
            add("annotation", aid, "delete", {"deleted": True})
        elif roll < 0.6:
            add("annotation", aid, "undelete", {"deleted": False})
        elif roll < 0.7:
            add("annotation", aid, rng.choice(["reanchor", "reattach"]), anchor(rng.choice(["d.1", "d.2"])))
        elif roll < 0.8:
            add("position", rng.choice(["d", "e", "f"]), "set", {"passage": "d.2", "offset": rng.randrange(30)})
        else:  # same millisecond and counter as another change: device then change id break the tie
            other = rng.choice(changes)
            add("annotation", other["entityId"] if other["entity"] == "annotation" else aid, "edit",
                {"note": "tie"}, ms=int(other["hlc"][:15]))
    rng.shuffle(changes)
    # A fourth device, first seen after the importers' first batch of changes: a device is numbered with the batch
    # that brings its first change (each batch's new devices in sorted order), so "dev-0" comes after dev-a..c.
    for change in changes[1500::97]:
        change["device"] = "dev-0"
    header = {"type": "header", "format": "marginalia-archive", "formatVersion": 1, "device": "dev-a",
              "createdAt": "2026-01-01T00:00:00.000Z", "schemaVersion": 1, "editions": ["t-1", "t-2"], "partial": True}
    trailer = {"type": "trailer", "counts": {"change": len(changes), "annotation": 0, "position": 0}}
    write(path, [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in [header, *changes, trailer]])

def mutate(source, target, name):
    """One hand-made variant of a full export; returns nothing, writes `target`."""
    out = [json.loads(line) for line in lines(source)]
    raw = None
    first = lambda pred: next(i for i, r in enumerate(out) if pred(r))
    change = lambda op: first(lambda r: r["type"] == "change" and r["op"] == op)
    annotation, trailer = first(lambda r: r["type"] == "annotation"), len(out) - 1
    edit = change("edit")
    if name == "empty-tags": out[edit]["fields"] = {"tags": {}}
    elif name == "short-hlc": out[1]["hlc"] = out[1]["hlc"][1:]
    elif name == "header-extra-key": out[0]["extra"] = 1
    elif name == "float-offset": out[first(lambda r: r["type"] == "position")]["offset"] = 3.0
    elif name == "trailer-count": out[trailer]["counts"]["change"] += 1
    elif name == "change-after-state": out.insert(annotation + 1, out.pop(1))
    elif name == "delete-false": out[change("delete")]["fields"]["deleted"] = False
    elif name == "reanchor-no-edition": out[change("reattach")]["fields"].pop("edition")
    elif name == "set-on-annotation": out[change("set")]["entity"] = "annotation"
    elif name == "device-newline": out[1]["device"] += "\n"
    elif name == "device-space": out[1]["device"] = "a b"
    elif name == "end-before-start":
        f = out[change("create")]["fields"]; f["end"] = {"passage": f["start"]["passage"], "offset": 0}
        f["start"]["offset"] = 5
    elif name == "document-space": out[change("create")]["fields"]["document"] = " d"
    elif name == "long-color": out[edit]["fields"] = {"color": "c" * 65}
    elif name == "bad-date": out[0]["createdAt"] = "2026-02-29T00:00:00Z"
    elif name == "note-null": out[edit]["fields"] = {"note": None}
    elif name == "tag-control": out[edit]["fields"] = {"tags": {"a\u0007b": True}}
    elif name == "future-hlc":
        # Made two days ahead: its clock, and (format 3 on) when it was made, which is what the reader judges.
        ahead = time.time_ns() // 1_000_000 + 2 * 86_400_000
        out[edit]["hlc"] = "%015d-00000" % ahead
        out[edit]["madeAt"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ahead // 1000)) + ".%03dZ" % (ahead % 1000)
    elif name == "newer-format": out[0]["formatVersion"] = 5  # one past the format this version writes
    elif name == "kind-in-edit": out[edit]["fields"]["kind"] = "note"
    elif name == "no-trailer": out.pop()
    elif name == "long-prefix": out[change("create")]["fields"]["prefix"] = "\u0103" * 600
    elif name == "surrogate": out[edit]["fields"]["note"] = "SURROGATE"; raw = "surrogate"
    elif name == "duplicate-key": raw = "duplicate-key"
    elif name == "nan": raw = "nan"
    # Valid, if unusual:
    elif name == "ok-leap-day-space": out[0]["createdAt"] = "2024-02-29 12:00"
    elif name == "ok-zone": out[0]["createdAt"] = "2026-11-29T12:14:41,5+0200"
    elif name == "ok-key-order":
        f = out[change("create")]["fields"]; out[change("create")]["fields"] = dict(reversed(list(f.items())))
        out[edit] = dict(reversed(list(out[edit].items())))
    elif name == "ok-filter": out[0]["filter"] = {}
    elif name == "ok-unsorted-tags":
        i = first(lambda r: r["type"] == "change" and len(r["fields"].get("tags", {})) > 1)
        out[i]["fields"]["tags"] = dict(reversed(list(out[i]["fields"]["tags"].items())))
    elif name == "ok-64-char-color":
        # The edit now sets another value than the state records show: mark the file partial, so that an import
        # into an empty store does not compare them.
        out[edit]["fields"] = {"color": "\u0103" * 64}; out[0]["partial"] = True
    else: raise SystemExit("unknown mutation " + name)
    text = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in out]
    if raw == "surrogate": text[edit] = text[edit].replace('"SURROGATE"', '"x\\ud800"')
    if raw == "duplicate-key": text[edit] = text[edit].replace('"fields":{', '"op":"edit","fields":{', 1)
    if raw == "nan": text[trailer] = re.sub('"position":[0-9]+', '"position":NaN', text[trailer])
    write(target, text)

if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "dump": dump(args[0])
    elif command == "synth": synth(args[0], int(args[1]))
    elif command == "mutate": mutate(*args)
    elif command == "count": print(sqlite3.connect(args[0]).execute("SELECT count(*) FROM changes").fetchone()[0])
    elif command == "body":
        # The receipts (format 4) say how the writing store got its changes, which differs between the store that
        # made them and one that imported them: the records compared are the rest.
        print("\n".join(re.sub(r',"receipt":[0-9]+}$', "}", line) for line in lines(args[0])[1:]
                        if not line.startswith('{"type":"receipt",')))
    elif command == "header":
        header = json.loads(lines(args[0])[0]); header.pop("createdAt"); header.pop("device")
        print(json.dumps(header))
PY
h() { python3 "$WORK/helper.py" "$@"; }

same_tables() {  # same_tables A B what
    if cmp -s <(h dump "$1") <(h dump "$2"); then pass "$3"; else
        fail "$3"; diff <(h dump "$1") <(h dump "$2") | head -20; fi
}
same_exports() {  # same_exports ARCHIVE1 ARCHIVE2 what: every line after the header, and the header but createdAt/device
    if cmp -s <(h body "$1") <(h body "$2") && cmp -s <(h header "$1") <(h header "$2"); then pass "$3"; else
        fail "$3"; diff <(h body "$1") <(h body "$2") | head -10; fi
}
validates() {
    [ "$HAVE_JSONSCHEMA" = 1 ] || return 0
    if out=$(python3 "$VALIDATE" "$1" --strict-order); then pass "validate_archive accepts $2 ($out)"; else
        fail "validate_archive refuses $2"; echo "$out" | head; fi
}

# --- 1. A store made with the Swift tool, exported by both -------------------------------------------------
cat > src.json <<'JSON'
{"edition":"t-1","language":"ro","title":"T","documents":[
 {"id":"d","title":"D","passages":[{"id":"d.1","text":"A fost odată ca-n poveşti,"},
  {"id":"d.2","text":"A fost ca niciodată,"},{"id":"d.3","text":"Din rude mari împărăteşti, \"O prea frumoasă fată\"."}]},
 {"id":"e","title":"E","passages":[{"id":"e.1","text":"Şi era una la părinţi"},{"id":"e.2","text":"Şi mândră-n toate cele,"}]}]}
JSON
"$MARGINALIA" content build src.json --output c.db >/dev/null
A=$WORK/a.db
h1=$(m "$A" highlight d.1:2-6 --color yellow --note 'a "quoted" note, a \ backslash' --tag poezie --tag 'zăpadă')
h2=$(m "$A" highlight d.2 --quote niciodată --tag x)
n1=$(m "$A" note d.1:0-1 $'multi\nline\ttab note 😀 ş')
h4=$(m "$A" highlight d.1:10-12 --to d.3:4 --note 'across three passages' --tag 'a"b\c')
b1=$(m "$A" bookmark d.3 --title 'Titlu')
b2=$(m "$A" bookmark e.1)
h3=$(m "$A" highlight e.2 --quote 'mândră' --color blue --tag a --tag b --tag c)
m "$A" edit "$h1" --note 'second' --untag poezie --tag nou >/dev/null
m "$A" edit "$h1" --color '' >/dev/null
m "$A" edit "$n1" --note '' >/dev/null
m "$A" edit "$h3" --untag b --untag c --tag d >/dev/null
m "$A" delete "$h2" >/dev/null
m "$A" undelete "$h2" >/dev/null
m "$A" delete "$b2" >/dev/null
m "$A" delete "$h3" >/dev/null
m "$A" reattach "$n1" d.2:0-4 >/dev/null
m "$A" position d d.2:3 >/dev/null
m "$A" position e e.1 >/dev/null
m "$A" position d d.1:1 >/dev/null

"$MARGINALIA" --store "$A" export a.swift.jsonl.gz 2>/dev/null
python3 "$REF" export "$A" a.py.jsonl.gz 2>/dev/null
same_exports a.swift.jsonl.gz a.py.jsonl.gz "export: Python lines equal Swift lines but the header's createdAt"
if [ "$(h body a.swift.jsonl.gz | wc -l)" -ge 20 ]; then pass "export holds $(h body a.swift.jsonl.gz | wc -l) lines after the header"; else fail "export too small"; fi
validates a.swift.jsonl.gz "the Swift export"
validates a.py.jsonl.gz "the Python export"
"$MARGINALIA" verify a.py.jsonl.gz >/dev/null && pass "Swift verify accepts the Python export" || fail "Swift verify refuses the Python export"

# --- 2. The reference imports the Swift export ------------------------------------------------------------
check_import_into() {  # check_import_into STORE what
    local store=$1
    python3 "$REF" import "$store" a.swift.jsonl.gz >/dev/null
    if "$MARGINALIA" --store "$store" verify >/dev/null; then pass "$2: Swift verify passes"; else fail "$2: Swift verify fails"; fi
    if cmp -s <(m "$A" list --json --deleted) <(m "$store" list --json --deleted); then
        pass "$2: list --json --deleted equals the original's"; else fail "$2: list --json --deleted differs"; fi
    same_tables "$A" "$store" "$2: every table equals the original's"
    "$MARGINALIA" --store "$store" export --force re.swift.jsonl.gz 2>/dev/null
    python3 "$REF" export "$store" re.py.jsonl.gz 2>/dev/null
    same_exports a.swift.jsonl.gz re.swift.jsonl.gz "$2: Swift re-export equals the original export"
    same_exports a.swift.jsonl.gz re.py.jsonl.gz "$2: Python re-export equals the original export"
}
check_import_into "$WORK/new/fresh.db" "import into a new store (made by the reference)"
"$MARGINALIA" --store "$WORK/empty.db" init >/dev/null
check_import_into "$WORK/empty.db" "import into an empty Swift-made store"
out=$(python3 "$REF" import "$WORK/empty.db" a.swift.jsonl.gz)
case "$out" in *'"newChanges":0,'*) pass "a second import adds nothing ($out)";; *) fail "a second import: $out";; esac

# --- 3. Merges: the reference's tables equal the Swift importer's ------------------------------------------
report_without_conflict_list() {  # an import report as one compact JSON line, without its "conflicts" list
    python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("conflicts", None); print(json.dumps(d, separators=(",", ":"), ensure_ascii=False))'
}
merge_both() {  # merge_both BASE ARCHIVE what
    copy_store "$1" "$WORK/ms.db"; copy_store "$1" "$WORK/mp.db"
    local swift_report ref_report
    # The reference counts conflicts but does not list them: the list is compared through the tables.
    swift_report=$("$MARGINALIA" --store "$WORK/ms.db" --json import "$2" 2>/dev/null | report_without_conflict_list | sed 's/"renewedDeviceId":"[^"]*"/"renewedDeviceId":"…"/')
    ref_report=$(python3 "$REF" import "$WORK/mp.db" "$2" | report_without_conflict_list | sed 's/"renewedDeviceId":"[^"]*"/"renewedDeviceId":"…"/')
    if [ "$swift_report" = "$ref_report" ]; then pass "$3: same import report ($ref_report)"; else
        fail "$3: import reports differ"; echo "  swift: $swift_report"; echo "  ref:   $ref_report"; fi
    same_tables "$WORK/ms.db" "$WORK/mp.db" "$3: same tables as the Swift import"
    "$MARGINALIA" --store "$WORK/mp.db" verify >/dev/null && pass "$3: Swift verify passes" || fail "$3: Swift verify fails"
    rm -f "$WORK"/ms.db* "$WORK"/mp.db*
}
B=$WORK/b.db
"$MARGINALIA" --store "$B" init >/dev/null
"$MARGINALIA" --store "$B" import a.swift.jsonl.gz >/dev/null
since=$(python3 -c 'import time; print(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())+".%03dZ" % (time.time_ns()//1_000_000 % 1000))')
sleep 0.01
m "$B" edit "$h1" --note 'from B' --tag b --untag nou >/dev/null
m "$B" delete "$n1" >/dev/null
m "$B" undelete "$h3" >/dev/null
m "$B" position d d.3:7 >/dev/null
m "$B" highlight e.1:0-2 --tag fromb >/dev/null
m "$A" edit "$h1" --color red --tag nou >/dev/null
m "$A" undelete "$b2" >/dev/null
m "$A" edit "$n1" --note 'A after B deleted it' >/dev/null
m "$A" position e e.2:4 >/dev/null
"$MARGINALIA" --store "$A" export a2.jsonl.gz 2>/dev/null
"$MARGINALIA" --store "$B" export b2.jsonl.gz 2>/dev/null
merge_both "$B" a2.jsonl.gz "merge A into B"
merge_both "$A" b2.jsonl.gz "merge B into A"
"$MARGINALIA" --store "$B" export --since "$since" b-since.jsonl.gz 2>/dev/null
validates b-since.jsonl.gz "a partial (--since) export"
"$MARGINALIA" --store "$WORK/e1.db" init >/dev/null
merge_both "$WORK/e1.db" b-since.jsonl.gz "a partial archive into an empty store (pending changes)"
"$MARGINALIA" --store "$WORK/e1.db" import b-since.jsonl.gz >/dev/null
merge_both "$WORK/e1.db" b2.jsonl.gz "the full archive after the partial one (pending creates arrive)"
copy_store "$A" "$WORK/a-copy.db"
m "$WORK/a-copy.db" edit "$h2" --note 'made on a copy of A' >/dev/null
"$MARGINALIA" --store "$WORK/a-copy.db" export copy.jsonl.gz 2>/dev/null
copy_store "$A" "$WORK/a3.db"
out=$(python3 "$REF" import "$WORK/a3.db" copy.jsonl.gz)
case "$out" in *renewedDeviceId*) pass "own device id renewed after importing a copy's new change";; *) fail "no device renewal: $out";; esac
merge_both "$A" copy.jsonl.gz "a copy's changes under the same device id"
h synth synth.jsonl.gz 24000
"$MARGINALIA" --store "$WORK/e2.db" init >/dev/null
merge_both "$WORK/e2.db" synth.jsonl.gz "24000 shuffled synthetic changes"
merge_both "$B" synth.jsonl.gz "24000 synthetic changes into B"
"$MARGINALIA" --store "$WORK/syn.db" init >/dev/null
"$MARGINALIA" --store "$WORK/syn.db" import synth.jsonl.gz >/dev/null
"$MARGINALIA" --store "$WORK/syn.db" export syn.swift.jsonl.gz 2>/dev/null
python3 "$REF" export "$WORK/syn.db" syn.py.jsonl.gz 2>/dev/null
same_exports syn.swift.jsonl.gz syn.py.jsonl.gz "export of the synthetic store: same lines"
validates syn.swift.jsonl.gz "the synthetic store's export"

# --- 4. Hand-broken archives: all three refuse; unusual valid ones: all three accept -----------------------
BROKEN="empty-tags short-hlc header-extra-key float-offset trailer-count change-after-state delete-false
  reanchor-no-edition set-on-annotation device-newline device-space end-before-start document-space long-color
  bad-date note-null tag-control newer-format kind-in-edit no-trailer long-prefix surrogate
  duplicate-key nan"
VALID="ok-leap-day-space ok-zone ok-key-order ok-filter ok-unsorted-tags ok-64-char-color"
for name in $BROKEN $VALID; do
    h mutate a.swift.jsonl.gz "$name.jsonl.gz" "$name"
    rm -f "$WORK"/v*.db*
    "$MARGINALIA" --store "$WORK/vs.db" init >/dev/null; "$MARGINALIA" --store "$WORK/vp.db" init >/dev/null
    s=0; "$MARGINALIA" --store "$WORK/vs.db" import "$name.jsonl.gz" >/dev/null 2>&1 || s=$?
    p=0; why=$(python3 "$REF" import "$WORK/vp.db" "$name.jsonl.gz" 2>&1 >/dev/null) || p=$?
    v=0; if [ "$HAVE_JSONSCHEMA" = 1 ]; then python3 "$VALIDATE" "$name.jsonl.gz" >/dev/null 2>&1 || v=$?; fi
    case "$name" in
        ok-*) want="accepted"; [ $s = 0 ] && [ $p = 0 ] && [ $v = 0 ] && good=1 || good=0 ;;
        *) want="refused"; [ $s != 0 ] && [ $p != 0 ] && { [ "$HAVE_JSONSCHEMA" = 0 ] || [ $v != 0 ]; } && good=1 || good=0 ;;
    esac
    if [ $good = 1 ]; then pass "$name: $want by Swift import, reference import and validator${why:+ (${why##*: line })}"; else
        fail "$name: should be $want (Swift exit $s, reference exit $p, validator exit $v)"; fi
    if [ "$want" = refused ]; then
        [ "$(h count "$WORK/vp.db")" = 0 ] || fail "$name: the reference wrote changes"
    else
        same_tables "$WORK/vs.db" "$WORK/vp.db" "$name: same tables as the Swift import"
    fi
done

# A change dated days ahead of this machine's clock: the Swift import holds it in quarantine and applies the rest;
# the reference, simpler, refuses the file (its documented policy).
h mutate a.swift.jsonl.gz future-hlc.jsonl.gz future-hlc
rm -f "$WORK"/v*.db*
"$MARGINALIA" --store "$WORK/vs.db" init >/dev/null
if "$MARGINALIA" --store "$WORK/vs.db" import future-hlc.jsonl.gz >/dev/null 2>&1 \
    && [ "$("$MARGINALIA" --store "$WORK/vs.db" quarantine --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["quarantined"]))')" = 1 ]; then
    pass "future-hlc: Swift import quarantines the future-dated change and applies the rest"
else
    fail "future-hlc: Swift import should quarantine the future-dated change"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
