"""Feedback on answers, and the review queue over HTTP (`server.review`).

`POST /v1/threads/{id}/feedback` rates one of the caller's own turns. The `/v1/review` routes
are for people whose token holds the `reviewer` role (`roles_claim`), and show them their own
tenant's turns only: the review page of the web chat uses them. Approving runs the SQL as the
turn's tenant through the guard first and answers with the rows it gave.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from prometheus_client import Counter
from pydantic import BaseModel, Field

from orquestra.guards.tenant_key import NO_TENANT
from orquestra.server.auth import Caller, CurrentCaller
from orquestra.server.review import COMMENT_CHARS, ReviewError, ReviewStore
from orquestra.server.schemas import THREAD_ID, SafeText, errors

REVIEWER = "reviewer"
FEEDBACK = Counter(
    "orquestra_feedback_total", "Answers rated by the people who asked", ["route", "rating"]
)
REVIEWS = Counter("orquestra_review_decisions_total", "Review decisions", ["decision"])

router = APIRouter()


class Feedback(BaseModel):
    """A rating of one of the caller's turns (the `run_id` of its `run` event)."""

    run_id: SafeText = Field(max_length=64)
    rating: Literal["up", "down"]
    comment: SafeText | None = Field(None, max_length=COMMENT_CHARS)


class Approve(BaseModel):
    """An approval: the turn's own SQL and question unless corrected here."""

    sql: SafeText | None = Field(None, max_length=20_000)
    question: SafeText | None = Field(None, max_length=2_000)
    complexity: Literal["simple", "complex"] = "simple"


class Reject(BaseModel):
    why: SafeText | None = Field(None, max_length=COMMENT_CHARS)


@router.post(
    "/v1/threads/{thread_id}/feedback",
    tags=["feedback"],
    summary="Rate one of the caller's answers up or down, with an optional comment",
    responses=errors(401, 404, 422, 503),
)
async def feedback(
    request: Request, thread_id: str, body: Feedback, caller: CurrentCaller
) -> dict[str, Any]:
    """404 `TURN_NOT_FOUND` for a run that is not one of the caller's turns on this thread
    (another person's answers the same as one that never was). Rating again replaces it."""
    store: ReviewStore = request.app.state.review
    rated = None
    if THREAD_ID.match(thread_id):
        rated = await store.rate(caller, thread_id, body.run_id, body.rating, body.comment)
    if rated is None:
        raise HTTPException(404, {"code": "TURN_NOT_FOUND", "message": "no such answer of yours"})
    FEEDBACK.labels(route=(rated["route"] or "NONE").lower(), rating=body.rating).inc()
    return {"run_id": body.run_id, "rating": body.rating, "queued": rated["status"] == "pending"}


def _reviewer(caller: Caller) -> str | None:
    """The tenant whose turns this reviewer sees (None: every tenant's, where there are no
    tenants), or 403."""
    if REVIEWER not in caller.roles:
        raise HTTPException(
            403, {"code": "NOT_A_REVIEWER", "message": "reviewing needs the reviewer role"}
        )
    return None if caller.tenant == NO_TENANT else caller.tenant


def _review_error(exc: ReviewError) -> HTTPException:
    status = 404 if exc.code == "REVIEW_NOT_FOUND" else 422
    return HTTPException(status, {"code": exc.code, "message": exc.message})


@router.get(
    "/v1/review",
    tags=["review"],
    summary="The review queue (reviewers): the tenant's rated and unanswered turns",
    responses=errors(401, 403, 503),
)
async def review_queue(
    request: Request,
    caller: CurrentCaller,
    status: Annotated[Literal["pending", "approved", "rejected"], Query()] = "pending",
) -> dict[str, Any]:
    tenant = _reviewer(caller)
    return {"turns": await request.app.state.review.listed(status, tenant=tenant)}


@router.get(
    "/v1/review/{turn_id}",
    tags=["review"],
    summary="One turn of the queue, whole, with its history (reviewers)",
    responses=errors(401, 403, 404, 503),
)
async def review_turn(request: Request, turn_id: int, caller: CurrentCaller) -> dict[str, Any]:
    tenant = _reviewer(caller)
    try:
        return await request.app.state.review.shown(turn_id, tenant=tenant)  # type: ignore[no-any-return]
    except ReviewError as exc:
        raise _review_error(exc) from None


@router.post(
    "/v1/review/{turn_id}/approve",
    tags=["review"],
    summary="Approve a turn (its SQL, or a corrected one, run as its tenant first)",
    responses=errors(401, 403, 404, 422, 503),
)
async def approve(
    request: Request, turn_id: int, body: Approve, caller: CurrentCaller
) -> dict[str, Any]:
    """422 with the guard's or the database's code when the SQL is refused: nothing is kept."""
    tenant = _reviewer(caller)
    app = request.app
    resources = app.state.resources
    try:
        approval = await app.state.review.approve(
            turn_id,
            catalog=resources.catalog,
            policy=resources.policy,
            settings=app.state.settings,
            agent_pool=resources.agent_pool,
            by=caller.user,
            sql=body.sql,
            question=body.question,
            complexity=body.complexity,
            tenant=tenant,
        )
    except ReviewError as exc:
        raise _review_error(exc) from None
    REVIEWS.labels(decision="approved").inc()
    result = approval.result
    return {
        "turn_id": turn_id,
        "example_id": approval.example_id,
        "shared": approval.shareable,
        "columns": result.columns,
        "rows": [[_json(v) for v in row] for row in result.rows[:50]],
        "row_count": result.row_count,
    }


@router.post(
    "/v1/review/{turn_id}/reject",
    tags=["review"],
    summary="Reject a turn of the queue (reviewers)",
    responses=errors(401, 403, 404, 503),
)
async def reject(
    request: Request, turn_id: int, body: Reject, caller: CurrentCaller
) -> dict[str, Any]:
    tenant = _reviewer(caller)
    try:
        await request.app.state.review.reject(turn_id, by=caller.user, why=body.why, tenant=tenant)
    except ReviewError as exc:
        raise _review_error(exc) from None
    REVIEWS.labels(decision="rejected").inc()
    return {"turn_id": turn_id, "status": "rejected"}


def _json(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
