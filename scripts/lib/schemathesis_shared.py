"""What several modules' schemathesis hooks share (see schemathesis_hooks.py)."""


def operation_path(context):
    """The path template of the operation a hook is called for, or None."""
    operation = getattr(context, "operation", None)
    return getattr(operation, "path", None) if operation is not None else None


def point_or_place(case):
    """A point as `lat` and `lon` together, or a `place` instead — never both, never neither: three optional parameters
    cannot say so in JSON Schema, so a `place` drops the coordinates sent beside it, and a query without `place` gets
    the `lat`/`lon` it lacks (Helsinki's). Values sent are never changed."""
    if not isinstance(case.query, dict):
        return
    if "place" in case.query:
        case.query.pop("lat", None)
        case.query.pop("lon", None)
    else:
        case.query.setdefault("lat", 60.17)
        case.query.setdefault("lon", 24.94)
