#!/usr/bin/env python3
"""Writes an all-Finland FMI observations document (timevaluepair, N stations x 7 parameters x 7 ten-minute
steps, as one real all-stations call returns) with scripts/fixtures/gen_fmi.py's writer, for scripts/bench.
Usage: make_fmi_bench.py GEN_FMI_PATH OUT.xml [STATIONS]"""
import datetime as dt, importlib.util, random, sys

spec = importlib.util.spec_from_file_location("gen_fmi", sys.argv[1])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
rng = random.Random(7)
stations = [(100000 + i, f"Station {i}", round(rng.uniform(59.8, 70.0), 5), round(rng.uniform(20.0, 31.5), 5)) for i in range(count)]
doc, _ = gen.observations(rng, dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, second=0, microsecond=0), stations, 0.05)
open(sys.argv[2], "w").write(doc)
