#!/usr/bin/env python3
"""Validate a Marginalia archive (.jsonl.gz) against the JSON Schemas in schemas/.

    python3 scripts/validate_archive.py ARCHIVE.jsonl.gz [--schemas DIR] [--strict-order]

Reads the gzip file with the standard library and validates every line against archive-record.schema.json
with a Draft 2020-12 validator whose $refs resolve to the files in the schemas directory (never over the
network). Checks what the Swift reader checks beyond the schemas too: one complete gzip member, every line
ending with a line feed, strict UTF-8 JSON (no byte order mark, repeated key, NaN, lone surrogate; an integer
must be written without fraction or exponent), ids and texts within their limits in UTF-8 bytes, an anchor's end
not before its start, no change dated more than 24 hours ahead of this machine's clock, and the line order: the
header first, then (format 4) the receipts, then the changes, then the state records (annotations, positions), the trailer last, with counts
equal to the records read. With --strict-order it also checks the order marginalia writes: changes by (hlc,
device, changeId) in format 1 (from format 2 on they are in the writer's log order), annotations by id, then
positions by document.

Prints "ok: N lines" and exits 0, or prints each error with its line number and exits 1.
Needs the jsonschema package (4.x; `pip install jsonschema`).
"""
import argparse
import json
import re
import sys
import time
import unicodedata
import zlib
from pathlib import Path

import jsonschema
from jsonschema import Draft202012Validator, ValidationError, validators

try:  # jsonschema >= 4.18
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:  # older 4.x: RefResolver
    Registry = None

MAX_LINE_BYTES = 16 << 20
MAX_DRIFT_MS = 24 * 60 * 60 * 1000
RECORD_SCHEMA = "archive-record.schema.json"
# UTF-8 byte limits the schemas can only approximate with code points: (record type, path) -> bytes.
ID_BYTES, TEXT_BYTES, CONTEXT_BYTES = 256, 1 << 20, 1024


def ecma_pattern(pattern):
    """The Python form of an ECMA-262 pattern: a final `$` must match only at the very end, as in ECMA-262
    (Python's `$` also matches before a final line feed)."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + r"\Z"
    return pattern


_compiled = {}


def pattern_keyword(validator, pattern, instance, schema):
    if not validator.is_type(instance, "string"):
        return
    regex = _compiled.get(pattern)
    if regex is None:
        regex = _compiled[pattern] = re.compile(ecma_pattern(pattern))
    if not regex.search(instance):
        if len(pattern) <= 40 or "description" not in schema:
            yield ValidationError(f"{instance!r} does not match {pattern!r}")
        else:  # a long pattern says less than the description beside it
            yield ValidationError(f"{instance!r} is refused: {schema['description']}")


def is_integer(checker, instance):
    # Marginalia reads 3.0 or 3e0 as a double, never as an integer; Python's json gives them as float.
    return type(instance) is int


StrictValidator = validators.extend(
    Draft202012Validator,
    validators={"pattern": pattern_keyword},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer),
)


def load_validator(directory):
    schemas = {}
    for path in sorted(Path(directory).glob("archive-*.schema.json")):
        schemas[path.name] = json.loads(path.read_text(encoding="utf-8"))
    if RECORD_SCHEMA not in schemas:
        raise SystemExit(f"error: {directory} has no {RECORD_SCHEMA}")
    for schema in schemas.values():
        Draft202012Validator.check_schema(schema)
        # Without this, following a $ref into a schema that names its draft would switch back to the plain
        # Draft 2020-12 validator (validator_for), dropping the strict integer and pattern rules above.
        schema.pop("$schema", None)
    root = schemas[RECORD_SCHEMA]
    if Registry is not None:
        resources = []
        for name, schema in schemas.items():
            resource = Resource.from_contents(schema, default_specification=DRAFT202012)
            resources.append((schema.get("$id", name), resource))
        return StrictValidator(root, registry=Registry().with_resources(resources))
    store = {schema.get("$id", name): schema for name, schema in schemas.items()}
    resolver = jsonschema.RefResolver.from_schema(root, store=store)
    return StrictValidator(root, resolver=resolver)


class ArchiveProblem(Exception):
    pass


def read_lines(path):
    """Yields (number, bytes) for each line of a one-member gzip file; refuses what the Swift reader refuses."""
    inflater, pending, number = zlib.decompressobj(31), b"", 0
    with open(path, "rb") as file:
        if file.read(2) != b"\x1f\x8b":
            raise ArchiveProblem("not a gzip file")
        file.seek(0)
        while chunk := file.read(1 << 20):
            if inflater.eof:
                raise ArchiveProblem("data after the end of the gzip member")
            try:
                data = inflater.decompress(chunk)
            except zlib.error as error:
                raise ArchiveProblem(f"corrupt gzip data: {error}") from None
            if inflater.eof and inflater.unused_data:
                raise ArchiveProblem("data after the end of the gzip member (a second member?)")
            *complete, pending = (pending + data).split(b"\n")
            for line in complete:
                number += 1
                if line.endswith(b"\r"):
                    raise ArchiveProblem(f"line {number}: ends with CR LF; archive lines end with LF alone")
                yield number, line
            if len(pending) > MAX_LINE_BYTES:
                raise ArchiveProblem(f"line {number + 1}: longer than {MAX_LINE_BYTES} bytes")
    if not inflater.eof:
        raise ArchiveProblem("truncated: the gzip member ends early")
    if pending:
        raise ArchiveProblem(f"line {number + 1}: truncated: the last line does not end with a line feed")


def _no_duplicates(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"key {key!r} is repeated")
            seen.add(key)
    return result


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse_line(raw):
    if len(raw) > MAX_LINE_BYTES:
        raise ValueError(f"longer than {MAX_LINE_BYTES} bytes")
    if not raw:
        raise ValueError("empty line")
    text = raw.decode("utf-8")  # strict: refuses invalid UTF-8 and encoded surrogates
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def _strings(value, path="$"):
    """(path, string, whether it is a key) of every string in a record."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", key, True
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _byte_limit(record_type, path):
    name = path.rsplit(".", 1)[-1].split("[")[0]
    if name in ("document", "edition", "anchorEdition", "passage", "editions", "entityId"):
        return ID_BYTES
    if record_type == "change" and name in ("prefix", "suffix"):
        return CONTEXT_BYTES
    if name in ("quote", "prefix", "suffix", "note", "color"):
        return TEXT_BYTES
    return None


