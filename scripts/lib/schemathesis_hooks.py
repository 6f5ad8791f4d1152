"""schemathesis hooks for Pier's OpenAPI test (SCHEMATHESIS_HOOKS=<this file>).

`/v1/stationboard` refuses a `date` or `datetime` more than 366 days from today (Zurich) and a `datetime` whose
day contradicts `date`: no timetable answers them, so they must not cost an upstream call. A window relative to
today cannot be written in JSON Schema, so schema-valid dates are moved into it here (deterministically, from
the generated value), and a generated `datetime` takes the generated `date`'s day. Invalid values are left as
they are: the negative phase still checks that they are refused.

`/v1/nsw/departures` refuses a `date` (`YYYYMMDD`, Sydney) more than a day in the past or 28 days ahead, for the
same reason; a schema-valid date is moved to a day from today to 28 days ahead — before every call (`before_call`),
since the coverage phase builds its `00000000` without the `map_query` hook.

`/v1/weather` and `/v1/warnings` take a point as `lat` and `lon` together, or a `place` instead — never both, never neither; three
optional parameters cannot say so in JSON Schema, so before every call a `place` drops the coordinates sent beside
it, and a query without `place` gets the `lat`/`lon` it lacks (Helsinki's). Values sent are never changed.

`/v1/alplakes/…/point/…/{start}/{end}/{depth}` refuses a window whose start is not before its end, as the
upstream does; two independent path parameters cannot say so in JSON Schema, so a valid pair in the wrong
order is swapped (and an equal pair widened to the pattern's last minute).
"""
import datetime
import re
import zoneinfo

import schemathesis

DATE = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})$")
DATETIME = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})([ T].*)$")
WINDOW_DAYS = 366


def _today():
    return datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Zurich")).date()


def _into_window(text):
    """A `YYYY-MM-DD` with a real month and day (any year, 0000 included: Python's dates start at year 1) moved
    to a day within the window, chosen from its digits; anything else unchanged."""
    year, month, day = (int(part) for part in text.split("-"))
    try:
        # Year 0 is a leap year in the proleptic calendar, as 2000 is; an impossible date stays as it is, for
        # the negative phase to see it refused.
        datetime.date(year or 2000, month, day)
    except ValueError:
        return text
    offset = (year * 372 + month * 31 + day) % (2 * WINDOW_DAYS - 1) - (WINDOW_DAYS - 1)
    return (_today() + datetime.timedelta(days=offset)).isoformat()


NSW_DATE = re.compile(r"^([0-9]{4})([0-9]{2})([0-9]{2})$")
NSW_DAYS_AHEAD = 28


def _into_sydney_window(text):
    """Any `YYYYMMDD` the pattern allows (a real date: the schema says which days a month has) moved to a day
    from today to 28 days ahead in Sydney, chosen from its digits."""
    year, month, day = (int(part) for part in NSW_DATE.match(text).groups())
    today = datetime.datetime.now(zoneinfo.ZoneInfo("Australia/Sydney")).date()
    return (today + datetime.timedelta(days=(year * 372 + month * 31 + day) % (NSW_DAYS_AHEAD + 1))).strftime("%Y%m%d")


@schemathesis.hook
def map_query(context, query):
    operation = getattr(context, "operation", None)
    path = getattr(operation, "path", None) if operation is not None else None
    if path != "/v1/stationboard" or not isinstance(query, dict):
        return query
    date = query.get("date")
    if isinstance(date, str) and DATE.match(date):
        query["date"] = date = _into_window(date)
    stamp = query.get("datetime")
    if isinstance(stamp, str):
        match = DATETIME.match(stamp)
        if match:
            day = date if isinstance(date, str) and DATE.match(date) else _into_window(match.group(1))
            query["datetime"] = day + match.group(2)
    return query


POINT = "/v1/alplakes/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}"
STAMP = re.compile(r"^[0-9]{12}$")


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    operation = getattr(context, "operation", None)
    if operation is None or getattr(operation, "path", None) != POINT or not isinstance(path_parameters, dict):
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


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = getattr(context, "operation", None)
    path = getattr(operation, "path", None) if operation is not None else None
    if path in ("/v1/weather", "/v1/warnings") and isinstance(case.query, dict):
        if "place" in case.query:
            case.query.pop("lat", None)
            case.query.pop("lon", None)
        else:
            case.query.setdefault("lat", 60.17)
            case.query.setdefault("lon", 24.94)
        return
    if path != "/v1/nsw/departures" or not isinstance(case.query, dict):
        return
    date = case.query.get("date")
    if isinstance(date, str) and NSW_DATE.match(date):
        case.query["date"] = _into_sydney_window(date)
