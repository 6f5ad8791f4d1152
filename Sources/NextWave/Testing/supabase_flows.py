"""Next Wave's flows, driven by the official Supabase Python client against a running Pier (NextWaveEndToEndTests).

An independent client: supabase-py's auth and PostgREST sub-packages send what the apps' supabase-swift and supabase-kt
send (the same wire), and decode the answers the way the apps rely on. Each flow is one of the app's calls (its file
named); a failed check raises, and every passed step prints one JSON line for the test to read.

Usage: supabase_flows.py BASE_URL ANON_KEY PIER_BINARY  (DATABASE_URL in the environment, for `pier nextwave archive`)
"""
import datetime
import os
import subprocess
import sys
import time

import httpx
from postgrest.exceptions import APIError
from supabase import create_client
from supabase_auth.errors import AuthApiError

from flow_steps import check, step, utc

base, anon, pier = sys.argv[1:4]




def refused(call, code):
    try:
        call()
    except APIError as error:
        check(error.code == code, f"expected {code}, got {error.code}: {error.message}")
        return
    raise AssertionError(f"expected a refusal {code}")


# SupabaseManager.ensureSession: an anonymous sign-in.
rider = create_client(base, anon)
session = rider.auth.sign_in_anonymously().session
check(session is not None and session.user.is_anonymous, "an anonymous session")
uid = session.user.id
check(uid == uid.lower() and len(uid) == 36, "a lower-case UUID")
step("signup", expires_in=session.expires_in)

# The rider's name (CheckinAPI.syncProfileName) and a check-in (checkIn): upserts by on_conflict, merging.
wave = f"8503671_{utc(7200)}_ZSG-12"
rider.table("user_profiles").upsert({"user_id": uid, "display_name": "  Fede  "}, on_conflict="user_id").execute()
row = {"wave_id": wave, "user_id": uid, "display_name": "Fede", "departure_at": utc(7200), "station_id": "Thalwil (See)_8503674",
       "lake_id": "Zürichsee", "is_first_of_day": False, "is_last_of_day": True}
rider.table("wave_checkins").upsert(row, on_conflict="wave_id,user_id").execute()
rider.table("wave_checkins").upsert(row, on_conflict="wave_id,user_id").execute()  # the same again: still one
step("checkin")

# A second rider, anonymous on the same wave: the count is 2, the names list only the chosen one.
other = create_client(base, anon)
other_uid = other.auth.sign_in_anonymously().session.user.id
other.table("wave_checkins").upsert({**row, "user_id": other_uid, "display_name": None}, on_conflict="wave_id,user_id").execute()
lonely = f"8503671_{utc(9000)}_ZSG-14"
other.table("wave_checkins").upsert({**row, "wave_id": lonely, "user_id": other_uid, "display_name": None,
                                     "departure_at": utc(9000)}, on_conflict="wave_id,user_id").execute()

# CheckinAPI.counts: no session needed (the public key alone); waves nobody is on are left out; names never null.
public = create_client(base, anon)
counts = public.rpc("wave_checkin_counts", {"wave_ids": [wave, lonely, "nobody_2030-01-01T00:00:00Z_1"]}).execute().data
by_wave = {c["wave_id"]: c for c in counts}
check(set(by_wave) == {wave, lonely}, f"two waves counted: {counts}")
check(by_wave[wave]["count"] == 2 and by_wave[wave]["names"] == ["Fede"], f"the wave: {by_wave[wave]}")
check(by_wave[lonely]["count"] == 1 and by_wave[lonely]["names"] == [], f"only anonymous riders: names is []: {by_wave[lonely]}")
again = public.rpc("wave_checkin_counts", {"wave_ids": [wave, lonely, "nobody_2030-01-01T00:00:00Z_1"]}).execute().data
check(again == counts, "the same answer from memory")
step("counts")

# CheckinAPI.myCheckins: the rider's own rows; another rider's are never readable.
mine = rider.table("wave_checkins").select("wave_id").eq("user_id", uid).in_("wave_id", [wave, lonely]).execute().data
check(mine == [{"wave_id": wave}], f"my check-ins: {mine}")
theirs = rider.table("wave_checkins").select("*").eq("user_id", other_uid).execute().data
check(theirs == [], "another rider's rows are not readable")
everything = public.table("wave_checkins").select("*").execute().data
check(everything == [], "the public key reads no check-in row")
# What a new app version may use: the total (Prefer: count=exact) and one object (Accept: application/vnd.pgrst.object+json).
counted = rider.table("wave_checkins").select("wave_id", count="exact").eq("user_id", uid).limit(0).execute()
check(counted.count == 1 and counted.data == [], f"the total past the limit: {counted.count}")
single = rider.table("wave_checkins").select("wave_id").eq("user_id", uid).single().execute().data
check(single == {"wave_id": wave}, f"one object: {single}")
refused(lambda: rider.table("wave_checkins").select("wave_id").eq("user_id", other_uid).single().execute(), "PGRST116")
step("my-checkins")

