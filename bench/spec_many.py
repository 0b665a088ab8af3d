"""Section (k)'s inputs: an OpenAPI document of N operations (`GET /things<i>/{id}`, each with a response schema) and
a manifest of N targets, one per operation, whose stubs fit; the same targets under a base path the document does
not have (`/v9`), so that every target misses and asks for its "did you mean"; and the targets with their first segment
misspelt (`/thingz<i>/<i>`), so that each misses and its nearest operation is a near spelling among many.

  python3 bench/spec_many.py OUT_DIR N   writes OUT_DIR/spec-N.yaml and OUT_DIR/spec-N{,-miss,-renamed}/api.json
"""

import json
import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
lines = ["openapi: 3.0.3", "info: {title: many, version: '1'}", "servers: [{url: 'https://api.example.com/v1'}]",
         "paths:"]
for i in range(n):
    lines += [f"  /things{i}/{{id}}:", "    get:",
              "      parameters: [{name: id, in: path, required: true, schema: {type: string}}]",
              "      responses:", "        '200':", "          description: ok", "          content:",
              "            application/json:",
              "              schema: {type: object, properties: {id: {type: integer}, name: {type: string}}}"]
with open(f"{out}/spec-{n}.yaml", "w") as spec:
    spec.write("\n".join(lines) + "\n")
for name, base, word in ((f"spec-{n}", "/v1", "things"), (f"spec-{n}-miss", "/v9", "things"),
                         (f"spec-{n}-renamed", "/v1", "thingz")):
    targets = [{"name": f"t{i}", "method": "GET", "path": f"/{word}{i}/{i}",
                "sampleData": {"json": {"id": i, "name": "x"}}} for i in range(n)]
    os.makedirs(f"{out}/{name}", exist_ok=True)
    with open(f"{out}/{name}/api.json", "w") as manifest:
        json.dump({"service": "Many", "baseURL": f"https://api.example.com{base}", "targets": targets}, manifest)
