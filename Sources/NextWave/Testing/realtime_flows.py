"""Live check-ins through the official Supabase Realtime Python client (`realtime`, protocol 1.0.0) against two Pier
replicas on one database (NextWaveRealtimeTests): rider A subscribes as the apps do (channel `wave_checkins_live`, any
event on `public.wave_checkins`, no filter) on the first replica while rider B checks in and out through the second;
A's callback must fire within 3 s each time, with the wave and no rider in the payload. A join for a table nobody
publishes, and one with a forged token, are refused in the reply. Every passed step prints one JSON line.

Usage: realtime_flows.py BASE_URL_A BASE_URL_B ANON_KEY
"""
import asyncio
import json
import sys
import time

from realtime import AsyncRealtimeClient, RealtimeSubscribeStates
from supabase import create_client

from flow_steps import check, step, utc

base_a, base_b, anon = sys.argv[1:4]




async def subscribed(client, name, table="wave_checkins", on_change=None):
    """A channel joined as CheckinStore joins it; returns the channel and the state the subscription reached."""
    states = asyncio.Queue()
    channel = client.channel(name)
    channel.on_postgres_changes("*", on_change or (lambda payload: None), table=table, schema="public")
    await channel.subscribe(lambda state, error: states.put_nowait((state, error)))
    state, error = await asyncio.wait_for(states.get(), timeout=5)
    return channel, state, error


async def main():
    rider_a = create_client(base_a, anon).auth.sign_in_anonymously().session
    rider_b = create_client(base_b, anon)
    uid_b = rider_b.auth.sign_in_anonymously().session.user.id

    events = asyncio.Queue()
    loop = asyncio.get_running_loop()
    client = AsyncRealtimeClient(f"{base_a}/realtime/v1", anon)
    await client.set_auth(rider_a.access_token)
    await client.connect()
    channel, state, error = await subscribed(
        client, "wave_checkins_live", on_change=lambda payload: loop.call_soon_threadsafe(events.put_nowait, (time.monotonic(), payload)))
    check(state == RealtimeSubscribeStates.SUBSCRIBED, f"subscribed, not {state} {error}")
    step("subscribed")

    # Rider B checks in through the other replica (CheckinAPI.checkIn's upsert).
    wave = f"8503671_{utc(7200)}_ZSG-12"
    row = {"wave_id": wave, "user_id": uid_b, "display_name": "Rider B", "departure_at": utc(7200),
           "station_id": "Thalwil (See)_8503674", "lake_id": "Zürichsee", "is_first_of_day": False, "is_last_of_day": False}
    sent = time.monotonic()
    rider_b.table("wave_checkins").upsert(row, on_conflict="wave_id,user_id").execute()
    received, payload = await asyncio.wait_for(events.get(), timeout=3)
    data = payload["data"]
    check(data["type"] == "INSERT" and data["table"] == "wave_checkins" and data["schema"] == "public", f"an insert: {data}")
    check(data["record"]["wave_id"] == wave and data["record"]["lake_id"] == "Zürichsee", f"the wave: {data['record']}")
    check(set(data["record"]) == {"wave_id", "station_id", "lake_id", "departure_at"}, f"no rider in the record: {data['record']}")
    check(uid_b not in json.dumps(payload) and "Rider B" not in json.dumps(payload), "no user id or name anywhere")
    check(data["commit_timestamp"].endswith("Z") and payload["ids"], f"a commit time and the binding's id: {payload}")
    step("insert", seconds=round(received - sent, 3))

    # The check-out (CheckinAPI.checkOut): a delete, its old record the wave's.
    sent = time.monotonic()
    rider_b.table("wave_checkins").delete().eq("wave_id", wave).eq("user_id", uid_b).execute()
    received, payload = await asyncio.wait_for(events.get(), timeout=3)
    check(payload["data"]["type"] == "DELETE" and payload["data"]["old_record"]["wave_id"] == wave, f"a delete: {payload}")
    step("delete", seconds=round(received - sent, 3))

    # What is not published, and a token not of this project, are refused in the join's reply.
    _, state, error = await subscribed(client, "users", table="user_profiles")
    check(state == RealtimeSubscribeStates.CHANNEL_ERROR, f"user_profiles refused, not {state}")
    step("unpublished-refused")
    forged = AsyncRealtimeClient(f"{base_a}/realtime/v1", anon)
    await forged.set_auth(rider_a.access_token[:-4] + ("AAAA" if not rider_a.access_token.endswith("AAAA") else "BBBB"))
    await forged.connect()
    _, state, error = await subscribed(forged, "wave_checkins_live")
    check(state == RealtimeSubscribeStates.CHANNEL_ERROR, f"a forged token refused, not {state}")
    step("forged-refused")
    await forged.close()

    await channel.unsubscribe()
    await client.close()
    step("closed")


asyncio.run(main())
