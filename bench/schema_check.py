# openapi-schema-validator's side of bench/schema-check: the same bodies against the same schema, the validator
# built once, every error of every body listed (as Tether lists every violation). Runs in .venv.
# Usage: schema_check.py DOCUMENT POINTER BODIES.json DIALECT RUNS
# Prints per run the time to check every body, and a last line `RESULT <median seconds per run> <bodies> <errors>`.
import json
import statistics
import sys
import time

import regress  # noqa: F401  (ECMA-262 patterns, as in the differential test)
from openapi_schema_validator import OAS30Validator, OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT202012

document_path, pointer, bodies_path, dialect, runs = sys.argv[1:6]
with open(document_path, encoding="utf-8") as f:
    document = json.load(f)
with open(bodies_path, encoding="utf-8") as f:
    bodies = json.load(f)
cls = OAS30Validator if dialect == "3.0" else OAS31Validator
specification = DRAFT4 if dialect == "3.0" else DRAFT202012
start = time.perf_counter()
registry = Registry().with_resource("urn:document", Resource.from_contents(document, default_specification=specification))
validator = cls({"$ref": "urn:document" + pointer}, registry=registry, format_checker=cls.FORMAT_CHECKER)
print(f"build: {(time.perf_counter() - start) * 1000:.3f} ms")
times = []
for run in range(1, int(runs) + 1):
    start = time.perf_counter()
    found = sum(len(list(validator.iter_errors(body))) for body in bodies)
    elapsed = time.perf_counter() - start
    times.append(elapsed)
    print(f"run {run}: {elapsed * 1000:.3f} ms for {len(bodies)} bodies ({found} errors)")
print(f"RESULT {statistics.median(times):.6f} {len(bodies)} {found}")
