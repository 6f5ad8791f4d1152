"""`/v1/warnings` takes a point as `lat` and `lon`, or a `place` (schemathesis_shared.point_or_place)."""
import schemathesis
from schemathesis_shared import operation_path, point_or_place


@schemathesis.hook
def before_call(context, case, kwargs):
    if operation_path(context) == "/v1/warnings":
        point_or_place(case)