def beyond_schema(record, now_ms):
    """What the Swift reader refuses and a JSON Schema cannot say."""
    problems = []
    record_type = record.get("type")
    labels = list(record.get("tags") or []) if record_type == "annotation" else []
    if record_type == "annotation" and isinstance(record.get("color"), str):
        labels.append(record["color"])
    fields = record.get("fields") if record_type == "change" else None
    if isinstance(fields, dict):
        labels += list(fields.get("tags") or {}) if isinstance(fields.get("tags"), dict) else []
        if isinstance(fields.get("color"), str) and fields["color"]:
            labels.append(fields["color"])
    for label in labels:
        if isinstance(label, str) and unicodedata.normalize("NFC", label) != label:
            problems.append(f"tag or color {label!r}: not in Unicode normalization form C (NFC)")
    for path, text, is_key in _strings(record):
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            problems.append(f"{path}: holds a lone surrogate escape")
            continue
        limit = None if is_key or path.startswith("$.filter") else _byte_limit(record_type, path)
        if limit is not None and size > limit:
            problems.append(f"{path}: {size} bytes of UTF-8, more than {limit}")
    if record_type == "change":
        fields = record.get("fields")
        if isinstance(fields, dict) and isinstance(fields.get("start"), dict) and isinstance(fields.get("end"), dict):
            start, end = fields["start"], fields["end"]
            if (start.get("passage") == end.get("passage") and isinstance(start.get("offset"), int)
                    and isinstance(end.get("offset"), int) and end["offset"] < start["offset"]):
                problems.append("$.fields.end.offset: is before start.offset")
        hlc = record.get("hlc")
        if isinstance(hlc, str) and re.fullmatch(r"[0-9]{15}-[0-9]{5}", hlc) and int(hlc[:15]) > now_ms + MAX_DRIFT_MS:
            problems.append(f"$.hlc: {hlc} is more than 24 hours ahead of this machine's clock")
    return problems


