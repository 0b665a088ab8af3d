#!/usr/bin/env python3
"""Makes a large OpenAPI description (JSON and YAML, 10 MB or more each) from Twilio's vendored REST description
(../twilio/twilio_api_v2010.json, MIT), reproducibly: the same bytes on every run.

  generate.py OUT_DIR [COPIES]

Copy 0 is Twilio's document as it is; copies 1 to COPIES-1 add its paths again under /copy<k>, its components again
with the suffix _copy<k> (every $ref and operationId renamed to match). OUT_DIR receives large.json (indented as the
original) and large.yaml (block style, written here without a YAML library). GitHub's REST description (10 MB) cannot
be brought here: files of 4 MiB and more are missing from the snapshots this project can read."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def build(copies):
    source = json.load(open(os.path.join(HERE, "..", "twilio", "twilio_api_v2010.json")))
    sections = {name: list(members) for name, members in source["components"].items()}

    def renamed(value, suffix):
        if isinstance(value, dict):
            result = {}
            for key, member in value.items():
                if key == "$ref" and isinstance(member, str):
                    match = re.fullmatch(r"#/components/([^/]+)/(.+)", member)
                    member = f"#/components/{match[1]}/{match[2]}{suffix}" if match else member
                elif key == "operationId" and isinstance(member, str):
                    member += suffix
                else:
                    member = renamed(member, suffix)
                result[key] = member
            return result
        if isinstance(value, list):
            return [renamed(element, suffix) for element in value]
        return value

    document = {key: value for key, value in source.items() if key not in ("paths", "components")}
    document["paths"] = {}
    document["components"] = {name: {} for name in sections}
    for k in range(copies):
        suffix = f"_copy{k}" if k else ""
        prefix = f"/copy{k}" if k else ""
        for path, item in source["paths"].items():
            document["paths"][prefix + path] = renamed(item, suffix)
        for name, members in source["components"].items():
            for member, value in members.items():
                document["components"][name][member + suffix] = renamed(value, suffix)
    return document


PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}


def scalar(value):
    if value is None: return "null"
    if value is True: return "true"
    if value is False: return "false"
    if isinstance(value, (int, float)): return json.dumps(value)
    if PLAIN.fullmatch(value) and value.lower() not in RESERVED: return value
    return json.dumps(value, ensure_ascii=False)  # JSON's escapes are YAML's double-quoted escapes


def yaml_lines(value, indent, out):
    pad = " " * indent
    if isinstance(value, dict):
        for key, member in value.items():
            if isinstance(member, (dict, list)) and member:
                out.append(f"{pad}{scalar(str(key))}:")
                yaml_lines(member, indent + 2, out)
            else:
                out.append(f"{pad}{scalar(str(key))}: {empty(member)}")
    else:
        for element in value:
            if isinstance(element, (dict, list)) and element:
                inner = []
                yaml_lines(element, indent + 2, inner)
                out.append(f"{pad}- {inner[0][indent + 2:]}")
                out.extend(inner[1:])
            else:
                out.append(f"{pad}- {empty(element)}")


def empty(value):
    if isinstance(value, dict): return "{}"
    if isinstance(value, list): return "[]"
    return scalar(value)


def main():
    out = sys.argv[1]
    copies = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    document = build(copies)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "large.json"), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, ensure_ascii=False)
    lines = []
    yaml_lines(document, 0, lines)
    with open(os.path.join(out, "large.yaml"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
