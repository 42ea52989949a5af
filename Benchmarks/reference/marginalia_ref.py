#!/usr/bin/env python3
"""Marginalia archive export and import in Python: the reference the benchmarks compare against.

    python3 marginalia_ref.py export STORE.db OUT.jsonl.gz
    python3 marginalia_ref.py import STORE.db FILE.jsonl.gz

Standard library only. It reads and writes the same user database (schemas/user.sql) and the same archive
format (schemas/archive-*.schema.json) as the Swift tool, with the same semantics:

- export writes a header (archive format 2: with the head of the log's hash chain, recomputed over the rows),
  every change in the log's order (seq) with its stored fields JSON copied as is, the annotations by id, the reading positions by document, and a trailer with the counts, from one
  read snapshot, through a temporary file renamed into place. Its lines equal the Swift exporter's byte for
  byte, apart from the header's createdAt.
- import checks every record as strictly as the Swift reader, deduplicates changes by change_id (a different
  change under a known id is refused), appends new changes to `changes` with their canonical fields JSON, and
  projects them into `annotations` and `positions`: field-level last writer wins by the stamp (hlc, device,
  change_id), kept in the `clocks` column of `annotations` as the blob the Swift `FieldClocks` writes (see
  encode_clocks) and in the `clock` column of `positions` as "hlc device changeId"; a delete is a register like
  the others; a change whose annotation has no create yet waits in the log and is folded in when
  the create arrives. It validates the trailer counts and does it all in one transaction, rolled back on any
  error. When the file holds new changes made under the store's own device id, the store takes a new one.
- schema 5 keeps clocks as integers (schema 6 adds each change's wall time; schema 7 the sync folder's unapplied files) (milliseconds * 100000 + counter) and devices by their number in `devices`;
  a device gets its number when its first change enters the log: before the changes of each run of
  SWIFT_MERGE_BATCH changes read, the distinct devices of its new changes are numbered in sorted order, as the
  Swift importer does for each of its batches, so that both importers number the devices of a file alike.
- each new change row carries its digest in the log's hash chain (SHA-256 of the previous row's digest, 32 zero
  bytes before the first, then change_id, hlc, device, entity, entity_id, op and fields in their text forms (the
  clock as 000000000000000-00000, the device by its id), then the change's wall time in decimal milliseconds
  when it has one (schema 6, `madeAt` in archive format 3), each as its UTF-8 length in 4 bytes big-endian and its
  bytes) and points to the import's receipt (time, file as named, size, SHA-256
  and counts), made only when the file brings a new change.

Import works in batches: a batch of changes is checked against the log with one query, inserted with
executemany, projected in file order through an in-memory cache of the rows it touches, and written back with
executemany. The end state and the report (printed as `marginalia --json import` prints it) are the Swift
importer's.

Tags and colors are 1 to 64 code points in NFC, as in the Swift reader. Known limit of the port: Swift sorts
strings by canonical equivalence, this code by code point (the same for the NFC text marginalia writes).
"""
import gzip
import datetime
import hashlib
import json
import os
import pathlib
import re
import sqlite3
import sys
import time
import unicodedata
import uuid
import zlib

FORMAT, FORMAT_VERSION, APPLICATION_ID = "marginalia-archive", 4, 0x4D524755
RECEIPT_VERSION = 4  # the first archive format that carries receipts (and changes naming a device)
HEAD_VERSION = 2  # the first archive format whose header carries the head of the hash chain
MAX_LINE_BYTES, MAX_RECORDS, MAX_DECOMPRESSED = 16 << 20, 50_000_000, 8 << 30
MAX_DRIFT_MS, MAX_TEXT, MAX_CONTEXT, MAX_ID, MAX_LABEL, MAX_OFFSET = 86_400_000, 1 << 20, 1024, 256, 64, 2**31 - 1
BATCH = 5000
# The Swift importer's batch (StoreConnection.mergeBatchSize): the runs of changes read whose new devices it
# numbers together. BATCH is a multiple of it, so that a run never spans two of this reference's batches.
SWIFT_MERGE_BATCH = 1000
ANCHOR = ("document", "start", "end", "quote", "prefix", "suffix", "edition")
KINDS = ("highlight", "note", "bookmark")
OPS = ("create", "edit", "delete", "undelete", "reanchor", "confirm", "reattach", "set")
RULES = {  # (entity, op) -> (allowed field groups, required field groups), as ChangeFields.validate
    ("annotation", "create"): ({"kind", "anchor", "note", "color", "tags"}, {"kind", "anchor"}),
    ("annotation", "edit"): ({"note", "color", "tags"}, set()),
    ("annotation", "delete"): ({"deleted"}, {"deleted"}),
    ("annotation", "undelete"): ({"deleted"}, {"deleted"}),
    ("annotation", "reanchor"): ({"anchor"}, {"anchor"}),
    ("annotation", "confirm"): ({"anchor"}, {"anchor"}),
    ("annotation", "reattach"): ({"anchor"}, {"anchor"}),
    ("position", "set"): ({"position"}, {"position"}),
    ("device", "set"): ({"name"}, {"name"}),
}
# A revert is an edit that names the change whose state it restores; it may set every group but kind.
REVERT_RULE = ({"note", "color", "tags", "anchor", "deleted", "revertTo"}, {"revertTo"})
# The user-database schema version schemas/user.sql describes. Unlike the Swift tool, which holds changes
# dated more than a day ahead in its `quarantine` table and merges the rest, this reference refuses such a file.
SCHEMA_VERSION = 10
GENESIS = "0" * 64
USER_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schemas", "user.sql")
ANNOTATION_COLUMNS = ("id, kind, document, start_passage, start_offset, end_passage, end_offset, quote, prefix, "
                      "suffix, created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc")
