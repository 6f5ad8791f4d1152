"""`/v1/stationboard` refuses a `date` or `datetime` more than 366 days from today (Zurich) and a `datetime` whose
day contradicts `date`: no timetable answers them, so they must not cost an upstream call. A window relative to
today cannot be written in JSON Schema, so schema-valid dates are moved into it here (deterministically, from
the generated value), and a generated `datetime` takes the generated `date`'s day. Invalid values are left as
they are: the negative phase still checks that they are refused.
"""
import datetime
import re
import zoneinfo

import schemathesis
from schemathesis_shared import operation_path

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


@schemathesis.hook
def map_query(context, query):
    if operation_path(context) != "/v1/stationboard" or not isinstance(query, dict):
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
