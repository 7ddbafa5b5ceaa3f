"""The platform's FastAPI instrumentation (entry point "fastapi"): ServerMiddleware outside every
FastAPI app's middleware stack, apps made by factories included, and FastAPI's own native
telemetry off (it would trace each request a second time). No application change.
"""
import inspect
import os

from opentelemetry import metrics, trace
from opentelemetry.instrumentation.instrumentor import BaseInstrumentor

from platform_opentelemetry_distro.asgi import ServerMiddleware, route_selected
from platform_opentelemetry_distro.duration import install as duration_histogram
from platform_opentelemetry_distro.span import server_spans

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
_NATIVE_OFF = {"tracing": False, "metrics": False, "logs": False}
_ORIGINAL = "_platform_otel_original"


def _excluded_urls():
    """OTEL_PYTHON_FASTAPI_EXCLUDED_URLS (or OTEL_PYTHON_EXCLUDED_URLS), as contrib reads them; None if unset."""
    if not (os.environ.get("OTEL_PYTHON_FASTAPI_EXCLUDED_URLS") or os.environ.get("OTEL_PYTHON_EXCLUDED_URLS")):
        return None
    from opentelemetry.util.http import get_excluded_urls

    return get_excluded_urls("FASTAPI")


def _hook_router(routing):
    """FastAPI's router reports each route it selects to its telemetry (routers included with a
    prefix, mounts): the template is taken from there. False where this FastAPI has no such hook."""
    original = getattr(routing, "_route_selected", None)
    if original is None:
        return False

    def _route_selected(*, scope, path, mount=False, **kwargs):
        original(scope=scope, path=path, mount=mount, **kwargs)
        route_selected(scope, path, mount)

    setattr(_route_selected, _ORIGINAL, original)
    routing._route_selected = _route_selected
    return True


def _patch(cls, name, make):
    original = getattr(cls, name)
    patched = make(original)
    setattr(patched, _ORIGINAL, original)
    setattr(cls, name, patched)


def _unpatch(owner, name):
    original = getattr(getattr(owner, name), _ORIGINAL, None)
    if original is not None:
        setattr(owner, name, original)


class FastAPIInstrumentor(BaseInstrumentor):
    def instrumentation_dependencies(self):
        return ("fastapi",)

    def _instrument(self, **kwargs):
        import fastapi
        import fastapi.routing

        tracer = trace.get_tracer(__name__, schema_url="https://opentelemetry.io/schemas/1.26.0")
        provider = metrics.get_meter_provider()
        duration = duration_histogram(provider, __name__, provider.get_meter(__name__).create_histogram(
            "http.server.request.duration", unit="s", description="Duration of HTTP server requests.",
            explicit_bucket_boundaries_advisory=_BUCKETS,
        ), _BUCKETS)
        start_span = server_spans(tracer)
        hooked = _hook_router(fastapi.routing)
        excluded = _excluded_urls()
        native = "telemetry" in inspect.signature(fastapi.FastAPI.__init__).parameters

        def init(original):
            def __init__(self, *args, **kw):
                if native:
                    kw["telemetry"] = {**(kw.get("telemetry") or {}), **_NATIVE_OFF}
                original(self, *args, **kw)
            return __init__

        def build(original):
            def build_middleware_stack(self):
                return ServerMiddleware(original(self), start_span, duration, hooked, excluded)
            return build_middleware_stack

        _patch(fastapi.FastAPI, "__init__", init)
        _patch(fastapi.FastAPI, "build_middleware_stack", build)

    def _uninstrument(self, **kwargs):
        import fastapi
        import fastapi.routing

        _unpatch(fastapi.FastAPI, "__init__")
        _unpatch(fastapi.FastAPI, "build_middleware_stack")
        _unpatch(fastapi.routing, "_route_selected")