def validate(path, validator, strict_order=False):
    """Returns (number of lines, list of (line number or None, message))."""
    errors = []
    counts = {"change": 0, "annotation": 0, "position": 0}
    section, trailer_line, lines, unparsed = "start", None, 0, False
    previous, changes_by_clock = {}, True
    receipts, format_version = set(), None
    now_ms = time.time_ns() // 1_000_000
    try:
        for number, raw in read_lines(path):
            lines = number
            try:
                record = parse_line(raw)
            except (ValueError, RecursionError) as error:
                errors.append((number, f"invalid JSON: {error}"))
                unparsed = True
                continue
            for error in sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path)):
                message = f"{error.json_path}: {error.message}"
                if error.context:  # anyOf: say why each branch failed
                    message += " (" + "; ".join(dict.fromkeys(e.message for e in error.context)) + ")"
                errors.append((number, message))
            errors.extend((number, problem) for problem in beyond_schema(record, now_ms))
            record_type = record.get("type") if isinstance(record, dict) else None
            if record_type not in ("header", "receipt", "change", "annotation", "position", "trailer"):
                continue
            if trailer_line is not None:
                errors.append((number, f"a {record_type} record after the trailer (line {trailer_line})"))
            elif section == "start" and record_type != "header":
                errors.append((number, "the first line is not a header"))
            elif section != "start" and record_type == "header":
                errors.append((number, "a second header"))
            elif section == "state" and record_type == "change":
                errors.append((number, "a change after the state records"))
            elif record_type == "receipt" and (counts["change"] or section == "state"):
                errors.append((number, "a receipt after the changes"))
            if record_type == "header":
                section = "changes" if section == "start" else section
                # From format 2 on the changes are in the writer's log order, which the file cannot show.
                changes_by_clock = record.get("formatVersion") == 1
                format_version = record.get("formatVersion") if isinstance(record.get("formatVersion"), int) else None
            elif record_type == "receipt":
                if format_version is not None and format_version < 4:
                    errors.append((number, f"a receipt record in an archive of format {format_version}"))
                if record.get("id") in receipts:
                    errors.append((number, f"a second receipt {record.get('id')}"))
                receipts.add(record.get("id"))
            elif record_type == "change":
                counts["change"] += 1
                if "receipt" in record and record["receipt"] not in receipts:
                    errors.append((number, f"$.receipt: names receipt {record['receipt']}, which no receipt record "
                                           "before the changes declares"))
                key = (record.get("hlc"), record.get("device"), record.get("changeId"))
                last = previous.get("change")
                if (strict_order and changes_by_clock and last and all(isinstance(k, str) for k in key + last)
                        and key <= last):
                    errors.append((number, "changes are not in (hlc, device, changeId) order"))
                previous["change"] = key
            elif record_type in ("annotation", "position"):
                section = "state"
                counts[record_type] += 1
                key = record.get("id" if record_type == "annotation" else "document")
                if strict_order:
                    if record_type == "annotation" and "position" in previous:
                        errors.append((number, "an annotation after the positions"))
                    last = previous.get(record_type)
                    if isinstance(key, str) and isinstance(last, str) and key <= last:
                        errors.append((number, f"{record_type} records are not in order of "
                                               f"{'id' if record_type == 'annotation' else 'document'}"))
                previous[record_type] = key
            elif record_type == "trailer":
                trailer_line = number
                declared = record.get("counts")
                if isinstance(declared, dict) and declared != counts and not unparsed:
                    errors.append((number, f"the trailer counts {declared}, but the archive holds {counts}"))
    except ArchiveProblem as problem:
        errors.append((None, str(problem)))
    except OSError as error:
        errors.append((None, f"cannot read: {error}"))
        return lines, errors
    if lines == 0 and not errors:
        errors.append((None, "the archive holds no records"))
    elif trailer_line is None and not unparsed and not any(line is None for line, _ in errors):
        errors.append((lines, "truncated: no trailer (the last line, with the record counts)"))
    return lines, errors


def main(argv=None):
    parser = argparse.ArgumentParser(description="Validate a Marginalia archive against its JSON Schemas.")
    parser.add_argument("archive", help="the archive (.jsonl.gz)")
    parser.add_argument("--schemas", default=str(Path(__file__).resolve().parent.parent / "schemas"),
                        help="the directory of archive-*.schema.json (default: the repository's schemas/)")
    parser.add_argument("--strict-order", action="store_true",
                        help="also check that records are sorted as marginalia writes them")
    arguments = parser.parse_args(argv)
    validator = load_validator(arguments.schemas)
    lines, errors = validate(arguments.archive, validator, arguments.strict_order)
    if not errors:
        print(f"ok: {lines} lines")
        return 0
    for line, message in errors:
        print(f"{arguments.archive}:{line}: {message}" if line else f"{arguments.archive}: {message}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
