#!/usr/bin/env python3
"""Writes Demo/ (the recordings `pier serve --demo` replays) from the fixtures in Tests/Fixtures, in the capture
format of `pier fetch --save` (NNN.body + NNN.json, run.json). Run it again after changing a fixture.
Each upstream's recording is made by its own module in scripts/demo/ (a `record(demo)` function); this script
knows none of them: it runs every module there, in name order."""
import importlib.util, json, pathlib, shutil, sys

root = pathlib.Path(__file__).resolve().parents[2]


class Demo:
    """What a recorder gets: where the fixtures are, and `capture` to write one recorded run."""
    fixtures = root / "Tests" / "Fixtures"
    folder = root / "Demo"
    scripts = root / "scripts"

    def capture(self, folder, source, exchanges, started):
        """Writes a run of `source` into Demo/<folder>: `exchanges` are (url, content type, body, received at)."""
        path = self.folder / folder
        path.mkdir(parents=True)
        for index, (url, content_type, body, received) in enumerate(exchanges, start=1):
            name = f"{index:03d}"
            (path / f"{name}.body").write_bytes(body)
            meta = {"url": url, "status": 200, "headers": {"Content-Type": content_type}, "receivedAt": received, "body": f"{name}.body"}
            (path / f"{name}.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        run = {"source": source, "outcome": "ok", "startedAt": started, "exchanges": len(exchanges)}
        (path / "run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    demo = Demo()
    shutil.rmtree(demo.folder, ignore_errors=True)
    sys.path.insert(0, str(root / "scripts" / "lib"))
    sys.path.insert(0, str(root / "scripts" / "fixtures"))
    for recorder in sorted((root / "scripts" / "demo").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"demo_{recorder.stem}", recorder)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.record(demo)
