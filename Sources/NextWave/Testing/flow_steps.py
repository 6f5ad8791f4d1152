"""What the community's flow scripts share (supabase_flows.py, realtime_flows.py): one JSON line per passed step for
the test to read, a check that raises, and a departure time in the app's format."""
import datetime
import json


def step(name, **facts):
    print(json.dumps({"step": name, **facts}), flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def utc(seconds_from_now):
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # the app's format (CheckinAPI)
