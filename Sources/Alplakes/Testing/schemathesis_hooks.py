"""`/v1/alplakes/…/point/…/{start}/{end}/{depth}` refuses a window whose start is not before its end, as the
upstream does; two independent path parameters cannot say so in JSON Schema, so a valid pair in the wrong order is
swapped (and an equal pair widened to the pattern's last minute).
"""
import re

import schemathesis
from schemathesis_shared import operation_path

POINT = "/v1/alplakes/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}"
STAMP = re.compile(r"^[0-9]{12}$")


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    if operation_path(context) != POINT or not isinstance(path_parameters, dict):
        return path_parameters
    start, end = path_parameters.get("start"), path_parameters.get("end")
    if not (isinstance(start, str) and isinstance(end, str) and STAMP.match(start) and STAMP.match(end)):
        return path_parameters
    if start > end:
        path_parameters["start"], path_parameters["end"] = end, start
    elif start == end:
        # The last and first minutes the schema's pattern allows.
        if end != "999912282359":
            path_parameters["end"] = "999912282359"
        else:
            path_parameters["start"] = "000001010000"
    return path_parameters
