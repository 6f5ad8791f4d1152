"""OpenWeather's 5-day forecast for any point (scripts/fixtures/gen_openweather.py); counts calls and points."""
import json, threading

import gen_openweather

LOCK = threading.Lock()
CALLS = [0]
CELLS = {}
FORECASTS = {}


def forecast(lat, lon):
    key = (round(lat, 4), round(lon, 4))
    with LOCK:
        cached = FORECASTS.get(key)
    if cached is None:
        cached = json.dumps(gen_openweather.forecast(lat, lon)).encode()
        with LOCK:
            FORECASTS[key] = cached
    return cached


def handle(path, query):
    if path != "/data/2.5/forecast":
        return None
    lat, lon = float(query.get("lat", ["0"])[0]), float(query.get("lon", ["0"])[0])
    with LOCK:
        CALLS[0] += 1
        CELLS[(lat, lon)] = CELLS.get((lat, lon), 0) + 1
    return 200, forecast(lat, lon)


def stats():
    with LOCK:
        return {"openweather": CALLS[0], "cells": len(CELLS), "per_cell_max": max(CELLS.values(), default=0)}
