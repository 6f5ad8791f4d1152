"""Wikipedia: the two fixture summaries (any other title is the replay's 404: no such page) and the app's search for
the Schöner Brunnen; any other search (`search=*`) finds no titles."""

SUMMARY = "https://de.wikipedia.org/api/rest_v1/page/summary/"
OPENSEARCH = "https://de.wikipedia.org/w/api.php?action=opensearch&search={}&limit=5&namespace=0&format=json"


def record(demo):
    wikipedia = demo.fixtures / "wikipedia"
    demo.capture("wikipedia", "wikipedia", [
        (SUMMARY + "Kaiserburg_N%C3%BCrnberg", "application/json; charset=utf-8",
         (wikipedia / "summary-Kaiserburg_Nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
        (SUMMARY + "Sch%C3%B6ner_Brunnen", "application/json; charset=utf-8",
         (wikipedia / "summary-Schoener_Brunnen.json").read_bytes(), "2026-11-23T10:00:00Z"),
        (OPENSEARCH.format("Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg"), "application/json; charset=utf-8",
         (wikipedia / "opensearch-Schoener_Brunnen_Nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
        (OPENSEARCH.format("*"), "application/json; charset=utf-8", b'["",[],[],[]]', "2026-11-23T10:00:00Z"),
    ], "2026-11-23T10:00:00Z")
