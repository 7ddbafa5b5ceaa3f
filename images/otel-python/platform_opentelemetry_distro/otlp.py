"""OTLP/protobuf encoding of span batches, written straight to wire format.

The OTLP/HTTP span exporter builds a protobuf message per span, attribute and value, and
hashes the resource (a JSON dump) once per span: about 35 us a span, most of what tracing a
small request costs. This produces the same ExportTraceServiceRequest bytes in a fraction of
that. install() puts it in the exporter's place; the test compares both on many kinds of span.
"""
from collections.abc import Mapping, Sequence
from struct import Struct

from opentelemetry.trace import SpanKind

_U64 = Struct("<Q").pack
_U32 = Struct("<I").pack
_F64 = Struct("<d").pack
_HAS_IS_REMOTE, _IS_REMOTE = 0x100, 0x200
_KEYS = {}
_KINDS = {kind: b"\x30" + bytes((kind.value + 1,)) for kind in SpanKind}
_SMALL = [bytes((n,)) for n in range(128)]


def _varint(n):
    if n < 128:
        return _SMALL[n]
    out = bytearray()
    while n >= 128:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag, payload):
    """A length-delimited field: tag byte(s), length, payload."""
    return tag + _varint(len(payload)) + payload


def _text(tag, s):
    return _field(tag, s.encode()) if s else b""


def _value(v):
    """An AnyValue."""
    if v is None:
        return b""
    if v is True or v is False:
        return b"\x10\x01" if v else b"\x10\x00"
    if isinstance(v, str):
        return _field(b"\x0a", v.encode())
    if isinstance(v, int):
        return b"\x18" + _varint(v & 0xFFFFFFFFFFFFFFFF)
    if isinstance(v, float):
        return b"\x21" + _F64(v)
    if isinstance(v, bytes):
        return _field(b"\x3a", v)
    if isinstance(v, Sequence):
        return _field(b"\x2a", b"".join(_field(b"\x0a", _value(x)) for x in v))
    if isinstance(v, Mapping):
        return _field(b"\x32", b"".join(_field(b"\x0a", _key_value(str(k), x)) for k, x in v.items()))
    raise TypeError(f"Invalid type {type(v)} of value {v}")


def _key_value(k, v):
    key = _KEYS.get(k)
    if key is None:
        key = _field(b"\x0a", k.encode())
        if len(_KEYS) < 1024:
            _KEYS[k] = key
    return key + _field(b"\x12", _value(v))


_CACHED = frozenset((str, int, bool, float))
# Encoded attribute fields by (tag, key, type, value): a service's spans repeat the same few
# (method, route, status code), so most of a span's attributes are a lookup. Bounded: cleared when full.
_FIELDS = {}


def _attributes(tag, attributes):
    if not attributes:
        return b""
    out = []
    for k, v in attributes.items():
        kind = type(v)
        if kind not in _CACHED:
            out.append(_field(tag, _key_value(k, v)))
            continue
        key = (tag, k, kind, v)  # the type too: True == 1 == 1.0 as dict keys
        encoded = _FIELDS.get(key)
        if encoded is None:
            encoded = _field(tag, _key_value(k, v))
            if len(_FIELDS) >= 4096:
                _FIELDS.clear()
            _FIELDS[key] = encoded
        out.append(encoded)
    return b"".join(out)


def _count(tag, n):
    return tag + _varint(n) if n else b""


_LOCAL, _REMOTE = _U32(_HAS_IS_REMOTE), _U32(_HAS_IS_REMOTE | _IS_REMOTE)


def _flags(parent):
    return _REMOTE if parent is not None and parent.is_remote else _LOCAL


_STATUSES = {}


def _status(status):
    """The Status field, by code and description (the enum's value is slow to read on every span)."""
    key = (status.status_code, status.description)
    encoded = _STATUSES.get(key)
    if encoded is None:
        encoded = _field(b"\x7a", _text(b"\x12", status.description) + _count(b"\x18", status.status_code.value))
        if len(_STATUSES) < 256:
            _STATUSES[key] = encoded
    return encoded


