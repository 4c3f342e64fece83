"""Django's HTTP requests under ASGI, each handled whole on one thread of a fixed pool.

Django's own ASGI handler gives every request a fresh thread (asgiref's ``ThreadSensitiveContext`` makes
a one-thread executor per request), a fresh database connection on it, and hops between the event loop
and that thread for the request-started signal, each async-capable middleware around the sync ones, and
the response's close. Under load that bookkeeping cost more CPU than the views themselves
(bench/README.md, section bench/web_tickets.py). Here the request body is read on the event loop, then
one call on a pool thread runs the signal, the whole (sync) middleware chain and the view, exactly as
Django's WSGI handler would, and closes the response on that thread (the request-finished signal closes,
or keeps per ``CONN_MAX_AGE``, that thread's connection); the loop then sends it. A sync streaming body
(an export) is produced on a thread of its own.

Views that block (a ticket waiting for its micro-batch group) hold a pool thread while they wait, so the
pool (``MASE_WEB_THREADS``) must be larger than the ticket group limit (``MASE_TICKET_BATCH_MAX``).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.db import close_old_connections
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

_END = object()


class PooledASGIHandler(ASGIHandler):
    """An ASGI application for Django's HTTP requests: sync middleware and views on a fixed thread pool."""

    def __init__(self, threads: int):
        BaseHandler.__init__(self)  # not ASGIHandler.__init__: the middleware chain is built sync
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mase-http")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        loop = asyncio.get_running_loop()
        response = await loop.run_in_executor(self.executor, self._respond, scope, body_file)
        if not response.streaming:  # the common case: closed on its own thread already
            await self.send_response(response, send)
        elif response.is_async:
            try:
                await self.send_response(response, send)
            finally:
                await loop.run_in_executor(self.executor, response.close)
        else:
            await self._stream(response, send, loop)

    def _respond(self, scope: dict, body_file) -> HttpResponseBase:
        """On a pool thread: what Django's WSGI handler does for one request. A response with its body in
        hand is closed here (the request-finished signal closes, or keeps per ``CONN_MAX_AGE``, the
        connection this thread used); a streaming one is closed once streamed."""
        try:
            set_script_prefix(get_script_prefix(scope))
            signals.request_started.send(sender=self.__class__, scope=scope)
            request, response = self.create_request(scope, body_file)
            if request is not None:
                response = self.get_response(request)
                response._handler_class = self.__class__
                if isinstance(response, FileResponse):
                    response.block_size = self.chunk_size
        except BaseException:
            signals.request_finished.send(sender=self.__class__)
            body_file.close()
            raise
        if not response.streaming:
            response.close()  # the content stays readable
            body_file.close()
        else:
            response._resource_closers.append(body_file.close)
            close_old_connections()  # the body is produced on another thread with its own connection
        return response

    async def _stream(self, response: HttpResponseBase, send, loop) -> None:
        """A sync streaming body, produced and closed on a thread of its own (its queries, its connection)."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mase-http-stream") as producer:
            try:
                await send(
                    {
                        "type": "http.response.start",
                        "status": response.status_code,
                        "headers": _headers(response),
                    }
                )
                chunks = iter(response.streaming_content)
                while (part := await loop.run_in_executor(producer, next, chunks, _END)) is not _END:
                    for chunk, _ in self.chunk_bytes(part):
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body"})
            finally:
                await loop.run_in_executor(producer, response.close)


def _headers(response: HttpResponseBase) -> list[tuple[bytes, Any]]:
    """The response's headers and cookies as ASGI wants them (as Django's handler encodes them)."""
    headers = [
        (name.encode("ascii") if isinstance(name, str) else bytes(name),
         value.encode("latin1") if isinstance(value, str) else bytes(value))
        for name, value in response.items()
    ]  # fmt: skip
    headers += [
        (b"Set-Cookie", c.output(header="").encode("ascii").strip()) for c in response.cookies.values()
    ]
    return headers
