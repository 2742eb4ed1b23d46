"""The skeleton both apps are built on: a FastAPI app with no API docs, the security middleware, escaped
templates laid over the page both apps share (`templates/base.html`), the one stylesheet (`/style.css`),
and every error (HTTP, bad parameters) answered by the app's own page instead of JSON."""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

import jinja2
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from starlette.exceptions import HTTPException
from starlette.templating import Jinja2Templates

from cobe.web.limits import MAX_BODY_BYTES, MAX_COMMENT
from cobe.web.security import BodyLimit, security_headers

ErrorPage = Callable[[Request, int, str], Response]
BAD_REQUEST = "The request was not understood; go back, reload the page and try again."
SHARED = Path(str(files("cobe.web")))
#: the stylesheet both apps serve at /style.css
STYLESHEET = SHARED / "static" / "style.css"


def templates(directory: str | Path) -> Jinja2Templates:
    """Jinja2 templates from `directory`, then the pages both apps share (`base.html`), autoescaping every
    file: stories and model outputs render as text."""
    loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(str(directory)), jinja2.FileSystemLoader(str(SHARED / "templates"))]
    )
    found = Jinja2Templates(env=jinja2.Environment(loader=loader, autoescape=True))
    found.env.globals["max_comment"] = MAX_COMMENT  # a textarea's maxlength matches what the server accepts
    return found


def new_app(error_page: ErrorPage, *, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """A FastAPI app with security headers, a request-body cap, and `error_page` rendering every error."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.error_page = error_page
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.middleware("http")(security_headers)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_api_route("/style.css", _stylesheet, methods=["GET"], include_in_schema=False)
    return app


def _stylesheet() -> FileResponse:
    """The one stylesheet (no inline styles anywhere, so the CSP can forbid them)."""
    return FileResponse(STYLESHEET, media_type="text/css")


async def _http_error(request: Request, exc: Exception) -> Response:
    render: ErrorPage = request.app.state.error_page
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    return render(request, status, str(getattr(exc, "detail", "")))


async def _bad_request(request: Request, exc: Exception) -> Response:
    render: ErrorPage = request.app.state.error_page
    return render(request, 400, BAD_REQUEST)
