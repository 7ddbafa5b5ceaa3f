"""One pure-ASGI middleware: a server span and one duration histogram per HTTP request.

What the platform's receiver and Studio read (src/telemetry): the server span (kind SERVER,
named "METHOD route", with http.request.method, http.route and http.response.status_code,
status ERROR on a 5xx or an exception) and the histogram http.server.request.duration in
seconds with method, route and status code. A request that matched no route has no
http.route: one "(unmatched)" row in Studio, never a raw path.
"""
import logging
from time import time_ns

from opentelemetry import context, propagate
from opentelemetry.trace import Status, StatusCode, set_span_in_context

# The scope key of the route template the app selected; its presence marks a request this
# middleware already handles (a mounted FastAPI app has a middleware of its own).
ROUTE = "platform.otel.route"
MOUNT = "platform.otel.mount"

_METHODS = frozenset(("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY"))
_logger = logging.getLogger(__name__)
_ERROR = Status(StatusCode.ERROR)


def route_selected(scope, path, mount):
    """What FastAPI's router selected, as its own telemetry joins it: mounts prefix their child's path."""
    if path is None or ROUTE not in scope:
        return
    prefix = scope.get(MOUNT, "")
    if mount:
        prefix += path.removesuffix("/{path}")
        scope[MOUNT] = prefix
        scope[ROUTE] = prefix + "/{path}"
    else:
        scope[ROUTE] = prefix + path


def route_of(scope, root_path):
    """Without the router's hook (an older FastAPI): the template of the route matched last,
    after the path of the mounts it is in (a mount adds its path to root_path)."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template and scope.get("root_path", "")[len(root_path):] + template


class ServerMiddleware:
    __slots__ = ("app", "start_span", "duration", "hooked", "excluded", "fields")

    def __init__(self, app, start_span, duration, hooked, excluded):  # pylint: disable=too-many-arguments
        self.app = app
        self.start_span = start_span  # (name, parent context, attributes, start ns) -> a SERVER span
        self.duration = duration
        self.hooked = hooked
        self.excluded = excluded
        # The headers the global propagator reads (traceparent, tracestate, baggage), as ASGI names them.
        self.fields = {f.lower().encode("latin-1"): f for f in propagate.get_global_textmap().fields}

    def _parent(self, headers):
        carrier = None
        fields = self.fields
        for name, value in headers:
            field = fields.get(name)
            if field is not None:
                if carrier is None:
                    carrier = {}
                value = value.decode("latin-1")
                carrier[field] = f"{carrier[field]},{value}" if field in carrier else value
        # No propagation header: the current context, as extract would find nothing.
        return None if carrier is None else propagate.extract(carrier)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or ROUTE in scope or (self.excluded is not None and self.excluded.url_disabled(scope["path"])):
            await self.app(scope, receive, send)
            return
        start = time_ns()
        root_path = scope.get("root_path", "")
        method = scope["method"]
        if method not in _METHODS:
            method = "_OTHER"
        parent = self._parent(scope["headers"])
        span = self.start_span("HTTP" if method == "_OTHER" else method, parent,
                               {"http.request.method": method, "url.path": scope["path"]}, start)
        scope[ROUTE] = None
        token = context.attach(set_span_in_context(span, parent))
        status = 0

        async def send_status(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        error = None
        try:
            await self.app(scope, receive, send_status)
        except BaseException as exc:
            error = exc
            raise
        finally:
            end = time_ns()
            context.detach(token)
            try:
                self._finish(scope, span, method, status, error, start, end, root_path)
            except Exception:  # pylint: disable=broad-except  (never the app's response or exception)
                _logger.debug("recording the request failed", exc_info=True)

    def _finish(self, scope, span, method, status, error, start, end, root_path):
        route = scope[ROUTE] if self.hooked else route_of(scope, root_path)
        # The span's attributes and the histogram's, less the method (the span has it already).
        attributes = {}
        if route:
            attributes["http.route"] = route
        if status:
            attributes["http.response.status_code"] = status
        failed = error is not None or status >= 500 or not status
        if failed:
            attributes["error.type"] = type(error).__qualname__ if error is not None else str(status or "incomplete_response")
        if span.is_recording():
            if route:
                span.update_name(f"{'HTTP' if method == '_OTHER' else method} {route}")
            span.set_attributes(attributes)
            if failed:
                if error is not None:
                    span.record_exception(error)
                span.set_status(_ERROR)
        attributes["http.request.method"] = method
        self.duration.record((end - start) / 1e9, attributes)
        span.end(end)
