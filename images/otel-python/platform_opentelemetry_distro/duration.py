"""http.server.request.duration, aggregated by the platform's middleware itself.

The SDK's Histogram.record copies, cleans and hashes the attributes, then passes the
measurement through the consumer, each reader's storage and the view's match: about 10 us a
request, more than the rest of the duration's path. Durations keeps the same explicit-bucket
histogram per attribute set in a dict keyed by the attributes' items (about 1 us) and adds its
points to what each reader of the meter provider collects: the readers, their exporters,
intervals, flushes and shutdown stay the SDK's. Only where every reader is cumulative for
histograms (the SDK's default, the platform's setting); anywhere else the SDK records.
"""
from bisect import bisect_left
from threading import Lock
from time import time_ns

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality, Histogram, HistogramDataPoint, Metric, MetricsData, ResourceMetrics, ScopeMetrics,
)
from opentelemetry.sdk.util.instrumentation import InstrumentationScope

_CUMULATIVE = AggregationTemporality.CUMULATIVE


class Durations:
    """A cumulative explicit-bucket histogram: record(amount, attributes) as the SDK's Histogram."""

    __slots__ = ("_name", "_unit", "_description", "_bounds", "_points", "_lock")

    def __init__(self, name, unit, description, bounds):
        self._name, self._unit, self._description = name, unit, description
        self._bounds = tuple(bounds)
        # attribute items -> [start ns, count, sum, min, max, bucket counts]
        self._points = {}
        self._lock = Lock()

    def record(self, amount, attributes=None, context=None):  # pylint: disable=unused-argument
        if not amount >= 0:  # a clock set back, or NaN: the SDK drops these too
            return
        key = tuple(attributes.items()) if attributes else ()
        with self._lock:
            point = self._points.get(key)
            if point is None:
                point = self._points[key] = [time_ns(), 0, 0.0, amount, amount, [0] * (len(self._bounds) + 1)]
            point[1] += 1
            point[2] += amount
            if amount < point[3]:
                point[3] = amount
            elif amount > point[4]:
                point[4] = amount
            point[5][bisect_left(self._bounds, amount)] += 1

    def collect(self):
        """The histogram as the SDK's cumulative collection would report it; None before any request."""
        now = time_ns()
        with self._lock:
            points = [
                HistogramDataPoint(dict(key), start, now, count, total, list(buckets), self._bounds, low, high)
                for key, (start, count, total, low, high, buckets) in self._points.items()
            ]
        if not points:
            return None
        return Metric(self._name, self._description, self._unit, Histogram(points, _CUMULATIVE))


def _merge(data, resource, scope_metrics):
    """The reader's collection with one more scope's metrics, under the provider's resource."""
    if data is None or not data.resource_metrics:
        return MetricsData([ResourceMetrics(resource, [scope_metrics], "")])
    first, *rest = data.resource_metrics
    return MetricsData([ResourceMetrics(first.resource, [*first.scope_metrics, scope_metrics], first.schema_url), *rest])


def install(meter_provider, scope_name, sdk_histogram, bounds):
    """Durations recording for `sdk_histogram` (made by `scope_name`'s meter) and collected by
    every reader of `meter_provider`, or `sdk_histogram` itself where that cannot be done the
    same way: a provider that is not the SDK's, no reader, a reader that wants deltas."""
    if not isinstance(meter_provider, MeterProvider):
        return sdk_histogram
    readers = getattr(meter_provider, "_metric_readers", None)
    resource = getattr(getattr(meter_provider, "_sdk_config", None), "resource", None)
    kind = type(sdk_histogram)
    if not readers or resource is None or any(
        getattr(reader, "_instrument_class_temporality", {}).get(kind) is not _CUMULATIVE or getattr(reader, "_collect", None) is None
        for reader in readers
    ):
        return sdk_histogram
    durations = Durations(sdk_histogram.name, sdk_histogram.unit, sdk_histogram.description, bounds)
    scope = InstrumentationScope(scope_name)
    for reader in readers:
        def collect(reader, timeout_millis=10_000, _collect=reader._collect):  # pylint: disable=protected-access
            data = _collect(reader, timeout_millis=timeout_millis)
            metric = durations.collect()
            return data if metric is None else _merge(data, resource, ScopeMetrics(scope, [metric], ""))

        reader._set_collect_callback(collect)  # pylint: disable=protected-access
    return durations
