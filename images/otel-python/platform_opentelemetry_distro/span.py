"""The server span of a request, recorded without the SDK's per-span machinery.

The SDK's Tracer.start_span and Span build a span object, a locked and validated attribute map,
bounded event and link lists, and on end a second, read-only copy for the span processors:
about 30 us a request, the largest share of what tracing a small request costs. A ServerSpan
is the read-only span itself (a ReadableSpan), made mutable until it ends, with the attributes
the middleware sets (known strings and integers) kept in a plain dict: what anything else
sets goes through the SDK's validation and limits as before. The sampler, the id generator,
the resource, the scope and the span processors are the SDK tracer's own, so sampling and
export are unchanged. Only where every span processor is the SDK's Batch or Simple one (their
on_start does nothing; the platform configures a BatchSpanProcessor); any other setting, and a
processor added later, goes through the SDK's Tracer.start_span.
"""
import os
import traceback
from time import time_ns

from opentelemetry import trace as trace_api
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.sdk.trace import Event, ReadableSpan, SynchronousMultiSpanProcessor, Tracer
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.util import BoundedList
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

_PROCESSORS = (BatchSpanProcessor, SimpleSpanProcessor)
_PLAIN = (str, int, float, bool)
_UNSET = Status(StatusCode.UNSET)
_SERVER = SpanKind.SERVER


class ServerSpan(ReadableSpan, trace_api.Span):  # pylint: disable=too-many-ancestors
    """A span that is its own read-only copy: ended, it goes to the span processors as is."""

    def __init__(self, recorder, name, context, parent, attributes, start_time):  # pylint: disable=too-many-arguments
        super().__init__(name, context, parent, recorder.resource, attributes, [], [], _SERVER,
                         recorder.instrumentation_info, _UNSET, start_time, None, recorder.scope)
        self._recorder = recorder

    def is_recording(self):
        return self._end_time is None

    def end(self, end_time=None):
        if self._end_time is not None:
            return
        self._end_time = end_time if end_time is not None else time_ns()
        self._recorder.processor.on_end(self)

    def update_name(self, name):
        if self._end_time is None:
            self._name = name

    def _bounded(self):
        """The attributes under the SDK's validation and limits, from the first value set by other code."""
        if type(self._attributes) is dict:  # pylint: disable=unidiomatic-typecheck
            limits = self._recorder.limits
            self._attributes = BoundedAttributes(limits.max_span_attributes, self._attributes, immutable=False,
                                                 max_value_len=limits.max_span_attribute_length)
        return self._attributes

    def set_attributes(self, attributes):
        if self._end_time is not None:
            return
        plain = self._attributes
        if (type(plain) is dict and self._recorder.plain  # pylint: disable=unidiomatic-typecheck
                and len(plain) + len(attributes) <= self._recorder.limits.max_span_attributes
                and all(type(k) is str and k and type(v) in _PLAIN for k, v in attributes.items())):
            plain.update(attributes)
            return
        bounded = self._bounded()
        for key, value in attributes.items():
            bounded[key] = value

    def set_attribute(self, key, value):
        self.set_attributes({key: value})

    def add_event(self, name, attributes=None, timestamp=None):
        if self._end_time is not None:
            return
        limits = self._recorder.limits
        if type(self._events) is list:  # pylint: disable=unidiomatic-typecheck
            self._events = BoundedList(limits.max_events)
        self._events.append(Event(name, BoundedAttributes(limits.max_event_attributes, attributes, immutable=True,
                                                          max_value_len=limits.max_attribute_length), timestamp))

    def add_link(self, context, attributes=None):
        if self._end_time is not None or context is None or not context.is_valid:
            return
        limits = self._recorder.limits
        if type(self._links) is list:  # pylint: disable=unidiomatic-typecheck
            self._links = BoundedList(limits.max_links)
        self._links.append(Link(context, BoundedAttributes(limits.max_link_attributes, attributes, immutable=True,
                                                           max_value_len=limits.max_attribute_length)))

    def set_status(self, status, description=None):
        """As the SDK's: OK is final, UNSET is ignored, a description only with a StatusCode."""
        if self._end_time is not None or self._status.status_code is StatusCode.OK:
            return
        if isinstance(status, Status):
            if status.status_code is not StatusCode.UNSET:
                self._status = status
        elif status is not StatusCode.UNSET:
            self._status = Status(status, description)

    def record_exception(self, exception, attributes=None, timestamp=None, escaped=False):
        """The SDK's "exception" event: type, message, stack trace, escaped."""
        kind = type(exception)
        module = kind.__module__
        event = {
            "exception.type": f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        if attributes:
            event.update(attributes)
        self.add_event("exception", event, timestamp)


class Recorder:
    """start(name, parent context, attributes, start ns): the request's server span, sampled by the tracer's sampler."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.sampler = tracer.sampler
        self.ids = tracer.id_generator
        self.resource = tracer.resource
        self.processor = tracer.span_processor
        self.instrumentation_info = tracer.instrumentation_info
        self.limits = tracer._span_limits  # pylint: disable=protected-access
        self.scope = tracer._instrumentation_scope  # pylint: disable=protected-access
        # Values longer than a configured limit are truncated by the SDK's validation.
        self.plain = self.limits.max_span_attribute_length is None
        self._processors = None
        self._lean = False

    def _processors_allow(self):
        processors = self.processor._span_processors  # pylint: disable=protected-access
        if processors is not self._processors:  # replaced, never mutated, when one is added
            self._processors = processors
            self._lean = all(type(p) in _PROCESSORS for p in processors)  # pylint: disable=unidiomatic-typecheck
        return self._lean

    def start(self, name, parent_context, attributes, start_time):
        if not self._processors_allow():
            return self.tracer.start_span(name, parent_context, _SERVER, attributes, start_time=start_time)
        parent = trace_api.get_current_span(parent_context).get_span_context()
        if parent is None or not parent.is_valid:
            parent = None
            trace_id = self.ids.generate_trace_id()
            random_id = self.ids.is_trace_id_random()
        else:
            trace_id = parent.trace_id
            random_id = parent.trace_flags.random_trace_id
        result = self.sampler.should_sample(parent_context, trace_id, name, _SERVER, attributes)
        flags = TraceFlags.SAMPLED if result.decision.is_sampled() else TraceFlags.DEFAULT
        if random_id:
            flags |= TraceFlags.RANDOM_TRACE_ID
        context = SpanContext(trace_id, self.ids.generate_span_id(), is_remote=False,
                              trace_flags=TraceFlags(flags), trace_state=result.trace_state)
        if not result.decision.is_recording():
            return NonRecordingSpan(context)
        return ServerSpan(self, name, context, parent, dict(result.attributes) if result.attributes else {}, start_time)


def server_spans(tracer):
    """The middleware's span starter: a Recorder's over an SDK tracer, else the tracer's own start_span."""
    if (isinstance(tracer, Tracer) and type(tracer.span_processor) is SynchronousMultiSpanProcessor  # pylint: disable=unidiomatic-typecheck
            and tracer._is_enabled()  # pylint: disable=protected-access
            and os.environ.get("OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED", "").strip().lower() != "true"):
        return Recorder(tracer).start

    def start(name, parent_context, attributes, start_time):
        return tracer.start_span(name, parent_context, _SERVER, attributes, start_time=start_time)
    return start
