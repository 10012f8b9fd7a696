"""A deployment is a folder: the catalog, the guardrails and a profile naming the business.

```
<deployment>/
  profile.yaml        assistant name, business per language, tenant label per language,
                      languages, time zone, currency, locale, example questions, topics
  catalog/            systems/*.yaml, glossary.yaml, docs/*.md, examples.yaml
  guardrails.yaml     optional; the packaged rails otherwise
```

`load_deployment(NAME)` resolves a packaged deployment by name; anything else is a
folder path. Every business word the code shows a person (the tenant's label, the greeting's
examples, the assistant's name) comes from the `Profile`, never from the code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from orquestra.core.errors import OrquestraError
from orquestra.deployments import DEFAULT_DEPLOYMENT, DEPLOYMENTS_DIR

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it."""
Language = Literal["pt", "en"]
"""Languages a deployment can speak (the stages' prompts exist in these)."""
PROFILE_FILE = "profile.yaml"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
"""What a packaged deployment's name (and a profile's `name`) looks like."""


class DeploymentError(OrquestraError):
    """A deployment cannot be used; `code` is stable, `message` names the folder or file."""


class TenantLabel(BaseModel):
    """What one tenant is called in one language ("loja"/"lojas")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    singular: str = Field(min_length=1, max_length=60)
    plural: str = Field(min_length=1, max_length=60)


ORGANISATION: dict[Language, TenantLabel] = {
    "pt": TenantLabel(singular="organização", plural="organizações"),
    "en": TenantLabel(singular="organisation", plural="organisations"),
}
"""What the people of a deployment without tenants belong to, when the profile names nothing."""


class Profile(BaseModel):
    """The business a deployment serves, in the words its people use."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN.pattern)
    """The deployment's id (also names its embedded database unless set explicitly)."""
    assistant_name: str = Field("Orquestra", min_length=1, max_length=60)
    """How the assistant introduces itself."""
    languages: list[Language] = Field(min_length=1)
    """Languages the assistant answers in."""
    default_language: Language
    """Language used when a message's language is unknown, and the fallback for texts."""
    business: dict[Language, str]
    """A paragraph per language: what the business does."""
    tenancy: Literal["tenants", "none"] = "tenants"
    """`tenants`: the data belongs to many customers (tenants) and each person sees one
    tenant's rows; `none`: one organisation's data, every catalog table readable by every
    signed-in person, and tokens carry no tenant claim (one with a claim is refused)."""
    tenant: dict[Language, TenantLabel] = {}
    """What a tenant is called, per language (required with tenants; with `tenancy: none`
    the people are said to belong to one organisation)."""
    timezone: str = "UTC"
    """IANA time zone the business reads dates in (feeds `limits.timezone`)."""
    currency: str = Field("USD", pattern=r"^[A-Z]{3}$")
    """ISO 4217 code money columns are shown in."""
    locale: dict[Language, str] = {}
    """BCP 47 locale per language for numbers and dates, e.g. `{"pt": "pt-BR"}`."""
    examples: dict[Language, list[str]] = {}
    """Example questions for the greeting and the web chat."""
    topics: dict[Language, list[str]] = {}
    """Short phrases of what one can ask about (greetings, out-of-scope refusals)."""
    sample_data: str | None = Field(None, pattern=NAME_PATTERN.pattern)
    """Packaged sample-data generator `db init` and `demo` load (`None`: bring your data)."""
    reference_date: date | None = None
    """Last day of the sample data's history; "today" in demo mode."""
    model_sql_dialects: list[str] | None = None
    """Dialects a model's SQL is read as when it is not PostgreSQL (feeds the setting of that
    name; `None`: the setting's own default)."""

    @field_validator("model_sql_dialects")
    @classmethod
    def _known_dialects(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else known_sql_dialects(value)

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (an IANA name, e.g. UTC)") from None
        return value

    @model_validator(mode="after")
    def _languages_cover_texts(self) -> Profile:
        if self.default_language not in self.languages:
            raise ValueError(f"default_language {self.default_language!r} is not in languages")
        for field_name in ("business", "tenant") if self.has_tenants else ("business",):
            if self.default_language not in getattr(self, field_name):
                raise ValueError(
                    f"{field_name} needs the default language {self.default_language!r}"
                )
        for field_name in ("business", "tenant", "locale", "examples", "topics"):
            extra = set(getattr(self, field_name)) - set(self.languages)
            if extra:
                raise ValueError(f"{field_name} has languages not in languages: {sorted(extra)}")
        return self

    @property
    def has_tenants(self) -> bool:
        """Whether the data is separated by tenant (`tenancy: tenants`)."""
        return self.tenancy == "tenants"

    def language(self, lang: str | None) -> Language:
        """`lang` if the deployment speaks it ("pt-BR" counts as "pt"), else the default."""
        short = (lang or "").split("-")[0].split("_")[0].lower()
        for known in self.languages:
            if known == short:
                return known
        return self.default_language

    def text(self, field_name: str, lang: str | None) -> Any:
        """A per-language field's value in `lang`, falling back to the default language.

        >>> profile = Profile(name="shop", languages=["pt", "en"], default_language="pt",
        ...                   business={"pt": "Uma loja.", "en": "A shop."},
        ...                   tenant={"pt": {"singular": "loja", "plural": "lojas"}})
        >>> profile.text("business", "en-GB")
        'A shop.'
        >>> profile.text("business", "es")   # not spoken: the default language's
        'Uma loja.'
        >>> profile.text("tenant", "en").plural   # no English label: the default one
        'lojas'
        """
        values: dict[str, Any] = getattr(self, field_name)
        chosen = self.language(lang)
        if chosen in values:
            return values[chosen]
        if self.default_language in values:
            return values[self.default_language]
        return next(iter(values.values()), None)

    def tenant_label(self, lang: str | None, plural: bool = False) -> str:
        """What a tenant is called in `lang` ("loja", or "lojas" if `plural`); without tenants,
        the organisation every person belongs to.

        >>> Profile(name="one", languages=["en"], default_language="en",
        ...         business={"en": "A clinic."}, tenancy="none").tenant_label("en")
        'organisation'
        """
        label: TenantLabel = (
            self.text("tenant", lang) if self.tenant else ORGANISATION[self.language(lang)]
        )
        return label.plural if plural else label.singular

    def example_questions(self, lang: str | None) -> list[str]:
        """The example questions in `lang` (or the default language); may be empty."""
        return list(self.text("examples", lang) or [])

    def topic_phrases(self, lang: str | None) -> list[str]:
        """What one can ask about, in `lang` (or the default language); may be empty."""
        return list(self.text("topics", lang) or [])

    def locale_for(self, lang: str | None) -> str:
        """The locale for `lang`, e.g. "pt-BR"; the bare language when none is set."""
        return self.text("locale", lang) or self.language(lang)


@dataclass(frozen=True)
class Deployment:
    """One deployment folder and its validated profile."""

    root: Path
    profile: Profile

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def catalog_dir(self) -> Path:
        """The catalog folder `load_catalog` reads (systems, glossary, docs, examples)."""
        return self.root / "catalog"

    @property
    def guardrails_file(self) -> Path | None:
        """The deployment's own guardrails, or `None` for the packaged rails."""
        path = self.root / "guardrails.yaml"
        return path if path.is_file() else None


def known_sql_dialects(names: list[str]) -> list[str]:
    """`names` if sqlglot reads each dialect, else a `ValueError` listing the ones it does."""
    from sqlglot.dialects.dialect import Dialect, Dialects  # only when a list is checked

    def known(name: str) -> bool:
        try:
            return bool(name) and Dialect.get(name) is not None
        except Exception:  # a name sqlglot cannot even look up (its plugins' import)
            return False

    unknown = [name for name in names if not known(name)]
    if unknown:
        listed = ", ".join(sorted(d.value for d in Dialects if d.value))
        raise ValueError(f"unknown SQL dialect {unknown[0]!r} (known: {listed})")
    return names


def packaged_deployments() -> list[str]:
    """Names of the deployments shipped with the package."""
    return sorted(
        p.name for p in DEPLOYMENTS_DIR.iterdir() if p.is_dir() and (p / PROFILE_FILE).is_file()
    )


def resolve_root(name_or_path: str | Path | None) -> Path:
    """The folder a deployment name or path designates (not yet checked for a profile)."""
    if name_or_path is None or str(name_or_path).strip() == "":
        name_or_path = DEFAULT_DEPLOYMENT
    text = str(name_or_path)
    if NAME_PATTERN.match(text) and (DEPLOYMENTS_DIR / text / PROFILE_FILE).is_file():
        return DEPLOYMENTS_DIR / text  # a packaged name wins; write ./NAME for a local folder
    path = Path(text).expanduser()
    if not path.is_dir():
        known = ", ".join(packaged_deployments()) or "none"
        raise DeploymentError(
            "DEPLOYMENT_NOT_FOUND",
            f"{text}: neither a packaged deployment ({known}) nor a folder",
        )
    return path.resolve()


def load_deployment(name_or_path: str | Path | None = None) -> Deployment:
    """Load a deployment by packaged name or folder path (`None`: the default deployment)."""
    root = resolve_root(name_or_path)
    return Deployment(root, load_profile(root / PROFILE_FILE))


def load_profile(path: Path) -> Profile:
    """Read and validate a `profile.yaml`; errors name the file and the field."""
    if not path.is_file():
        raise DeploymentError("DEPLOYMENT_NOT_FOUND", f"{path}: no profile.yaml in the folder")
    stat = path.stat()
    return _parsed_profile(path.resolve(), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _parsed_profile(path: Path, mtime_ns: int, size: int) -> Profile:
    # Settings are read often (each reads the profile); a file changed on disk is read again.
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DeploymentError("DEPLOYMENT_PROFILE_INVALID", f"{path}: {exc}") from None
    if not isinstance(document, dict):
        raise DeploymentError("DEPLOYMENT_PROFILE_INVALID", f"{path}: expected a mapping")
    try:
        return Profile.model_validate(document)
    except ValidationError as exc:
        raise DeploymentError(
            "DEPLOYMENT_PROFILE_INVALID", f"{path}: {_first_error(exc)}"
        ) from None


def _first_error(exc: ValidationError) -> str:
    """The validation problems in one line each: `field.path: what is wrong`."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "profile"
        lines.append(f"{where}: {error['msg']}")
    return "; ".join(lines)
