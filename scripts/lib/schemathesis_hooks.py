"""schemathesis hooks for Pier's OpenAPI test (SCHEMATHESIS_HOOKS=<this file>): every module's own.

A route whose parameters have a constraint JSON Schema cannot say (a window relative to today, two parameters that go
together) brings its hooks in its module's `Testing/schemathesis_hooks.py`; this file loads them all, so a new one needs
no line here. Each moves schema-valid values into what the route accepts and leaves invalid ones as they are: the
negative phase still checks that they are refused. Helpers several modules use are in `schemathesis_shared.py`.
"""
import importlib.util
import pathlib
import sys

import hypothesis.internal.reflection as _reflection
import hypothesis.strategies._internal.core as _core
import hypothesis.strategies._internal.deferred as _deferred
import hypothesis.strategies._internal.flatmapped as _flatmapped
import hypothesis.strategies._internal.lazy as _lazy


def _described_safely(describe):
    """hypothesis names a filter's function in a strategy's repr by parsing its source; on CPython 3.11 that parse can
    fail deep in a stack with "AST constructor recursion depth mismatch" (gh-106905), which schemathesis reports as a
    runtime error of the run. The repr is only a description: fall back to the function's name."""
    def description(fn):
        try:
            return describe(fn)
        except (SystemError, RecursionError):
            return getattr(fn, "__name__", "<function>")
    return description


_described = _described_safely(_reflection.get_pretty_function_description)
for _module in (_reflection, _core, _deferred, _flatmapped, _lazy):
    _module.get_pretty_function_description = _described

_here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(_here))

for _path in sorted(_here.parents[1].glob("Sources/*/Testing/schemathesis_hooks.py")):
    _spec = importlib.util.spec_from_file_location(f"pier_hooks_{_path.parent.parent.name}", _path)
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
