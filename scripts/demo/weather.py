"""FMI: the all-stations observations and a point forecast, both anchored at 2026-11-23T06:00:00Z (the replay moves
them to the current hour)."""

WFS = "https://opendata.fmi.fi/wfs?service=WFS&version=2.0.0&request=getFeature&storedquery_id="


def record(demo):
    demo.capture("weather", "weather", [
        (WFS + "fmi::observations::weather::timevaluepair&bbox=19.1,59.7,31.7,70.1&starttime=2026-11-23T05:00:00Z&endtime=2026-11-23T06:00:00Z"
         "&timestep=10&parameters=t2m,ws_10min,wd_10min,rh,p_sea,wawa,n_man", "text/xml; charset=UTF-8",
         (demo.fixtures / "fmi" / "observations.xml").read_bytes(), "2026-11-23T06:00:00Z"),
        (WFS + "fmi::forecast::edited::weather::scandinavia::point::timevaluepair&latlon=60.1700,24.9400&timestep=60"
         "&parameters=Temperature,WindSpeedMS,WindDirection,Humidity,Pressure,Precipitation1h,WeatherSymbol3", "text/xml; charset=UTF-8",
         (demo.fixtures / "fmi" / "forecast-point.xml").read_bytes(), "2026-11-23T06:00:00Z"),
    ], "2026-11-23T06:00:00Z")
