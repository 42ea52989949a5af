#!/usr/bin/env python3
"""Checks a W3C Web Annotation export against the W3C test suite's must-assertions.

Usage: check_w3c_musts.py EXPORT.json [SUITE_DIR]

EXPORT.json is what `marginalia export FILE --format w3c` writes: an AnnotationCollection whose pages hold the
annotations (one Annotation, or an array of them, is read too). SUITE_DIR is the W3C suite
(w3c/web-annotation-tests; default: Tests/Fixtures/peers/w3c-web-annotation-tests beside this script). Every
annotation is validated against every assertion listed in annotations/annotationMusts.test (draft-04 JSON Schemas,
their references resolved inside the suite's definitions/), with formats (date-time, uri) checked; each assertion
must give its expectedResult. Prints one line per failure and a summary; exits 1 when any fails, 2 when the export
cannot be read or holds no annotation.
"""
import json
import os
import sys
import warnings

import jsonschema
from jsonschema import Draft4Validator, FormatChecker

warnings.filterwarnings("ignore", category=DeprecationWarning)
from jsonschema import RefResolver  # noqa: E402  (deprecated in jsonschema 4.18, still the draft-04 way)


def annotations_of(value):
    if isinstance(value, list):
        return [a for item in value for a in annotations_of(item)]
    if not isinstance(value, dict):
        return []
    kinds = value.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "Annotation" in kinds:
        return [value]
    if "AnnotationCollection" in kinds:
        return annotations_of(value.get("first"))
    if "AnnotationPage" in kinds:
        found = [a for item in value.get("items", []) for a in annotations_of(item)]
        return found + annotations_of(value.get("next"))
    return []


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    suite = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else
                            os.path.join(here, "..", "Tests", "Fixtures", "peers", "w3c-web-annotation-tests"))
    try:
        with open(sys.argv[1], encoding="utf-8") as file:
            export = json.load(file)
    except (OSError, ValueError) as error:
        print(f"{sys.argv[1]}: cannot read: {error}", file=sys.stderr)
        return 2
    annotations = annotations_of(export)
    if not annotations:
        print(f"{sys.argv[1]}: holds no annotation", file=sys.stderr)
        return 2
    with open(os.path.join(suite, "annotations", "annotationMusts.test"), encoding="utf-8") as file:
        names = json.load(file)["assertions"]
    checker = FormatChecker()
    for needed in ("date-time", "uri"):
        if needed not in checker.checkers:
            print(f"jsonschema cannot check the format {needed}: install rfc3339-validator and rfc3987",
                  file=sys.stderr)
            return 2
    # References are relative to the suite's definitions (annotations.json, bodyTarget.json, id.json, …); each
    # schema is also known by its own id (which may differ from its file name in case), for its local references.
    base = "file://" + os.path.join(suite, "definitions") + "/"
    store = {}
    for name in os.listdir(os.path.join(suite, "definitions")):
        with open(os.path.join(suite, "definitions", name), encoding="utf-8") as file:
            definition = json.load(file)
        store[base + name] = definition
        if isinstance(definition.get("id"), str):
            store[base + definition["id"]] = definition
    schemas = []
    for name in names:
        with open(os.path.join(suite, name), encoding="utf-8") as file:
            schema = json.load(file)
        store[base + schema.get("id", os.path.basename(name))] = schema
        schemas.append((name, schema))
    validators = []
    for name, schema in schemas:
        resolver = RefResolver(base_uri=base + schema.get("id", os.path.basename(name)), referrer=schema, store=store)
        validators.append((name, schema.get("expectedResult", "valid"),
                           Draft4Validator(schema, resolver=resolver, format_checker=checker)))
    failures = 0
    for index, annotation in enumerate(annotations):
        for name, expected, validator in validators:
            valid = validator.is_valid(annotation)
            if valid != (expected == "valid"):
                failures += 1
                print(f"annotation {index + 1} ({annotation.get('id')}): {name} expected {expected}, "
                      f"got {'valid' if valid else 'invalid'}")
    print(f"{len(annotations)} annotations, {len(validators)} must-assertions each: "
          f"{'all pass' if failures == 0 else f'{failures} failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
