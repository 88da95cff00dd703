"""Encode and decode Zeze beans, byte-identical with Zeze's Java runtime.

    >>> from gameserde import zeze
    >>> schema = zeze.load_schema('''<solution name="app"><module name="m" id="1">
    ...   <bean name="BItem"><variable id="1" name="id" type="int"/>
    ...   <variable id="2" name="name" type="string"/></bean></module></solution>''')
    >>> data = zeze.encode(schema, "BItem", {"id": 7, "name": "sword"})
    >>> data.hex()
    '1007130573776f726400'
    >>> zeze.decode(schema, "BItem", data)
    {'id': 7, 'name': 'sword'}

A bean value is a ``dict`` (a field it leaves out is the field's constructor value:
``default=`` or zero) or, for schemas made from dataclasses, an instance of the bean's
class; :mod:`gameserde.zeze.values` lists the other value types. ``bean`` may be a full name
or any dotted tail naming one bean (``"BItem"``, ``"m.BItem"``), or None for Zeze's
``EmptyBean``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gameserde._expansion import check_factor, expansion_limit
from gameserde._recursion import recursion_room
from gameserde.errors import DecodeError
from gameserde.zeze import _accel
from gameserde.zeze._decode import Budget, Decoder
from gameserde.zeze._encode import Encoder
from gameserde.zeze._plan import BeanPlan, plans_of
from gameserde.zeze.bytebuffer import Reader, Writer
from gameserde.zeze.schema import ZezeSchema

__all__ = ["EXPANSION_SLACK", "MAX_DEPTH", "MAX_EXPANSION", "BeanCodec", "bean_codec", "decode",
           "decode_from", "encode", "read_bean", "verify", "write_bean"]

MAX_DEPTH = 500
"""How deep beans and containers may nest by default (Java has no limit and overflows its
stack; real schemas nest a few levels)."""

MAX_EXPANSION = 64.0
"""The default ``max_expansion`` of decoding: the default values it builds for absent fields
(each value counts one, a bean one plus its fields', see :meth:`~gameserde.zeze.schema.
ZezeSchema.default_size`) are at most this many per input byte, plus :data:`EXPANSION_SLACK`.
Java builds them all (``new Bean()`` for every empty bean); a 1-byte empty bean can stand for
thousands of values."""

EXPANSION_SLACK = 4096
"""The default values any decode may build whatever the input's size (so that an empty bean
of every real schema decodes: the largest default in Zeze's own solutions holds 43 values)."""

_FRAMES_PER_LEVEL = 4


def _plan(schema: ZezeSchema, bean: str | None) -> BeanPlan | None:
    if bean is None:
        return None
    return plans_of(schema).bean(schema.bean(bean).name)


def write_bean(schema: ZezeSchema, bean: str | None, value: Any, w: Writer, *,
               max_depth: int = MAX_DEPTH) -> None:
    """Append the body of ``value`` as the bean ``bean`` to ``w`` (None: the EmptyBean,
    ``00``)."""
    w.write_raw(bean_codec(schema, bean, max_depth=max_depth).encode(value))


def read_bean(schema: ZezeSchema, bean: str | None, r: Reader, *,
              max_depth: int = MAX_DEPTH, classes: bool = True,
              max_expansion: float | None = MAX_EXPANSION) -> Any:
    """Read one bean body ``bean`` at ``r.pos`` (None: the EmptyBean, whose body is skipped
    and read as ``{}``), leaving ``r.pos`` after its end tag (``max_expansion`` counts the
    bytes from ``r.pos`` to ``r.end``)."""
    codec = bean_codec(schema, bean, max_depth=max_depth, classes=classes,
                       max_expansion=max_expansion)
    value, r.pos = codec.decode_from(memoryview(r.data)[:r.end], r.pos)
    return value


class BeanCodec:
    """The encoder and decoder of one bean, prepared once (the habit of msgspec's
    ``Encoder``/``Decoder``): ``encode(value) -> bytes``, ``decode(data) -> value`` and
    ``decode_from(data, offset) -> (value, end)`` are :func:`encode`, :func:`decode` and
    :func:`decode_from` without the per-call lookups, and run the C twin when it is built."""

    def __init__(self, schema: ZezeSchema, bean: str | None, *, max_depth: int = MAX_DEPTH,
                 classes: bool = True, max_expansion: float | None = MAX_EXPANSION) -> None:
        self.schema = schema
        self.plan = _plan(schema, bean)
        self.max_depth = max_depth
        self.classes = classes
        self.max_expansion = check_factor(max_expansion)
        self.encode: Callable[[Any], bytes] = self._encode
        self.decode: Callable[[bytes | bytearray | memoryview], Any] = self._decode
        if self.plan is not None:
            fast = _accel.codec(plans_of(schema), self.plan, max_depth, self._encode,
                                self._decode, classes, self.max_expansion, EXPANSION_SLACK)
            if fast is not None:
                self.encode, self.decode = fast.encode, fast.decode

    def _encode(self, value: Any) -> bytes:
        w = Writer()
        if self.plan is None:
            w.write_byte(0)
        else:
            with recursion_room(_FRAMES_PER_LEVEL * self.max_depth + 100):
                Encoder(plans_of(self.schema), self.max_depth).bean(self.plan, value, w, 0)
        return w.getvalue()

    def _decode(self, data: bytes | bytearray | memoryview) -> Any:
        value, end = self._decode_from(data, 0)
        if end != len(data):
            raise DecodeError(f"{len(data) - end} bytes follow the bean", offset=end,
                              format="zeze")
        return value

    def decode_from(self, data: bytes | bytearray | memoryview,
                    offset: int = 0) -> tuple[Any, int]:
        if self.plan is not None and not (self.classes and self.plan.cls is not None):
            fast = _accel.decode(plans_of(self.schema), self.plan, data, offset,
                                 self.max_depth, self._limit(len(data) - offset))
            if fast is not None:
                return fast
        return self._decode_from(data, offset)

    def _limit(self, size: int) -> int:
        return expansion_limit(size, self.max_expansion, EXPANSION_SLACK)

    def _decode_from(self, data: bytes | bytearray | memoryview,
                     offset: int) -> tuple[Any, int]:
        r = Reader(data, offset)
        frames = _FRAMES_PER_LEVEL * min(self.max_depth, 2 * r.remaining + 2) + 100
        with recursion_room(frames):
            if self.plan is None:
                r.skip_bean(0)
                return {}, r.pos
            size = r.end - offset
            budget = Budget(self._limit(size), size, self.max_expansion)
            decoder = Decoder(plans_of(self.schema), self.max_depth, self.classes, budget)
            return decoder.bean(self.plan, r, 0), r.pos


def bean_codec(schema: ZezeSchema, bean: str | None, *, max_depth: int = MAX_DEPTH,
               classes: bool = True, max_expansion: float | None = MAX_EXPANSION) -> BeanCodec:
    """The schema's :class:`BeanCodec` for ``bean`` (made once, then cached; switching
    ``_accel.ENABLED`` is honoured)."""
    cache: dict[tuple[str | None, int, bool, bool, float | None], BeanCodec] = (
        plans_of(schema).codecs)
    key = (bean, max_depth, classes, _accel.ENABLED, check_factor(max_expansion))
    found = cache.get(key)
    if found is None:
        found = cache[key] = BeanCodec(schema, bean, max_depth=max_depth, classes=classes,
                                       max_expansion=max_expansion)
    return found


def encode(schema: ZezeSchema, bean: str | None, value: Any, *,
           max_depth: int = MAX_DEPTH) -> bytes:
    """The bytes Zeze's Java ``encode`` writes for ``value`` as the bean ``bean``.

    Raises :class:`~gameserde.errors.EncodeError` (with the path of the bad field) for a
    value the bean cannot hold, and :class:`~gameserde.errors.UnknownNameError` (a
    ``KeyError``) for a bean the schema lacks.
    """
    return bean_codec(schema, bean, max_depth=max_depth).encode(value)


def decode_from(schema: ZezeSchema, bean: str | None, data: bytes | bytearray | memoryview,
                offset: int = 0, *, max_depth: int = MAX_DEPTH, classes: bool = True,
                max_expansion: float | None = MAX_EXPANSION) -> tuple[Any, int]:
    """Decode the bean at ``offset`` as Java does and return it with the offset after it
    (what follows is not read, as in Java; ``max_expansion`` counts the bytes from
    ``offset`` to the end)."""
    return bean_codec(schema, bean, max_depth=max_depth, classes=classes,
                      max_expansion=max_expansion).decode_from(data, offset)


def decode(schema: ZezeSchema, bean: str | None, data: bytes | bytearray | memoryview, *,
           max_depth: int = MAX_DEPTH, classes: bool = True,
           max_expansion: float | None = MAX_EXPANSION) -> Any:
    """Decode ``data``, which must hold exactly one bean ``bean``.

    Values are converted from the wire type as Java converts them; an unknown field is kept
    (under :data:`~gameserde.zeze.values.UNKNOWN_KEY`) and written back by :func:`encode`.
    ``classes=False`` gives dicts even for schemas made from dataclasses. Raises
    :class:`~gameserde.errors.DecodeError` with the offset and field path where Java throws,
    for bytes after the bean (Java leaves them unread: use :func:`decode_from`), for
    nesting deeper than ``max_depth``, and where the default values of absent fields would
    exceed ``max_expansion`` times the input's size plus :data:`EXPANSION_SLACK` (see
    :data:`MAX_EXPANSION`; None or ``inf``: no limit).
    """
    return bean_codec(schema, bean, max_depth=max_depth, classes=classes,
                      max_expansion=max_expansion).decode(data)


def verify(schema: ZezeSchema, bean: str | None, data: bytes | bytearray | memoryview, *,
           max_depth: int = MAX_DEPTH, max_expansion: float | None = MAX_EXPANSION) -> str:
    """``"ok: a sound BEAN bean of N bytes"`` when ``data`` holds exactly one bean ``bean``
    that Java reads; otherwise the :class:`~gameserde.errors.DecodeError` :func:`decode`
    raises."""
    bean_codec(schema, bean, max_depth=max_depth, classes=False,
               max_expansion=max_expansion).decode(data)
    name = "EmptyBean" if bean is None else schema.bean(bean).name
    return f"ok: a sound {name} bean of {len(data)} bytes"