# Row-level security: a row for somebody else is refused; the public key alone writes nothing.
refused(lambda: rider.table("wave_checkins").upsert({**row, "user_id": other_uid}, on_conflict="wave_id,user_id").execute(), "42501")
refused(lambda: public.table("user_profiles").upsert({"user_id": uid, "display_name": "x"}).execute(), "42501")
# A name past 40 characters is cut, never refused (the Android dialog has no cap; a refusal would lose a check-in).
cut = rider.table("user_profiles").upsert({"user_id": uid, "display_name": "x" * 41 + "\u0007"}, on_conflict="user_id").execute().data
check(cut and cut[0]["display_name"] == "x" * 40, f"a long name is cut to 40 characters: {cut}")
# 40 characters as the app counts them (Swift's Characters): a surfer emoji is one, of four code points.
long = "Fede " + "\U0001F3C4\u200D\u2640\uFE0F" * 35
accepted = rider.table("user_profiles").upsert({"user_id": uid, "display_name": long}, on_conflict="user_id").execute().data
check(accepted and accepted[0]["display_name"] == long, "a name of 40 characters with emoji is accepted")
rider.table("user_profiles").upsert({"user_id": uid, "display_name": "Fede"}, on_conflict="user_id").execute()
refused(lambda: rider.table("wave_checkins").select("nope").execute(), "42703")
late = {**row, "wave_id": f"8503671_{utc(-3600)}_ZSG-9", "departure_at": utc(-3600)}
refused(lambda: rider.table("wave_checkins").upsert(late, on_conflict="wave_id,user_id").execute(), "23514")
check(rider.table("wave_checkins").select("wave_id").eq("wave_id", late["wave_id"]).execute().data == [], "a refused check-in is not stored")
refused(lambda: rider.table("no_such_table").select("*").execute(), "PGRST205")
step("refusals")

# CheckinAPI.checkOut.
other.table("wave_checkins").delete().eq("wave_id", lonely).eq("user_id", other_uid).execute()
counts = public.rpc("wave_checkin_counts", {"wave_ids": [lonely]}).execute().data
check(counts == [], f"checked out: {counts}")
step("checkout")

# PushAPI: the APNs token, upserted at every launch.
token = "ab" * 32
rider.table("device_tokens").upsert({"user_id": uid, "token": token, "platform": "ios"}, on_conflict="user_id,token").execute()
rider.table("device_tokens").upsert({"user_id": uid, "token": token, "platform": "ios"}, on_conflict="user_id,token").execute()
tokens = rider.table("device_tokens").select("token,platform").eq("user_id", uid).execute().data
check(tokens == [{"token": token, "platform": "ios"}], f"one token: {tokens}")
step("device-token")

# VerifiedRidesAPI: sessionExists, upload with ignore-duplicates (a re-import changes nothing), user_verified_stats.
session_key = "f" * 64
verified = {"user_id": uid, "session_key": session_key, "source": "foilmotion", "start_at": utc(-86400), "end_at": utc(-86000),
            "total_distance": 1234.5, "duration": 400, "moving_time": 300, "max_speed": 6.5, "longest_ride": 800.0,
            "station_id": "Thalwil (See)_8503674", "lake_id": "Zürichsee"}
exists = rider.table("verified_sessions").select("session_key").eq("user_id", uid).eq("session_key", session_key).limit(1).execute().data
check(exists == [], "not imported yet")
rider.table("verified_sessions").upsert(verified, on_conflict="user_id,session_key", ignore_duplicates=True).execute()
rider.table("verified_sessions").upsert({**verified, "total_distance": 1.0}, on_conflict="user_id,session_key", ignore_duplicates=True).execute()
stats = rider.rpc("user_verified_stats", {}).execute().data
check(stats == [{"session_count": 1, "total_distance_m": 1234.5, "longest_ride_m": 800, "max_speed_ms": 6.5, "distinct_stations": 1}], f"verified: {stats}")
step("verified")

# WaterLevelHistoryAPI: the chart reads Pier's history (MeteoNews' name, any case); the app's write changes nothing.
since = (datetime.date.today() - datetime.timedelta(days=39)).isoformat()
history = rider.table("lake_water_levels").select("date,level_m").eq("lake_name", "zürichsee").gte("date", since).order("date").execute().data
check(len(history) >= 2 and all(isinstance(h["level_m"], (int, float)) for h in history), f"Pier's levels: {history}")
check(history == sorted(history, key=lambda h: h["date"]), "in date order")
rider.table("lake_water_levels").upsert({"lake_name": "Zürichsee", "date": history[-1]["date"], "level_m": 999.0},
                                        on_conflict="lake_name,date").execute()
