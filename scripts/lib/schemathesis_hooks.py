"""schemathesis hooks for Pier's OpenAPI test (SCHEMATHESIS_HOOKS=<this file>): every module's own.

A route whose parameters have a constraint JSON Schema cannot say (a window relative to today, two parameters that go
together) brings its hooks in its module's `Testing/schemathesis_hooks.py`; this file loads them all, so a new one needs
no line here. Each moves schema-valid values into what the route accepts and leaves invalid ones as they are: the
negative phase still checks that they are refused. Helpers several modules use are in `schemathesis_shared.py`.
"""
import importlib.util
import pathlib
import sys

_here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(_here))

for _path in sorted(_here.parents[1].glob("Sources/*/Testing/schemathesis_hooks.py")):
    _spec = importlib.util.spec_from_file_location(f"pier_hooks_{_path.parent.parent.name}", _path)
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
