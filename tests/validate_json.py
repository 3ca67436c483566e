#!/usr/bin/env python3
# Validates lockcheck's JSON documents against the JSON Schemas shipped in docs/, with the
# python3-jsonschema package: usage `validate_json.py DOCS_DIR FILE_OR_DIR...` (a directory: the
# *.json in it; one that does not exist: none). Each document is checked against the schema
# its "schema" field names; every error is printed as FILE: PATH: MESSAGE.
# Works with Debian 12's jsonschema 4.10 and with later ones (which resolve $ref through the
# `referencing` package instead of RefResolver).
import json
import pathlib
import sys

import jsonschema


def load_schemas(docs):
    schemas = {}
    for path in sorted(pathlib.Path(docs).glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        schemas[schema["title"]] = schema
    return schemas


def validator_for(schema, schemas):
    by_id = {s["$id"]: s for s in schemas.values()}
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    try:
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (uri, Resource.from_contents(s)) for uri, s in by_id.items())
        return cls(schema, registry=registry)
    except (ImportError, TypeError):  # before jsonschema 4.18
        resolver = jsonschema.RefResolver.from_schema(schema, store=by_id)
        return cls(schema, resolver=resolver)


def main(argv):
    if len(argv) < 3:
        print("usage: validate_json.py DOCS_DIR FILE_OR_DIR...", file=sys.stderr)
        return 2
    schemas = load_schemas(argv[1])
    validators = {name: validator_for(s, schemas) for name, s in schemas.items()}
    paths = []
    for arg in argv[2:]:
        if pathlib.Path(arg).is_dir():
            paths += sorted(str(p) for p in pathlib.Path(arg).glob("*.json"))
        elif pathlib.Path(arg).exists() or not arg.endswith("/"):
            paths.append(arg)
    failed = False
    for path in paths:
        try:
            doc = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"{path}: {e}")
            failed = True
            continue
        name = doc.get("schema") if isinstance(doc, dict) else None
        if name not in validators:
            print(f"{path}: no schema named {name!r} in {argv[1]}")
            failed = True
            continue
        for error in sorted(validators[name].iter_errors(doc), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message[:300]}")
            failed = True
    print(f"{len(paths)} documents, {'not all' if failed else 'all'} valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
