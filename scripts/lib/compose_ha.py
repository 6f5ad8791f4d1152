#!/usr/bin/env python3
"""The `ha` profile as compose resolves it (`docker-compose --profile ha config` on stdin), against the Patroni
configuration every node runs (deploy/db/patroni.yml) — what can be proven without a Docker engine:

- etcd1..3, db1, db2, backup1, backup2 exist only under the `ha` profile, from the project's own database image;
- the three etcd members form one cluster: each advertises its own service name, the initial cluster names all three;
- each database node has its own name and addresses (its service name), every etcd member as Patroni's DCS, both
  passwords required before Patroni starts, Pier's role's password from POSTGRES_PASSWORD, its own data and socket
  volumes and the one shared `backups` repository; pgBackRest's data path is Patroni's data directory;
- each node's backup schedule shares its node's data (read-only) and socket and the repository;
- patroni.yml: synchronous mode, pg_rewind, slots, archiving through pier-pgbackrest, post_bootstrap installed by the
  image (deploy/db/Dockerfile copies it);
- the api: two replicas by default, and DATABASE_URL naming the hosts of POSTGRES_HOSTS (given here as the .env would:
  db1:5432,db2:5432) with target_session_attrs=read-write.

Usage: docker-compose … --profile ha config | compose_ha.py REPOSITORY DATABASE_URL (what the api's must be)
"""
import os
import re
import sys

import yaml

repository, database_url = sys.argv[1], sys.argv[2]
services = yaml.safe_load(sys.stdin)["services"]
patroni = yaml.safe_load(open(os.path.join(repository, "deploy/db/patroni.yml")))
dockerfile = open(os.path.join(repository, "deploy/db/Dockerfile")).read()
problems = []


def environment(name):
    value = services.get(name, {}).get("environment", {})
    return dict(item.split("=", 1) for item in value) if isinstance(value, list) else {k: "" if v is None else str(v) for k, v in value.items()}


def volumes(name):
    found = {}
    for volume in services.get(name, {}).get("volumes", []):
        if isinstance(volume, dict):
            found[volume["target"]] = (volume.get("source"), bool(volume.get("read_only")))
        else:
            parts = volume.split(":")
            found[parts[1]] = (parts[0], len(parts) > 2 and "ro" in parts[2])
    return found


etcd = ["etcd1", "etcd2", "etcd3"]
nodes = ["db1", "db2"]
backups = {"db1": "backup1", "db2": "backup2"}
for name in etcd + nodes + list(backups.values()):
    service = services.get(name)
    if service is None:
        problems.append(f"no {name} service under --profile ha")
        continue
    if service.get("profiles") != ["ha"]:
        problems.append(f"{name} is not under exactly the ha profile: {service.get('profiles')}")
    if service.get("image") != services["db"].get("image"):
        problems.append(f"{name} does not run the project's database image ({services['db'].get('image')})")
for name, service in services.items():
    if name not in etcd + nodes + list(backups.values()) and "ha" in (service.get("profiles") or []):
        problems.append(f"{name} is under the ha profile but not checked here")

members = {}
for name in etcd:
    env = environment(name)
    members[name] = env.get("ETCD_NAME")
    if env.get("ETCD_NAME") != name or env.get("ETCD_ADVERTISE_CLIENT_URLS") != f"http://{name}:2379" \
            or env.get("ETCD_INITIAL_ADVERTISE_PEER_URLS") != f"http://{name}:2380":
        problems.append(f"{name} does not advertise itself: {env}")
    cluster = dict(item.split("=", 1) for item in env.get("ETCD_INITIAL_CLUSTER", "").split(",") if "=" in item)
    if cluster != {member: f"http://{member}:2380" for member in etcd}:
        problems.append(f"{name}'s initial cluster is not the three members: {cluster}")
    if "/var/lib/etcd" not in volumes(name) or not env.get("ETCD_DATA_DIR", "").startswith("/var/lib/etcd/"):
        problems.append(f"{name} keeps its data outside its volume")
if len({volumes(name).get("/var/lib/etcd", (None,))[0] for name in etcd}) != 3:
    problems.append("the etcd members do not each have their own volume")

