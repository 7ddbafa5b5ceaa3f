"""The OpenTelemetry distro of the platform (OTEL_PYTHON_DISTRO=platform).

OpenTelemetry's own distro, with FastAPI served by the platform's lean server instrumentation
(platform_opentelemetry_distro.fastapi) instead of contrib's FastAPI/ASGI middleware.
"""
from opentelemetry.distro import OpenTelemetryDistro

# Entry points whose work the platform's instrumentor does: an app that installs contrib's own
# FastAPI instrumentation would otherwise get two server spans per request.
_REPLACED = {"fastapi", "asgi", "starlette"}


class PlatformDistro(OpenTelemetryDistro):
    def load_instrumentor(self, entry_point, **kwargs):
        if entry_point.name in _REPLACED and not entry_point.value.startswith(__name__):
            return
        super().load_instrumentor(entry_point, **kwargs)
