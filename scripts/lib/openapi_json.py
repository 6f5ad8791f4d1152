#!/usr/bin/env python3
"""openapi.yaml -> the JSON /openapi.json must serve, as PyYAML reads it, on stdout.
The build embeds the document with a YAML reader of its own (Sources/OpenAPIJSON, the EmbedOpenAPI plugin: the
product has no YAML library); PierTests' OpenAPITests compares what the binary serves with this, byte for byte.
Usage: openapi_json.py   (needs PyYAML: the test tools' virtual environment has it)"""
import json, pathlib, sys
import yaml

root = pathlib.Path(__file__).resolve().parents[2]
document = yaml.safe_load((root / "openapi.yaml").read_text(encoding="utf-8"))
sys.stdout.write(json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