# What a statement selects from `changes` to read a change as the seven texts its digest covers: the clock and the
# device are stored as integers (schema 5); these are the Swift tool's expressions (Change.columns).
CHANGE_COLUMNS = ("change_id, printf('%015d-%05d', hlc / 100000, hlc % 100000), "
                  "(SELECT id FROM devices WHERE number = device), entity, entity_id, op, fields, wall")
# The names of the log's columns, for an INSERT: hlc as packed(), device as a number of `devices`.
LOG_COLUMNS = "change_id, hlc, device, entity, entity_id, op, fields, wall"

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False).encode
MACHINE_ID = re.compile(r"[0-9A-Za-z._-]{1,64}")
HLC = re.compile(r"[0-9]{15}-[0-9]{5}")
DIGEST = re.compile(r"[0-9a-f]{64}")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
WHITE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                  + "".join(map(chr, range(0x2000, 0x200B))))
ISO = re.compile(
    r"(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
    r"-02-29)(?:[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.,][0-9]+)?)?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?)?")


class ArchiveError(Exception):
    def __init__(self, reason, line=None):
        super().__init__(f"line {line}: {reason}" if line else reason)


class FieldError(Exception):
    pass


def iso8601(milliseconds):
    """2026-11-29T12:14:41.123Z, as Timestamp.iso8601 (proleptic Gregorian, after days_from_civil)."""
    days, ms = divmod(milliseconds, 86_400_000)
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day, month = doy - (153 * mp + 2) // 5 + 1, mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    return (f"{year:04d}-{month:02d}-{day:02d}T{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:"
            f"{ms // 1000 % 60:02d}.{ms % 1000:03d}Z")


def hlc_iso(hlc):
    return iso8601(int(hlc[:15]))


def packed(hlc):
    """The clock text 001795954481123-00042 as the integer the log keeps (HLC.packed): 179595448112300042."""
    return int(hlc[:15]) * 100_000 + int(hlc[16:])


def unpacked(value):
    """The text form of a packed clock, as printf('%015d-%05d', hlc / 100000, hlc % 100000)."""
    return f"{value // 100_000:015d}-{value % 100_000:05d}"


# MARK: - Export

