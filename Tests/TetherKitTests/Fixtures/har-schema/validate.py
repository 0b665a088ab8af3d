# Checks a HAR file against the HAR 1.2 JSON Schema beside this script (ahmadnassri/har-schema).
# Usage: python3 validate.py FILE.har; prints every error and exits 1 when there are any.
import json, os, sys
import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
schemas = {}
for name in os.listdir(here):
    if name.endswith(".json"):
        with open(os.path.join(here, name)) as f:
            schema = json.load(f)
        schemas[schema["$id"].rstrip("#")] = schema
store = {key: value for key, value in schemas.items()}
store.update({key + "#": value for key, value in schemas.items()})
resolver = jsonschema.RefResolver(base_uri="", referrer=schemas["har.json"], store=store)
validator = jsonschema.Draft6Validator(
    schemas["har.json"], resolver=resolver, format_checker=jsonschema.FormatChecker())
with open(sys.argv[1], encoding="utf-8-sig") as f:
    har = json.load(f)
errors = sorted(validator.iter_errors(har), key=lambda e: list(e.absolute_path))
for error in errors:
    print("/".join(str(p) for p in error.absolute_path) + ": " + error.message)
sys.exit(1 if errors else 0)
