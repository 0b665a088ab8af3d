"""Section (k)'s inputs: an OpenAPI document of N operations (`GET /things<i>/{id}`, each with a response schema) and
a manifest of N targets, one per operation, whose stubs fit; and the same targets under a base path the document does
not have (`/v9`), so that every target misses and asks for its "did you mean".

  python3 bench/spec_many.py OUT_DIR N   writes OUT_DIR/spec-N.yaml, OUT_DIR/spec-N/api.json, OUT_DIR/spec-N-miss/api.json
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
targets = [{"name": f"t{i}", "method": "GET", "path": f"/things{i}/{i}", "sampleData": {"json": {"id": i, "name": "x"}}}
           for i in range(n)]
for name, base in ((f"spec-{n}", "/v1"), (f"spec-{n}-miss", "/v9")):
    os.makedirs(f"{out}/{name}", exist_ok=True)
    with open(f"{out}/{name}/api.json", "w") as manifest:
        json.dump({"service": "Many", "baseURL": f"https://api.example.com{base}", "targets": targets}, manifest)
