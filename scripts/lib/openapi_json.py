#!/usr/bin/env python3
"""openapi.yaml -> Sources/Operations/OpenAPIDocument.swift (the JSON form pier serves at /openapi.json).
The product has no YAML parser; this script (run by scripts/test in --check mode) keeps the two in step.
Usage: openapi_json.py [--check]   (needs PyYAML: the test tools' virtual environment has it)"""
import json, pathlib, sys
import yaml

root = pathlib.Path(__file__).resolve().parents[2]
document = yaml.safe_load((root / "openapi.yaml").read_text(encoding="utf-8"))
text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
assert '"##' not in text, "the JSON would end the Swift raw string early"
swift = (
    "// Generated from openapi.yaml by scripts/lib/openapi_json.py: do not edit. scripts/test fails when it is stale.\n\n"
    "/// `openapi.yaml` as compact JSON (sorted keys), served at `GET /openapi.json`.\n"
    "enum OpenAPIDocument {\n"
    f"    static let json = ##\"{text}\"##\n"
    "}\n"
)
target = root / "Sources" / "Operations" / "OpenAPIDocument.swift"
if "--check" in sys.argv:
    if not target.exists() or target.read_text(encoding="utf-8") != swift:
        sys.exit(f"{target.relative_to(root)} is not openapi.yaml's JSON: run scripts/lib/openapi_json.py (with the .build/python environment)")
else:
    target.write_text(swift, encoding="utf-8")