after = rider.table("lake_water_levels").select("date,level_m").eq("lake_name", "Zürichsee").gte("date", since).order("date").execute().data
check(after == history, "a phone's write does not rewrite a lake's history")
step("lake-levels", days=len(history))

# A ride: checked in for a departure minutes ago, then the nightly archive (`pier nextwave archive`).
ridden = f"8503674_{utc(-120)}_ZSG-3"
rider.table("wave_checkins").upsert({**row, "wave_id": ridden, "departure_at": utc(-120)}, on_conflict="wave_id,user_id").execute()
archive = subprocess.run([pier, "nextwave", "archive"], capture_output=True, text=True, env=os.environ)
check(archive.returncode == 0, archive.stdout + archive.stderr)
check("archived 1 rides of 1 riders" in archive.stdout, archive.stdout)
again = subprocess.run([pier, "nextwave", "archive"], capture_output=True, text=True, env=os.environ)
check("archived 0 rides" in again.stdout, "archived once: " + again.stdout)
step("archive")

# StatsAPI: the 18 statistics, station counts, the leaderboard (global and per station).
stats = rider.rpc("user_wave_stats", {}).execute().data
check(len(stats) == 1 and len(stats[0]) == 18, f"18 statistics: {stats}")
check(stats[0]["total_waves"] == 2 and stats[0]["distinct_stations"] == 1 and stats[0]["last_of_day_count"] == 1, f"stats: {stats}")
check(stats[0]["solo_count"] == 1 and isinstance(stats[0]["seasons_ridden"], list) and len(stats[0]["seasons_ridden"]) == 1, f"stats: {stats}")
stations = rider.rpc("user_station_counts", {}).execute().data
check(stations == [{"station_id": "Thalwil (See)_8503674", "waves": 2}], f"stations: {stations}")
board = rider.rpc("wave_leaderboard", {"p_station_id": None, "p_limit": 50}).execute().data
check(board == [{"rank": 1, "display_name": "Fede", "total_waves": 2, "is_me": True}], f"leaderboard: {board}")
theirs = other.rpc("wave_leaderboard", {"p_station_id": "Thalwil (See)_8503674", "p_limit": 50}).execute().data
check(theirs == [{"rank": 1, "display_name": "Fede", "total_waves": 2, "is_me": False},
                 {"rank": 2, "display_name": "You", "total_waves": 0, "is_me": True}], f"not ranked yet: {theirs}")
refused(lambda: public.rpc("user_wave_stats", {}).execute(), "42501")
refused(lambda: rider.rpc("user_wave_stats_for", {"uid": other_uid}).execute(), "PGRST202")
refused(lambda: rider.rpc("process_new_badges", {"uids": [uid]}).execute(), "PGRST202")
step("stats")

# The session: refreshed (a new refresh token), the user shown, signed out.
refreshed = rider.auth.refresh_session().session
check(refreshed.refresh_token != session.refresh_token and refreshed.user.id == uid, "a rotated refresh token")
check(rider.auth.get_user().user.id == uid, "the user")
try:
    other.auth.refresh_session("not-a-token")
    raise AssertionError("an unknown refresh token is refused")
except AuthApiError as error:
    check(error.code == "refresh_token_not_found", f"the auth server's error code: {error.code}")
step("refresh")

# Deleting everything about oneself (Pier's own: DELETE /auth/v1/user with the access token).
access = refreshed.access_token
gone = httpx.delete(f"{base}/auth/v1/user", headers={"apikey": anon, "Authorization": f"Bearer {access}"})
check(gone.status_code == 204, f"deleted: {gone.status_code} {gone.text}")
left = httpx.get(f"{base}/auth/v1/user", headers={"apikey": anon, "Authorization": f"Bearer {access}"})
check(left.status_code == 403, f"the user is gone: {left.status_code}")
counts = public.rpc("wave_checkin_counts", {"wave_ids": [wave]}).execute().data
check(counts == [{"wave_id": wave, "count": 1, "names": []}], f"the rider's check-in went with them: {counts}")
board = other.rpc("wave_leaderboard", {"p_station_id": None, "p_limit": 50}).execute().data
check(board == [{"rank": 1, "display_name": "You", "total_waves": 0, "is_me": True}], f"and their rides: {board}")
other.auth.sign_out()
step("delete-user")
