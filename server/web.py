"""The web chat, served by the same app at `/` — no CDN: the Vega bundle comes from
`vl-convert-python`, so the page works on a machine with no internet."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, Response

HERE = Path(__file__).parent / "web"
TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}


@cache
def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script (built once, kept in memory)."""
    import vl_convert

    return vl_convert.javascript_bundle()


def mount(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(HERE / "index.html", media_type="text/html")

    @app.get("/static/vega.js", include_in_schema=False)
    async def vega() -> Response:
        return Response(
            vega_bundle(),
            media_type="text/javascript",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> FileResponse:
        path = HERE / name
        if path.parent != HERE or not path.is_file() or path.suffix not in TYPES:
            raise HTTPException(404, {"code": "NOT_FOUND", "message": "no such file"})
        return FileResponse(path, media_type=TYPES[path.suffix])
