"""What the attack scripts share (community_attacks.py, realtime_attacks.py): a keep-alive HTTP client that speaks as
an address behind pier's trusted loopback proxy, a rider signed up on it, pier's resident memory, and the run's
checks. Standard library only (the benchmark's python3)."""
import datetime, http.client, json, sys, time


class Run:
    """The facts one script reports (a JSON line an attack) and the bounds it found broken."""

    def __init__(self):
        self.failures = []

    def check(self, condition, message):
        if not condition:
            self.failures.append(message)

    @staticmethod
    def report(attack, **facts):
        print(json.dumps({"attack": attack, **facts}), flush=True)

    def finish(self):
        if self.failures:
            print("\n".join(self.failures), file=sys.stderr)
            sys.exit(1)


class Client:
    """One keep-alive connection to `target` (a parsed URL); every request from `address` (X-Forwarded-For) with the
    public key `anon` and a bearer (the key when none)."""

    def __init__(self, target, anon, address, bearer=None):
        self.target, self.anon, self.address, self.bearer = target, anon, address, bearer
        self.last = b""
        self.retry_after = None
        self.connection = self.connect()

    def connect(self):
        return http.client.HTTPConnection(self.target.hostname, self.target.port, timeout=60)

    def request(self, method, path, body=None, headers=None, address=None):
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        all_headers = {"apikey": self.anon, "Authorization": f"Bearer {self.bearer or self.anon}", "X-Forwarded-For": address or self.address,
                       "Content-Type": "application/json", **(headers or {})}
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=data, headers=all_headers)
                response = self.connection.getresponse()
                text = response.read()
                self.last = text[:300]
                self.retry_after = response.getheader("Retry-After")
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                return response.status, text
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = self.connect()
                if attempt:
                    return 0, b""

    def sign_up(self):
        """Signs up a new anonymous rider on this connection (kept open: before an attack fills the others) and speaks
        as them from now on; their id and access token."""
        status, text = self.request("POST", "/auth/v1/signup", {})
        if status != 200:
            raise SystemExit(f"sign-up refused: {status} {text[:200]!r}")
        session = json.loads(text)
        self.bearer = session["access_token"]
        return session["user"]["id"], session["access_token"]


def keep_reading(client, path, stopping, lock, reads, pause=0.02):
    """Reads of `path` on `client` until `stopping` is set, counted into `reads` ({"ok": 0, "failed": 0, "statuses": {}},
    under `lock`): the drills' cached reads, which must never fail."""
    while not stopping.is_set():
        status, _ = client.request("GET", path)
        with lock:
            reads["ok" if status == 200 else "failed"] += 1
            if status != 200:
                reads["statuses"][str(status)] = reads["statuses"].get(str(status), 0) + 1
        time.sleep(pause)


def join_payload(bindings, token):
    """A `phx_join`'s payload as the iPhone app (supabase-swift) sends it: no broadcast or presence, the changes asked."""
    return {"config": {"broadcast": {"ack": False, "self": False}, "presence": {"key": "", "enabled": False},
                       "postgres_changes": bindings, "private": False}, "access_token": token}


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def utc(seconds_from_now):
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