def _trace_state(ts):
    return ",".join(f"{k}={v}" for k, v in ts.items()) if ts else ""


def _span(s):
    ctx = s.context
    parent = s.parent
    out = [b"\x0a\x10", ctx.trace_id.to_bytes(16, "big"), b"\x12\x08", ctx.span_id.to_bytes(8, "big"),
           _text(b"\x1a", _trace_state(ctx.trace_state))]
    if parent is not None:
        out += (b"\x22\x08", parent.span_id.to_bytes(8, "big"))
    kind = _KINDS.get(s.kind)
    out += (_text(b"\x2a", s.name), kind if kind is not None else b"\x30" + _SMALL[s.kind.value + 1],
            b"\x39" + _U64(s.start_time) if s.start_time else b"", b"\x41" + _U64(s.end_time) if s.end_time else b"",
            _attributes(b"\x4a", s.attributes), _count(b"\x50", s.dropped_attributes))
    for e in s.events:
        out.append(_field(b"\x5a", b"\x09" + _U64(e.timestamp) + _text(b"\x12", e.name)
                          + _attributes(b"\x1a", e.attributes) + _count(b"\x20", e.dropped_attributes)))
    out.append(_count(b"\x60", s.dropped_events))
    for link in s.links:
        lc = link.context
        out.append(_field(b"\x6a", b"\x0a\x10" + lc.trace_id.to_bytes(16, "big") + b"\x12\x08" + lc.span_id.to_bytes(8, "big")
                          + _attributes(b"\x22", link.attributes) + _count(b"\x28", link.dropped_attributes) + b"\x35" + _flags(lc)))
    out.append(_count(b"\x70", s.dropped_links))
    status = s.status
    if status is not None:
        out.append(_status(status))
    out += (b"\x85\x01", _flags(parent))
    return b"".join(out)


def _scope(scope):
    if scope is None:
        return b""
    return _text(b"\x0a", scope.name) + _text(b"\x12", scope.version) + _attributes(b"\x1a", scope.attributes)


class _Encoded:
    """What the exporter expects of encode_spans(): a message it serializes."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def SerializePartialToString(self):  # noqa: N802 (protobuf's name)
        return self.data

    SerializeToString = SerializePartialToString


def encode_spans(spans):
    """An ExportTraceServiceRequest: the spans grouped by resource, then by instrumentation scope."""
    groups = {}
    for s in spans:
        resource = s.resource
        scopes = groups.get(id(resource))
        if scopes is None:
            scopes = groups[id(resource)] = (resource, {})
        # Scopes compare by value (a tracer per call still makes one entry); resources by identity
        # (one per provider; the SDK's hash of a resource is a JSON dump).
        scope = s.instrumentation_scope or None
        entry = scopes[1].get(scope)
        if entry is None:
            entry = scopes[1][scope] = (scope, [])
        entry[1].append(_field(b"\x12", _span(s)))
    out = []
    for resource, scopes in groups.values():
        body = [_field(b"\x0a", _attributes(b"\x0a", resource.attributes))]
        for scope, encoded in scopes.values():
            body.append(_field(b"\x12", _field(b"\x0a", _scope(scope)) + b"".join(encoded) + _text(b"\x1a", scope.schema_url if scope else "")))
        body.append(_text(b"\x1a", resource.schema_url))
        out.append(_field(b"\x0a", b"".join(body)))
    return _Encoded(b"".join(out))


def install():
    """The OTLP/HTTP span exporter encodes with encode_spans above (False where it has no such seam)."""
    from opentelemetry.exporter.otlp.proto.http import trace_exporter

    if not callable(getattr(trace_exporter, "encode_spans", None)):
        return False
    trace_exporter.encode_spans = encode_spans
    return True
