"""`/v1/nsw/departures` refuses a `date` (`YYYYMMDD`, Sydney) more than a day in the past or 28 days ahead: no
timetable answers it, so it must not cost an upstream call. A schema-valid date is moved to a day from today to 28
days ahead — before every call (`before_call`), since the coverage phase builds its `00000000` without the
`map_query` hook.
"""
import datetime
import re
import zoneinfo

import schemathesis
from schemathesis_shared import operation_path

NSW_DATE = re.compile(r"^([0-9]{4})([0-9]{2})([0-9]{2})$")
NSW_DAYS_AHEAD = 28


def _into_sydney_window(text):
    """Any `YYYYMMDD` the pattern allows (a real date: the schema says which days a month has) moved to a day
    from today to 28 days ahead in Sydney, chosen from its digits."""
    year, month, day = (int(part) for part in NSW_DATE.match(text).groups())
    today = datetime.datetime.now(zoneinfo.ZoneInfo("Australia/Sydney")).date()
    return (today + datetime.timedelta(days=(year * 372 + month * 31 + day) % (NSW_DAYS_AHEAD + 1))).strftime("%Y%m%d")


@schemathesis.hook
def before_call(context, case, kwargs):
    if operation_path(context) != "/v1/nsw/departures" or not isinstance(case.query, dict):
        return
    date = case.query.get("date")
    if isinstance(date, str) and NSW_DATE.match(date):
        case.query["date"] = _into_sydney_window(date)