data_dir = patroni["postgresql"]["data_dir"]
seen = {"data": set(), "socket": set()}
for name in nodes:
    env = environment(name)
    if env.get("PATRONI_NAME") != name:
        problems.append(f"{name}'s Patroni name is {env.get('PATRONI_NAME')!r}")
    if env.get("PATRONI_RESTAPI_CONNECT_ADDRESS") != f"{name}:8008" or env.get("PATRONI_POSTGRESQL_CONNECT_ADDRESS") != f"{name}:5432":
        problems.append(f"{name}'s connect addresses are not its own")
    if sorted(env.get("PATRONI_ETCD3_HOSTS", "").split(",")) != [f"{member}:2379" for member in etcd]:
        problems.append(f"{name}'s Patroni does not know every etcd member: {env.get('PATRONI_ETCD3_HOSTS')}")
    if env.get("PIER_DATABASE_PASSWORD") != environment("db").get("POSTGRES_PASSWORD"):
        problems.append(f"{name} does not give Pier's role POSTGRES_PASSWORD")
    entrypoint = " ".join(services[name].get("entrypoint") or [])
    if not all(word in entrypoint for word in ("PATRONI_SUPERUSER_PASSWORD", "PATRONI_REPLICATION_PASSWORD", "exit 1", "exec patroni /etc/patroni/config.yml")):
        problems.append(f"{name} does not refuse to start without Patroni's passwords, or does not run the shipped configuration")
    if env.get("PGBACKREST_PG1_PATH") != data_dir:
        problems.append(f"{name}'s pgBackRest data path {env.get('PGBACKREST_PG1_PATH')} is not Patroni's {data_dir}")
    mounts = volumes(name)
    data = mounts.get(os.path.dirname(data_dir), (None,))[0]
    socket = mounts.get(patroni["postgresql"]["parameters"]["unix_socket_directories"], (None,))[0]
    if mounts.get("/var/lib/pgbackrest", (None,))[0] != "backups":
        problems.append(f"{name} does not archive into the shared `backups` repository")
    if data is None or socket is None or data in seen["data"] or socket in seen["socket"]:
        problems.append(f"{name} has no data or socket volume of its own")
    seen["data"].add(data)
    seen["socket"].add(socket)
    sidecar = volumes(backups[name])
    if sidecar.get(os.path.dirname(data_dir)) != (data, True) or sidecar.get("/var/run/postgresql", (None,))[0] != socket \
            or sidecar.get("/var/lib/pgbackrest", (None,))[0] != "backups":
        problems.append(f"{backups[name]} does not share {name}'s data (read-only), socket and the repository")
    if environment(backups[name]).get("PGBACKREST_PG1_PATH") != data_dir:
        problems.append(f"{backups[name]}'s pgBackRest data path is not Patroni's {data_dir}")
    if services[backups[name]].get("command") != ["backup-schedule"]:
        problems.append(f"{backups[name]} does not run the backup schedule")

dcs = patroni["bootstrap"]["dcs"]
parameters = dcs["postgresql"]["parameters"]
if dcs.get("synchronous_mode") is not True:
    problems.append("patroni.yml: synchronous_mode is not on (an acknowledged write could be lost)")
if dcs["postgresql"].get("use_pg_rewind") is not True or dcs["postgresql"].get("use_slots") is not True:
    problems.append("patroni.yml: use_pg_rewind and use_slots must be on")
if dcs["loop_wait"] + 2 * dcs["retry_timeout"] > dcs["ttl"]:
    problems.append("patroni.yml: loop_wait + 2 × retry_timeout exceeds ttl")
if parameters.get("archive_mode") != "on" or not str(parameters.get("archive_command", "")).startswith("pier-pgbackrest --stanza=pier archive-push"):
    problems.append("patroni.yml: WAL is not archived through pier-pgbackrest")
if patroni["bootstrap"].get("post_bootstrap") != "/usr/local/bin/pier-post-bootstrap" or "pier-post-bootstrap" not in dockerfile \
        or "patroni.yml /etc/patroni/config.yml" not in dockerfile:
    problems.append("the image does not install patroni.yml and the post_bootstrap it names")
if not re.search(r"patroni=3\.0\.2-1\b", dockerfile) or not re.search(r"etcd-server=3\.4\.", dockerfile):
    problems.append("the image's Patroni and etcd are not the versions scripts/failover-drill rehearses (Debian bookworm's)")

api = services.get("api", {})
if (api.get("deploy") or {}).get("replicas") != 2:
    problems.append(f"the api runs {(api.get('deploy') or {}).get('replicas')} replicas by default, not 2")
if environment("api").get("DATABASE_URL") != database_url:
    problems.append(f"the api's DATABASE_URL {environment('api').get('DATABASE_URL')} does not name the .env's POSTGRES_HOSTS for writes")

if problems:
    sys.exit("the ha profile:\n  " + "\n  ".join(problems))
print("compose ha profile: three etcd members in one cluster, two Patroni nodes with their own names, volumes and the shared "
      "repository, a backup schedule beside each, synchronous mode and pg_rewind, the api's two replicas on POSTGRES_HOSTS")
