"""The device routes' secret: `POST /v1/devices` answers it once; later calls on that device (the stateful phase) send
it as the bearer token, as the app does. Cases whose device schemathesis made up keep what they had (401 or 404).
A valid token is made unique per request: the same token registered twice replaces the first registration (as
documented), which a stateful sequence would take for a created resource that vanished. A place saved by name is made
one FMI knows (the double's Kumpula): which names exist is FMI's data, not the schema's, and an unknown name is answered
`422`, which schemathesis would count as a schema-valid body refused."""
import re
import secrets

import schemathesis
from schemathesis_shared import operation_path

_secrets = {}


@schemathesis.hook
def after_call(context, case, response):
    if operation_path(context) == "/v1/devices" and case.method.upper() == "POST" and response.status_code == 201:
        try:
            made = response.json()
            _secrets[made["id"]] = made["secret"]
        except (ValueError, KeyError, TypeError):
            pass


@schemathesis.hook
def before_call(context, case, kwargs):
    path = operation_path(context)
    if path in ("/v1/devices", "/v1/devices/{id}") and isinstance(case.body, dict):
        token = case.body.get("token")
        if isinstance(token, str) and re.fullmatch(r"([0-9a-fA-F]{2}){8,100}", token):
            case.body = {**case.body, "token": secrets.token_hex(32)}
        places = case.body.get("places")
        if isinstance(places, list):
            known = [{"place": "Kumpula"} if isinstance(p, dict) and isinstance(p.get("place"), str) and len(p) == 1 else p for p in places]
            case.body = {**case.body, "places": known}
    if path != "/v1/devices/{id}":
        return
    secret = _secrets.get((case.path_parameters or {}).get("id"))
    if secret is not None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {secret}"}
