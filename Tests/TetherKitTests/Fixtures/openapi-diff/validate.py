# Validates JSON bodies against schemas of OpenAPI documents with openapi-schema-validator (OAS30Validator or
# OAS31Validator, formats checked, ECMA-262 patterns through regress), the independent validator the schema check's
# differential test compares with. Runs in .venv (scripts/python-venv); reads nothing but its arguments' files.
#
# Usage: validate.py INPUT.jsonl   (each line: {"dialect": "3.0", "document": PATH, "pointer": "#/...", "body": ...})
# Prints one line per input line: "1" when the body is valid, else "0<TAB>the first error's message".
import json
import sys

import regress  # noqa: F401  (openapi-schema-validator uses ECMA-262 patterns when it is installed)
from openapi_schema_validator import OAS30Validator, OAS31Validator
from openapi_schema_validator._regex import has_ecma_regex
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT202012

assert has_ecma_regex(), "regress is not installed: patterns would be Python's re, not ECMA-262"

documents = {}
validators = {}


def validator(dialect, path, pointer):
    key = (dialect, path, pointer)
    if key not in validators:
        if path not in documents:
            with open(path, encoding="utf-8") as f:
                documents[path] = json.load(f)
        cls = OAS30Validator if dialect == "3.0" else OAS31Validator
        specification = DRAFT4 if dialect == "3.0" else DRAFT202012
        resource = Resource.from_contents(documents[path], default_specification=specification)
        registry = Registry().with_resource("urn:document", resource)
        validators[key] = cls({"$ref": "urn:document" + pointer}, registry=registry, format_checker=cls.FORMAT_CHECKER)
    return validators[key]


with open(sys.argv[1], encoding="utf-8") as f:
    lines = [json.loads(line) for line in f if line.strip()]
out = []
for case in lines:
    errors = validator(case["dialect"], case["document"], case["pointer"]).iter_errors(case["body"])
    error = next(iter(errors), None)
    out.append("1" if error is None else "0\t" + " ".join(str(error.message).split())[:300])
sys.stdout.write("\n".join(out) + "\n")
