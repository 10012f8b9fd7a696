"""`DELETE /v1/threads/{id}`: a person deletes one of their conversations, with everything
of it (`server.thread_erasure`). Listing and reading threads are `server.chat`'s."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response

from orquestra.server.auth import CurrentCaller
from orquestra.server.schemas import errors
from orquestra.server.thread_erasure import delete_owned

router = APIRouter()


@router.delete(
    "/v1/threads/{thread_id}",
    tags=["threads"],
    summary="Delete one of the caller's threads, its checkpoints included",
    status_code=204,
    response_class=Response,
    responses={
        204: {"description": "Deleted: the thread, every checkpoint and write of it"},
        **errors(401, 404, 409, 503),
    },
)
async def delete_thread(request: Request, thread_id: str, caller: CurrentCaller) -> Response:
    """404 for a thread that is not the caller's (another user's or tenant's answers the same
    as one that never existed); 409 `THREAD_BUSY` while a turn is answering on it: delete it
    once the answer has ended."""
    app = request.app
    outcome = await delete_owned(
        app.state.threads, caller, thread_id, ttl_s=app.state.settings.run_lease_s
    )
    if outcome == "not_found":
        raise HTTPException(404, {"code": "THREAD_NOT_FOUND", "message": "no such thread"})
    if outcome == "busy":
        busy = "this thread is still answering; delete it when the answer has ended"
        raise HTTPException(409, {"code": "THREAD_BUSY", "message": busy})
    return Response(status_code=204)
