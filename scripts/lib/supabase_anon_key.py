#!/usr/bin/env python3
"""The public key a Supabase project's apps ship, made from its JWT secret: HS256, `role` `anon` (as Supabase made it).
Usage: supabase_anon_key.py SECRET (the benchmarks' community scenarios)."""
import base64, hashlib, hmac, json, sys


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
body = b64(json.dumps({"iss": "supabase", "role": "anon", "iat": 1773187200, "exp": 4929667200}, separators=(",", ":")).encode())
print(f"{head}.{body}.{b64(hmac.new(sys.argv[1].encode(), f'{head}.{body}'.encode(), hashlib.sha256).digest())}")