def export(store, out):
    db = sqlite3.connect(pathlib.Path(store).resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    db.execute("BEGIN")  # one read snapshot, taken at the first read
    device = db.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()[0]
    editions = [row[0] for row in db.execute(
        "SELECT created_edition FROM annotations UNION SELECT anchor_edition FROM annotations ORDER BY 1")]
    seq, digest = 0, GENESIS
    for row in db.execute(f"SELECT {CHANGE_COLUMNS}, seq FROM changes ORDER BY seq"):
        seq, digest = row[8], chain_digest(digest, row[:7], row[7])
    header = {"type": "header", "format": FORMAT, "formatVersion": FORMAT_VERSION, "device": device,
              "createdAt": iso8601(time.time_ns() // 1_000_000),
              "schemaVersion": db.execute("PRAGMA user_version").fetchone()[0], "editions": editions,
              "partial": False, "head": {"seq": seq, "digest": digest}}
    counts = {"change": 0, "annotation": 0, "position": 0}
    receipts = db.execute(
        "SELECT id, kind, received_at, file, size, sha256, changes_read, new_changes, duplicates, quarantined "
        "FROM receipts ORDER BY id").fetchall()
    directory, name = os.path.split(os.path.abspath(out))
    temporary = os.path.join(directory, f".{name}.export-{uuid.uuid4()}.tmp")  # renamed over `out` when complete
    try:
        with open(temporary, "xb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as sink:
                lines = [_encode(header)]
                for rid, kind, received, file, size, sha, read, new, duplicates, held in receipts:
                    record = {"type": "receipt", "id": rid, "kind": kind, "receivedAt": received}
                    record.update({key: value for key, value in (("file", file), ("size", size), ("sha256", sha))
                                   if value is not None})
                    record.update({"changesRead": read, "newChanges": new, "duplicates": duplicates,
                                   "quarantined": held})
                    lines.append(_encode(record))

                def emit(line):
                    lines.append(line)
                    if len(lines) >= 4096:
                        sink.write(("\n".join(lines) + "\n").encode("utf-8"))
                        lines.clear()

                for cid, hlc, dev, entity, entity_id, op, fields, wall, receipt in db.execute(
                        f"SELECT {CHANGE_COLUMNS}, receipt FROM changes ORDER BY seq"):
                    made = "" if wall is None else f',"madeAt":"{iso8601(wall)}"'
                    by = "" if receipt is None else f',"receipt":{receipt}'
                    emit(f'{{"type":"change","changeId":{_encode(cid)},"hlc":{_encode(hlc)},"device":{_encode(dev)},'
                         f'"entity":{_encode(entity)},"entityId":{_encode(entity_id)},"op":{_encode(op)},'
                         f'"fields":{fields}{made}{by}}}')
                    counts["change"] += 1
                for row in db.execute(f"SELECT {ANNOTATION_COLUMNS} FROM annotations ORDER BY id"):
                    emit(_encode(annotation_record(row)))
                    counts["annotation"] += 1
                for document, passage, offset, updated in db.execute(
                        "SELECT document, passage, offset, updated_hlc FROM positions ORDER BY document"):
                    emit(_encode({"type": "position", "document": document, "passage": passage, "offset": offset,
                                  "updatedAt": hlc_iso(updated)}))
                    counts["position"] += 1
                lines.append(_encode({"type": "trailer", "counts": counts}))
                sink.write(("\n".join(lines) + "\n").encode("utf-8"))
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    finally:
        db.close()
    return counts


def annotation_record(row):
    (aid, kind, document, sp, so, ep, eo, quote, prefix, suffix, edition, anchor_edition, note, color, tags,
     deleted, created, updated) = row
    return {"type": "annotation", "id": aid, "kind": kind, "document": document,
            "start": {"passage": sp, "offset": so}, "end": {"passage": ep, "offset": eo}, "quote": quote,
            "prefix": prefix, "suffix": suffix, "note": note, "color": color, "tags": json.loads(tags),
            "createdAt": iso8601(created // 100_000), "updatedAt": iso8601(updated // 100_000),
            "deleted": bool(deleted), "edition": edition, "anchorEdition": anchor_edition}


# MARK: - Reading an archive

def archive_lines(path):
    """(number, text) of each line of a one-member gzip file, strictly: complete, nothing after it, every line
    ending with a line feed, UTF-8 without a byte order mark, within the reader's limits."""
    inflater, pending, number, total = zlib.decompressobj(31), b"", 0, 0
    with open(path, "rb") as file:
        if file.read(2) != b"\x1f\x8b":
            raise ArchiveError("not a gzip file")
        file.seek(0)
        while chunk := file.read(1 << 20):
            if inflater.eof:
                raise ArchiveError("trailing data after the end of the compressed stream")
            try:
                data = inflater.decompress(chunk)
            except zlib.error as error:
                raise ArchiveError(f"corrupt gzip data: {error}") from None
            if inflater.eof and inflater.unused_data:
                raise ArchiveError("trailing data after the end of the compressed stream")
            total += len(data)
            if total > MAX_DECOMPRESSED:
                raise ArchiveError(f"more than {MAX_DECOMPRESSED} bytes once decompressed")
            *complete, pending = (pending + data).split(b"\n")
            for raw in complete:
                number += 1
                if len(raw) > MAX_LINE_BYTES or number > MAX_RECORDS:
                    raise ArchiveError("line or record count over the limit", number)
                try:
                    line = raw.decode("utf-8")  # strict: no invalid or surrogate sequences
                except UnicodeDecodeError as error:
                    raise ArchiveError(f"invalid UTF-8: {error}", number) from None
                yield number, line
            if len(pending) > MAX_LINE_BYTES:
                raise ArchiveError("line over the limit", number + 1)
    if not inflater.eof:
        raise ArchiveError("truncated: the gzip stream ends early")
    if pending:
        raise ArchiveError("truncated: the last line does not end with a line feed", number + 1)


def _object(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("a key is repeated in an object")
    return result


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse(text):
    return json.loads(text, object_pairs_hook=_object, parse_constant=_refuse_constant)


def _string(value, field):
    if type(value) is not str:
        raise FieldError(f"{field}: must be a string")
    try:
        return value, len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise FieldError(f"{field}: holds a lone surrogate") from None


def any_string(value, field):
    return _string(value, field)[0]


def text(value, field, max_bytes=MAX_TEXT):
    value, size = _string(value, field)
    if size > max_bytes or "\x00" in value:
        raise FieldError(f"{field}: longer than {max_bytes} bytes or holds NUL")
    return value


def context_text(value, field):  # a change's prefix or suffix
    return text(value, field, MAX_CONTEXT)


def identifier(value, field):
    value, size = _string(value, field)
    if not value or size > MAX_ID or CONTROL.search(value) or value[0] in WHITE or value[-1] in WHITE:
        raise FieldError(f"{field}: must be a non-empty id of at most {MAX_ID} bytes, without control characters "
                         f"or surrounding spaces")
    return value


def label(value, field):
    value, _ = _string(value, field)
    if not value or len(value) > MAX_LABEL or CONTROL.search(value) or value[0] in WHITE or value[-1] in WHITE:
        raise FieldError(f"{field}: {value!r} must be 1 to {MAX_LABEL} characters, no control or surrounding spaces")
    if unicodedata.normalize("NFC", value) != value:
        raise FieldError(f"{field}: {value!r} is not in Unicode normalization form C (NFC)")
    return value


def color(value, field):
    return label(value, field) if any_string(value, field) else value  # "" clears the color


def tags(value, field):
    if type(value) is not dict or not value or any(type(flag) is not bool for flag in value.values()):
        raise FieldError(f"{field}: must be a non-empty object of tag: true|false")
    if len(value) > 256:
        raise FieldError(f"{field}: sets more than 256 tags")
    return {label(tag, field): value[tag] for tag in sorted(value)}


def matching(regex, description):
    def check(value, field):
        if type(value) is not str or not regex.fullmatch(value):
            raise FieldError(f"{field}: must be {description}")
        return value
    return check


machine_id = matching(MACHINE_ID, "1 to 64 letters, digits, '.', '_' or '-'")
hlc = matching(HLC, "a clock like 001795954481123-00000")
iso_time = matching(ISO, "an ISO 8601 time")


def boolean(value, field):
    if type(value) is not bool:
        raise FieldError(f"{field}: must be true or false")
    return value


def integer(low, high):
    def check(value, field):
        if type(value) is not int or not low <= value <= high:  # 3.0 and 3e0 are not integers
            raise FieldError(f"{field}: must be an integer from {low} to {high}")
        return value
    return check


def one_of(*names):
    def check(value, field):
        if type(value) is not str or value not in names:
            raise FieldError(f"{field}: must be one of {', '.join(names)}")
        return value
    return check


def optional(check):
    return lambda value, field: None if value is None else check(value, field)


def array(check):
    def check_array(value, field):
        if type(value) is not list:
            raise FieldError(f"{field}: must be an array")
        return [check(item, field) for item in value]
    return check_array


def obj(spec):
    """A check of an object with exactly spec's keys (a key ending in '?' is optional), each value checked by its
    function (None: not checked here); returns the checked members in spec order."""
    def check(value, field):
        if type(value) is not dict:
            raise FieldError(f"{field or 'record'}: must be an object")
        keys = {key.rstrip("?") for key in spec}
        unknown, missing = set(value) - keys, {key for key in spec if key[-1] != "?"} - set(value)
        if unknown or missing:
            raise FieldError(f"{field or 'record'}: unknown {sorted(unknown)}, missing {sorted(missing)}")
        prefix = field + "." if field else ""
        return {key: fn(value[key], prefix + key) for key, fn in ((k.rstrip("?"), f) for k, f in spec.items())
                if key in value and fn}
    return check


OFFSET = integer(0, MAX_OFFSET)
TEXT_POSITION = obj({"passage": identifier, "offset": OFFSET})
HEADER = obj({"type": None, "format": one_of(FORMAT), "formatVersion": integer(1, FORMAT_VERSION),
              "device": machine_id, "createdAt": iso_time, "schemaVersion": integer(1, 2**63 - 1),
              "editions": array(identifier), "partial": boolean,
              "filter?": obj({"document?": any_string, "since?": any_string}),
              "head?": obj({"seq": integer(0, 2**63 - 1), "digest": matching(DIGEST, "64 lowercase hex digits")})})
CHANGE = obj({"type": None, "changeId": machine_id, "hlc": hlc, "device": machine_id,
              "entity": one_of("annotation", "position", "device"), "entityId": None, "op": one_of(*OPS),
              "fields": None, "madeAt?": any_string, "receipt?": integer(1, 2**63 - 1)})
RECEIPT = obj({"type": None, "id": integer(1, 2**63 - 1),
               "kind": one_of("import", "restore", "sync", "merge", "unrecorded"), "receivedAt": any_string,
               "file?": any_string, "size?": integer(0, 2**63 - 1),
               "sha256?": matching(DIGEST, "64 lowercase hex digits"), "changesRead": integer(0, 2**31 - 1),
               "newChanges": integer(0, 2**31 - 1), "duplicates": integer(0, 2**31 - 1),
               "quarantined": integer(0, 2**31 - 1)})
ANNOTATION = obj({"type": None, "id": machine_id, "kind": one_of(*KINDS), "document": identifier,
                  "start": TEXT_POSITION, "end": TEXT_POSITION, "quote": text, "prefix": context_text, "suffix": context_text,
                  "note": optional(text), "color": optional(label), "tags": array(label), "createdAt": iso_time,
                  "updatedAt": iso_time, "deleted": boolean, "edition": identifier, "anchorEdition": identifier})
POSITION = obj({"type": None, "document": identifier, "passage": identifier, "offset": OFFSET,
                "updatedAt": iso_time})
COUNT = integer(0, 2**31 - 1)
TRAILER = obj({"type": None, "counts": obj({"change": COUNT, "annotation": COUNT, "position": COUNT})})
# Every key a change's fields may hold, in the canonical order, and the group (register) each belongs to.
FIELDS = {"kind": one_of(*KINDS), "document": identifier, "start": TEXT_POSITION, "end": TEXT_POSITION,
          "quote": text, "prefix": context_text, "suffix": context_text, "edition": identifier, "note": text,
          "color": color, "tags": tags, "deleted": boolean, "passage": identifier, "offset": OFFSET,
          "revertTo": machine_id, "name": label}
GROUPS = {**dict.fromkeys(ANCHOR, "anchor"), "passage": "position", "offset": "position"}


def canonical_fields(fields, op, entity):
    """Checks fields as ChangeFields(json:) and validate(for:on:) do; returns them in canonical key order."""
    if type(fields) is not dict or set(fields) - set(FIELDS):
        raise FieldError("fields: must be an object of known fields")
    out = {key: check(fields[key], "fields." + key) for key, check in FIELDS.items() if key in fields}
    for group, keys in (("anchor", ANCHOR), ("position", ("passage", "offset"))):
        if any(key in out for key in keys) and not all(key in out for key in keys):
            raise FieldError(f"fields: the {group} needs all of {', '.join(keys)}")
    if "start" in out and out["start"]["passage"] == out["end"]["passage"] \
            and out["end"]["offset"] < out["start"]["offset"]:
        raise FieldError("fields.end.offset: is before start.offset")
    if (entity, op) not in RULES:
        raise FieldError(f"operation {op} does not apply to a {entity}")
    allowed, required = REVERT_RULE if (entity, op) == ("annotation", "edit") and "revertTo" in out \
        else RULES[(entity, op)]
    groups = {GROUPS.get(key, key) for key in out}
    if groups - allowed or required - groups or not groups or groups == {"revertTo"}:
        raise FieldError(f"fields: {sorted(groups)} do not fit a {op} change")
    if op in ("delete", "undelete") and out["deleted"] != (op == "delete"):
        raise FieldError(f"fields.deleted: must be {str(op == 'delete').lower()} in a {op} change")
    return out


def check_header(record):
    version = record.get("formatVersion")
    if type(version) is int and version > FORMAT_VERSION:  # refused before any other key is looked at
        raise FieldError(f"created by a newer version of marginalia (archive format {version})")
    HEADER(record, "")
    if (version >= HEAD_VERSION) != ("head" in record):
        raise FieldError("head: required from archive format 2 on" if version >= HEAD_VERSION else "head: unknown field")


def made_at(text):
    """The milliseconds of a change's madeAt, written exactly as iso8601 writes them; FieldError otherwise."""
    try:
        moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise FieldError(f'madeAt: must be a UTC time like 2026-12-02T01:30:10.123Z, not "{text}"') from None
    milliseconds = (moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(
        milliseconds=1)
    if iso8601(milliseconds) != text:
        raise FieldError(f'madeAt: must be a UTC time like 2026-12-02T01:30:10.123Z, not "{text}"')
    return milliseconds


def check_change(record, now_ms):
    """The change as (change_id, hlc, device, entity, entity_id, op, canonical fields text, fields, wall): wall is
    when it was made (madeAt, format 3 on) in milliseconds, or None."""
    change = CHANGE(record, "")
    entity, op = change["entity"], change["op"]
    entity_id = (identifier if entity == "position" else machine_id)(record["entityId"], "entityId")
    fields = canonical_fields(record["fields"], op, entity)
    wall = made_at(record["madeAt"]) if "madeAt" in record else None
    # Judged by when it was made; a change recorded without that, by its clock.
    if (wall if wall is not None else int(change["hlc"][:15])) > now_ms + MAX_DRIFT_MS:
        raise FieldError(f"change {change['changeId']} was made at "
                         f"{iso8601(wall) if wall is not None else hlc_iso(change['hlc'])}, implausibly far in the "
                         f"future")
    return (change["changeId"], change["hlc"], change["device"], entity, entity_id, op, _encode(fields), fields,
            wall)


def records(path, now_ms):
    """Yields each change of the archive, after checking every record, the order and the trailer's counts."""
    header, in_state, trailer, receipts = None, False, False, set()
    counts = {"change": 0, "annotation": 0, "position": 0}
    for number, line in archive_lines(path):
        try:
            obj = parse(line)
        except (ValueError, RecursionError) as error:
            raise ArchiveError(f"invalid JSON: {error}", number) from None
        if type(obj) is not dict or type(obj.get("type")) is not str:
            raise ArchiveError("a record must be a JSON object with a type", number)
        kind = obj["type"]
        if kind not in ("header", "receipt", "change", "annotation", "position", "trailer"):
            raise ArchiveError(f"unknown record type {kind!r}", number)
        if trailer or (header is None) != (kind == "header"):
            raise ArchiveError(f"a {kind} record out of place", number)
        try:
            if kind == "header":
                check_header(obj)
                header = obj
            elif kind == "receipt":
                if header["formatVersion"] < RECEIPT_VERSION or counts["change"] or in_state:
                    raise FieldError("a receipt out of place")
                RECEIPT(obj, "")
                receipts.add(obj["id"])
            elif kind == "change":
                if in_state:
                    raise FieldError("a change after the state records")
                if "receipt" in obj and (header["formatVersion"] < RECEIPT_VERSION or obj["receipt"] not in receipts):
                    raise FieldError("receipt: names no receipt record before the changes")
                change = check_change(obj, now_ms)
                counts["change"] += 1
                yield number, change
            elif kind == "trailer":
                declared = TRAILER(obj, "")["counts"]
                if declared != counts:
                    raise FieldError(f"the trailer counts {declared}, but the archive holds {counts}")
                trailer = True
            else:
                in_state = True
                (ANNOTATION if kind == "annotation" else POSITION)(obj, "")
                counts[kind] += 1
        except FieldError as error:
            raise ArchiveError(f"{kind} record: {error}", number) from None
    if header is None or not trailer:
        raise ArchiveError("truncated: " + ("the archive holds no records" if header is None else "no trailer"))


# MARK: - Field clocks (the `clocks` blob of `annotations`, schema 5)

NAMED_REGISTERS = ("kind", "anchor", "note", "color", "deleted")  # coded 1 to 5
TAG_CODE, OTHER_CODE = 6, 0
CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _varint(value, out):
    """LEB128: seven bits a byte, least significant first, the high bit set on every byte but the last."""
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def _varint_text(text, out):
    data = text.encode("utf-8")
    _varint(len(data), out)
    out += data


def _register_order(name):
    """Within an entry: the named registers by code, then the others (tags too) by their UTF-8 bytes."""
    return (NAMED_REGISTERS.index(name) if name in NAMED_REGISTERS else len(NAMED_REGISTERS), name.encode("utf-8"))


def encode_clocks(clocks, numbers):
    """The blob of `clocks` ({register: (hlc text, device id, change id)}) as FieldClocks.encode writes it, devices
    numbered by `numbers` ({id: number}): for each distinct stamp in stamp order, varint(packed hlc),
    varint(device number), the change id (0x00 and its 16 bytes when it is a canonical lowercase UUID, else 0x01,
    varint(length) and its UTF-8), varint(register count) and each register (its code, or 6 and the tag's name
    for "tag:<name>", or 0 and the name for any other, names as varint(length) and UTF-8)."""
    by_stamp = {}
    for name, stamp in clocks.items():
        by_stamp.setdefault(stamp, []).append(name)
    out = bytearray()
    for stamp in sorted(by_stamp):
        hlc_text, device, change_id = stamp
        _varint(packed(hlc_text), out)
        _varint(numbers[device], out)
        if CANONICAL_UUID.fullmatch(change_id):
            out.append(0)
            out += bytes.fromhex(change_id.replace("-", ""))
        else:
            out.append(1)
            _varint_text(change_id, out)
        names = sorted(by_stamp[stamp], key=_register_order)
        _varint(len(names), out)
        for name in names:
            if name in NAMED_REGISTERS:
                out.append(NAMED_REGISTERS.index(name) + 1)
            elif name.startswith("tag:"):
                out.append(TAG_CODE)
                _varint_text(name[4:], out)
            else:
                out.append(OTHER_CODE)
                _varint_text(name, out)
    return bytes(out)


def _read_varint(blob, position):
    """The LEB128 varint at `position` of `blob`, and the position after it; IndexError past the end."""
    part = blob[position]
    if part < 0x80:
        return part, position + 1
    value, shift = part & 0x7F, 7
    while True:
        position += 1
        part = blob[position]
        value |= (part & 0x7F) << shift
        if part < 0x80:
            return value, position + 1
        shift += 7


def _read_text(blob, position):
    length, position = _read_varint(blob, position)
    if position + length > len(blob):
        raise IndexError("past the end")
    return blob[position:position + length].decode("utf-8"), position + length


def decode_clocks(blob, ids):
    """The clocks encode_clocks wrote, devices named by `ids` ({number: id}); raises ArchiveError when unreadable."""
    clocks, position, end = {}, 0, len(blob)
    try:
        while position < end:
            hlc, position = _read_varint(blob, position)
            number, position = _read_varint(blob, position)
            kind = blob[position]
            if kind == 0 and position + 17 <= end:
                change_id = str(uuid.UUID(bytes=bytes(blob[position + 1:position + 17])))
                position += 17
            elif kind == 1:
                change_id, position = _read_text(blob, position + 1)
            else:
                raise ArchiveError(f"an annotation's clocks blob holds a change id of unknown kind {kind}")
            stamp = (unpacked(hlc), ids[number], change_id)
            count, position = _read_varint(blob, position)
            for _ in range(count):
                code = blob[position]
                if 1 <= code <= len(NAMED_REGISTERS):
                    name, position = NAMED_REGISTERS[code - 1], position + 1
                elif code == TAG_CODE:
                    name, position = _read_text(blob, position + 1)
                    name = "tag:" + name
                elif code == OTHER_CODE:
                    name, position = _read_text(blob, position + 1)
                else:
                    raise ArchiveError(f"an annotation's clocks blob holds an unknown register code {code}")
                if name in clocks:
                    raise ArchiveError(f"an annotation's clocks blob names {name} twice")
                clocks[name] = stamp
    except IndexError:
        raise ArchiveError("an annotation's clocks blob ends early") from None
    except KeyError as error:
        raise ArchiveError(f"an annotation's clocks name device number {error}, which devices lacks") from None
    return clocks


# MARK: - Merging

class Registers:
    """One annotation as last-writer-wins registers (AnnotationRegisters): kind, anchor, note, color, deleted,
    and one per tag (clocks key "tag:<name>"); each keeps the value of the change with the greatest stamp."""

    def __init__(self, aid):
        self.id, self.kind, self.edition, self.anchor, self.note, self.color = aid, None, None, None, None, None
        self.tags, self.deleted, self.updated, self.clocks = {}, False, "000000000000000-00000", {}

    @classmethod
    def from_row(cls, row, ids):
        """From a row of ANNOTATION_COLUMNS and clocks, devices named by `ids` ({number: id})."""
        reg = cls(row[0])
        (reg.kind, document, sp, so, ep, eo, quote, prefix, suffix, reg.edition, anchor_edition, reg.note, reg.color,
         tags, deleted, _, updated, clocks) = row[1:]
        reg.updated = unpacked(updated)
        reg.anchor = {"document": document, "start": {"passage": sp, "offset": so},
                      "end": {"passage": ep, "offset": eo}, "quote": quote, "prefix": prefix, "suffix": suffix,
                      "edition": anchor_edition}
        reg.deleted = bool(deleted)
        reg.clocks = decode_clocks(clocks, ids)
        reg.tags = {name[4:]: False for name in reg.clocks if name.startswith("tag:")}
        reg.tags.update((tag, True) for tag in json.loads(tags))
        return reg

    def apply(self, stamp, fields):
        """Applies one change; returns (registers won, registers lost)."""
        won = lost = 0

        def register(name):
            nonlocal won, lost
            if name in self.clocks and self.clocks[name] >= stamp:
                lost += 1
                return False
            self.clocks[name] = stamp
            won += 1
            return True

        if "kind" in fields and register("kind"):
            self.kind, self.edition = fields["kind"], fields.get("edition")
        if "document" in fields and register("anchor"):
            self.anchor = {key: fields[key] for key in ANCHOR}
        if "note" in fields and register("note"):
            self.note = fields["note"] or None
        if "color" in fields and register("color"):
            self.color = fields["color"] or None
        for tag, present in fields.get("tags", {}).items():
            if register("tag:" + tag):
                self.tags[tag] = present
        if "deleted" in fields and register("deleted"):
            self.deleted = fields["deleted"]
        if stamp[0] > self.updated:
            self.updated = stamp[0]
        return won, lost

    def row(self, numbers):
        """The `annotations` row (id last), or None before a create has been applied; devices numbered by
        `numbers` ({id: number})."""
        if self.kind is None or self.anchor is None or self.edition is None or "kind" not in self.clocks:
            return None
        a = self.anchor
        clocks = encode_clocks(self.clocks, numbers)
        tags = _encode(sorted(tag for tag, present in self.tags.items() if present))
        return (self.kind, a["document"], a["start"]["passage"], a["start"]["offset"], a["end"]["passage"],
                a["end"]["offset"], a["quote"], a["prefix"], a["suffix"], self.edition, a["edition"], self.note,
                self.color, tags, int(self.deleted), packed(self.clocks["kind"][0]), packed(self.updated), clocks,
                self.id)


def chain_digest(previous, columns, wall=None):
    """The digest of a change stored as `columns` (the seven texts of CHANGE_COLUMNS before wall) after `previous`
    (hex); its wall time, when it has one, follows them as decimal text."""
    data = bytearray(bytes.fromhex(previous))
    for column in (*columns, *(() if wall is None else (str(wall),))):
        encoded = column.encode("utf-8")
        data += len(encoded).to_bytes(4, "big") + encoded
    return hashlib.sha256(data).hexdigest()


class Importer:
    def __init__(self, db, source):
        self.db, self.batch, self.own_device_seen, self.source, self.receipt = db, [], False, source, None
        self.device = db.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()[0]
        self.report = dict.fromkeys(("changesRead", "newChanges", "duplicates", "annotationsCreated", "updates",
                                     "deletions", "conflictsResolved", "pending", "quarantined",
                                     "releasedFromQuarantine"), 0)
        self.report = {"dryRun": False, **self.report, "renewedDeviceId": None}  # as `marginalia --json import`

    def add(self, line, change):
        self.report["changesRead"] += 1
        self.batch.append((line, change))
        if len(self.batch) >= BATCH:
            self.flush()

    def _select_in(self, sql, keys):
        keys = list(keys)
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            yield from self.db.execute(sql.format(",".join("?" * len(part))), part)

    def flush(self):
        batch, self.batch = self.batch, []
        known = {row[0]: row[1:] for row in self._select_in(
            f"SELECT {CHANGE_COLUMNS} FROM changes WHERE change_id IN ({{}})", {c[0] for _, c in batch})}
        new, runs = [], []  # runs: the devices of the new changes of each run of SWIFT_MERGE_BATCH changes read
        for index, (line, change) in enumerate(batch):
            if index % SWIFT_MERGE_BATCH == 0:
                runs.append(set())
            stored = known.get(change[0])
            if stored is not None:
                if tuple(stored) != (*change[1:7], change[8]):
                    raise ArchiveError(f"change {change[0]} differs from the change with the same id already in "
                                       f"the store", line)
                self.report["duplicates"] += 1
                continue
            known[change[0]] = (*change[1:7], change[8])
            new.append(change)
            runs[-1].add(change[2])
            self.own_device_seen |= change[2] == self.device
        if new and self.receipt is None:
            path, size, sha256 = self.source
            self.db.execute("INSERT INTO receipts (received_at, kind, file, size, sha256, changes_read, new_changes, "
                            "duplicates, quarantined) VALUES (?, 'import', ?, ?, ?, 0, 0, 0, 0)",
                            (iso8601(time.time_ns() // 1_000_000), path, size, sha256))
            self.receipt = self.db.execute("SELECT last_insert_rowid()").fetchone()[0]
        for devices in runs:
            self.db.executemany("INSERT INTO devices (id) VALUES (?) ON CONFLICT (id) DO NOTHING",
                                [(device,) for device in sorted(devices)])
        numbers = dict(self.db.execute("SELECT id, number FROM devices"))
        head = self.db.execute("SELECT digest FROM changes ORDER BY seq DESC LIMIT 1").fetchone()
        digest, rows = head[0] if head else GENESIS, []
        for change in new:
            digest = chain_digest(digest, change[:7], change[8])
            rows.append((change[0], packed(change[1]), numbers[change[2]], *change[3:7], change[8], digest,
                         self.receipt))
        self.db.executemany(
            f"INSERT INTO changes ({LOG_COLUMNS}, digest, receipt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self.report["newChanges"] += len(new)
        self._project(new, numbers)

    def _project(self, changes, numbers):
        """Applies `changes` (just inserted) to the current tables; `numbers` holds every device's number by id."""
        annotation_ids = {c[4] for c in changes if c[3] == "annotation"}
        documents = {c[4] for c in changes if c[3] == "position"}
        ids = {number: device for device, number in numbers.items()}
        registers = {row[0]: Registers.from_row(row, ids) for row in self._select_in(
            f"SELECT {ANNOTATION_COLUMNS}, clocks FROM annotations WHERE id IN ({{}})", annotation_ids)}
        positions = {row[0]: list(row[1:]) for row in self._select_in(
            "SELECT document, passage, offset, clock FROM positions WHERE document IN ({})", documents)}
        created, updated, moved = [], set(), set()
        waiting = {change[0] for change in changes}  # inserted, but not yet reached in file order
        for cid, hlc, device, entity, entity_id, op, _, fields, _ in changes:
            waiting.discard(cid)
            stamp = (hlc, device, cid)
            if entity == "device":
                # A device's name: the latest naming change wins (DeviceNames.apply).
                self.db.execute("INSERT INTO devices (id) VALUES (?) ON CONFLICT (id) DO NOTHING", (entity_id,))
                clock = self.db.execute("SELECT name_clock FROM devices WHERE id = ?", (entity_id,)).fetchone()[0]
                if clock is not None and tuple(clock.split(" ")) >= stamp:
                    continue
                self.db.execute("UPDATE devices SET name = ?, name_clock = ? WHERE id = ?",
                                (fields["name"], " ".join(stamp), entity_id))
                self.report["updates"] += 1
            elif entity == "position":
                current = positions.get(entity_id)
                if current is not None and tuple(current[2].split(" ")) >= stamp:
                    self.report["conflictsResolved"] += 1
                    continue
                positions[entity_id] = [fields["passage"], fields["offset"], " ".join(stamp)]
                moved.add(entity_id)
                self.report["updates"] += 1
            elif (reg := registers.get(entity_id)) is not None:
                was_deleted, updated_before = reg.deleted, reg.updated
                won, lost = reg.apply(stamp, fields)
                self.report["conflictsResolved"] += lost
                if won or reg.updated != updated_before:
                    updated.add(entity_id)
                    self.report["updates"] += won > 0
                    self.report["deletions"] += reg.deleted and not was_deleted
            elif op == "create":
                # The first create seen: fold every change the log holds for this id, early arrivals included
                # (but not the changes later in this batch: they are applied when reached, as one by one).
                reg = registers[entity_id] = Registers(entity_id)
                # In stamp order (hlc, device id, change id); the log's device column is a number, not the id.
                early = sorted(((unpacked(clock), ids[number], early_id), body) for early_id, clock, number, body
                               in self.db.execute("SELECT change_id, hlc, device, fields FROM changes WHERE entity = "
                                                  "'annotation' AND entity_id = ?", (entity_id,))
                               if early_id not in waiting)
                for early_stamp, early_fields in early:
                    reg.apply(early_stamp, json.loads(early_fields))
                created.append(entity_id)
                self.report["annotationsCreated"] += 1
                self.report["deletions"] += reg.deleted
            else:
                self.report["pending"] += 1
        self.db.executemany(
            "INSERT INTO annotations (kind, document, start_passage, start_offset, end_passage, end_offset, quote, "
            "prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc, "
            "clocks, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [registers[aid].row(numbers) for aid in created])
        self.db.executemany(
            "UPDATE annotations SET kind = ?, document = ?, start_passage = ?, start_offset = ?, end_passage = ?, "
            "end_offset = ?, quote = ?, prefix = ?, suffix = ?, created_edition = ?, anchor_edition = ?, note = ?, "
            "color = ?, tags = ?, deleted = ?, created_hlc = ?, updated_hlc = ?, clocks = ? WHERE id = ?",
            [registers[aid].row(numbers) for aid in updated - set(created)])
        self.db.executemany(
            "INSERT INTO positions (document, passage, offset, updated_hlc, clock) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (document) DO UPDATE SET passage = excluded.passage, offset = excluded.offset, "
            "updated_hlc = excluded.updated_hlc, clock = excluded.clock",
            [(doc, *positions[doc][:2], positions[doc][2][:21], positions[doc][2]) for doc in sorted(moved)])

    def finish(self):
        self.flush()
        if self.receipt is not None:
            r = self.report
            self.db.execute("UPDATE receipts SET changes_read = ?, new_changes = ?, duplicates = ? WHERE id = ?",
                            (r["changesRead"], r["newChanges"], r["duplicates"], self.receipt))
        if self.own_device_seen:
            renewed = str(uuid.uuid4())
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'device_id'", (renewed,))
            self.report["renewedDeviceId"] = renewed
        return self.report


def open_store(path):
    """Opens a user database for writing, creating it (schema, PRAGMAs, meta) when absent or empty."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as file:
            if file.read(16) != b"SQLite format 3\x00":
                raise ArchiveError(f"{path} is not an SQLite database")
    db = sqlite3.connect(path, isolation_level=None)
    app_id, version = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("application_id", "user_version"))
    if app_id == 0 and version == 0 and db.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0] == 0:
        with open(USER_SQL, encoding="utf-8") as file:
            schema = file.read()
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(f"BEGIN IMMEDIATE;\n{schema}\nINSERT INTO meta (key, value) VALUES ('device_id', "
                         f"'{uuid.uuid4()}'), ('created_at', '{iso8601(time.time_ns() // 1_000_000)}');\n"
                         f"PRAGMA application_id = {APPLICATION_ID};\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    elif app_id != APPLICATION_ID or version != SCHEMA_VERSION:
        raise ArchiveError(f"{path} is not a marginalia user store of schema version {SCHEMA_VERSION}")
    if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
        raise ArchiveError(f"{path}: cannot switch to WAL journal mode")
    db.execute("PRAGMA synchronous = FULL")
    return db


def import_archive(store, path):
    db = open_store(store)
    try:
        with open(path, "rb") as file:
            data = file.read()
        db.execute("BEGIN IMMEDIATE")
        importer = Importer(db, (path, len(data), hashlib.sha256(data).hexdigest()))
        for line, change in records(path, time.time_ns() // 1_000_000):
            importer.add(line, change)
        report = importer.finish()
        db.execute("COMMIT")
        return report
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.close()


def main(argv):
    if len(argv) != 4 or argv[1] not in ("export", "import"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        if argv[1] == "export":
            counts = export(argv[2], argv[3])
            print(f"Exported {counts['change']} changes, {counts['annotation']} annotations and "
                  f"{counts['position']} reading positions to {argv[3]}", file=sys.stderr)
        else:
            print(_encode(import_archive(argv[2], argv[3])))
    except (ArchiveError, sqlite3.Error, OSError) as error:
        print(f"error: {argv[3]}: {error}", file=sys.stderr)
        return 65 if isinstance(error, ArchiveError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
