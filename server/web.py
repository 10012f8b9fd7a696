"""The web chat, served by the same app at `/` — no CDN: the Vega bundle comes from
`vl-convert-python`, so the page works on a machine with no internet.

Every response here carries `SECURITY_HEADERS` (through `WebRoute`). The policy allows no
inline script and no `eval`: the page's code is `app.js`, and Vega evaluates its expressions
with the AST interpreter that the bundled vega-embed ships (`ast: true` in `app.js`) instead
of compiling them with `new Function`.

Every business word the page shows (the assistant's name, what a tenant is called, the
example questions, the input's placeholder topics) comes from the deployment's profile,
served at `GET /v1/profile`: the page's own files carry none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from functools import cache
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel

from orquestra.core.deployment import Language, Profile, TenantLabel
from orquestra.graph.resources import Resources
from orquestra.graph.tenant_directory import names_query

log = logging.getLogger("orquestra.web")

HERE = Path(__file__).parent / "web"
MAX_PICKER_TENANTS = 200
"""Tenants the demo's sign-in picker lists at most (a longer list is typed in instead)."""
TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",  # anything not named below is refused
        "script-src 'self'",  # app.js and /static/vega.js; no inline script, no eval
        # app.css only. Vega and vega-embed set sizes through element.style (the CSSOM,
        # which a policy does not govern); the <style> elements vega-embed and its tooltip
        # would add are turned off in app.js and their few rules live in app.css.
        "style-src 'self'",
        "img-src 'self' data: blob:",  # Vega's image marks and rendered images
        "connect-src 'self'",  # the API: fetch and the SSE stream
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    # X-Content-Type-Options: nosniff is not here: `server.middleware` sends it on every
    # response of the app, and a second copy would make the header a list.
    # no-referrer rather than strict-origin-when-cross-origin: the page links nowhere that
    # needs to know where a person came from, and its own calls do not read the header.
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",  # no other window keeps a handle on this one
    "Cross-Origin-Resource-Policy": "same-origin",  # other sites cannot load these files
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
"""The headers of every web-chat response (the page, its scripts and styles, their 404s)."""


class WebRoute(APIRoute):
    """A route whose responses all carry `SECURITY_HEADERS`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def secured(request: Request) -> Response:
            response = await handler(request)
            response.headers.update(SECURITY_HEADERS)
            return response

        return secured


@cache
def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed (with vega-interpreter) in one script, built once."""
    import vl_convert

    # vl-convert's stub omits `snippet`'s default (None: the bundle's own global snippet).
    return vl_convert.javascript_bundle()  # type: ignore[call-arg]


class DemoTenant(BaseModel):
    code: str
    name: str


class PublicProfile(BaseModel):
    """What the web chat shows of the deployment: public, no secrets, no data."""

    name: str
    assistant_name: str
    languages: list[Language]
    default_language: Language
    tenancy: Literal["tenants", "none"] = "tenants"
    """`none`: one organisation's data; sign-in names no tenant."""
    tenant: dict[Language, TenantLabel]
    locale: dict[Language, str]
    currency: str
    timezone: str
    examples: dict[Language, list[str]]
    topics: dict[Language, list[str]]
    tenants: list[DemoTenant] | None = None
    """The demo's sign-in picker (dev login only); `None` everywhere else."""

    @classmethod
    def of(cls, profile: Profile, tenants: list[DemoTenant] | None) -> PublicProfile:
        # Every language gets an entry, falling back to the default language's text.
        return cls(
            name=profile.name,
            assistant_name=profile.assistant_name,
            languages=profile.languages,
            default_language=profile.default_language,
            tenancy=profile.tenancy,
            tenant={
                lang: TenantLabel(
                    singular=profile.tenant_label(lang),
                    plural=profile.tenant_label(lang, plural=True),
                )
                for lang in profile.languages
            },
            locale={lang: profile.locale_for(lang) for lang in profile.languages},
            currency=profile.currency,
            timezone=profile.timezone,
            examples={lang: profile.example_questions(lang) for lang in profile.languages},
            topics={lang: profile.topic_phrases(lang) for lang in profile.languages},
            tenants=tenants,
        )


async def demo_tenants(app: FastAPI) -> list[DemoTenant]:
    """The tenants the demo's picker offers: the catalog's tenant table, read as the owner.

    Only a dev-login process asks (it mints a token for any tenant anyway); empty when the
    catalog names no tenant table or the database cannot say, and the page asks for a code.
    """
    resources: Resources | None = getattr(app.state, "resources", None)
    table = resources.catalog.tenant_directory() if resources is not None else None
    if resources is None or table is None or table.tenant_column is None:
        return []
    try:
        rows = await resources.admin_pool.fetch(
            f"{names_query(table)} LIMIT {MAX_PICKER_TENANTS + 1}"
        )
    except Exception as exc:  # the picker degrades to a typed code; the log says why
        log.warning("demo tenants unavailable: %s", type(exc).__name__)
        return []
    if len(rows) > MAX_PICKER_TENANTS:
        return []
    return [DemoTenant(code=r["tenant"], name=r["name"] or "") for r in rows]


def mount(app: FastAPI) -> None:
    @app.get(
        "/v1/profile",
        tags=["web"],
        summary="The deployment's public profile: assistant name, tenant label, examples",
        response_model=PublicProfile,
        response_model_exclude_none=True,
    )
    async def public_profile() -> PublicProfile:
        profile = app.state.settings.active_deployment.profile
        tenants = await demo_tenants(app) if app.state.dev_login else None
        return PublicProfile.of(profile, tenants)

    web = APIRouter(route_class=WebRoute, include_in_schema=False)

    @web.get("/")
    async def index() -> FileResponse:
        return FileResponse(HERE / "index.html", media_type="text/html")

    @web.get("/static/vega.js")
    async def vega() -> Response:
        return Response(
            vega_bundle(),
            media_type="text/javascript",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    @web.get("/static/{name}")
    async def static(name: str) -> FileResponse:
        path = HERE / name
        if path.parent != HERE or not path.is_file() or path.suffix not in TYPES:
            # Raised past WebRoute to the app's error handler, so the headers go with it.
            raise HTTPException(
                404, {"code": "NOT_FOUND", "message": "no such file"}, headers=SECURITY_HEADERS
            )
        return FileResponse(path, media_type=TYPES[path.suffix])

    app.include_router(web)
