"""asyncio clients and servers that speak Zeze frames (:mod:`gameserde.zeze.frames`).

A :class:`Connection` reads frames off a stream and writes them, as Zeze's Java ``Service``
does: :meth:`Connection.call` sends an rpc request under a new session id (1, 2, 3 ... on each
connection) and waits for the response with that id; incoming protocols and requests go to the
handler registered for their protocol (by name or type id), each in its own task. A request
handler's return value is sent back as the response (a :class:`Reply` also sets the result
code); when a handler raises, the error is logged and the response carries Java's
``Procedure.Exception`` code (-1); a request nobody handles gets ``Procedure.NotImplement``
(-3). A frame that is too large or cannot be decoded closes its connection, and the calls
waiting on it raise :class:`ConnectionClosed`.

Each connection's memory is bounded: it stops reading while ``max_in_flight`` of its handlers
run (a handler runs until its response has been taken by the transport, whose write buffer
holds at most ``write_buffer_limit`` bytes before writers wait: asyncio's flow control), so
a peer that pipelines requests and never reads the responses is left unread; a frame must
come whole within ``frame_timeout`` seconds of waiting for it, and a connection with nothing
to do may be closed after ``idle_timeout`` seconds without a byte.

:func:`connect` opens a client connection; :func:`serve` starts a server whose every
connection dispatches to the same handlers, and which closes at once any connection past
``max_connections``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from gameserde._expansion import check_factor
from gameserde.errors import DecodeError, GameserdeError
from gameserde.zeze.codec import MAX_EXPANSION
from gameserde.zeze.frames import MAX_FRAME_SIZE, Frame, FrameDecoder, encode_frame
from gameserde.zeze.schema import ZezeSchema

__all__ = ["FRAME_TIMEOUT", "MAX_CONNECTIONS", "MAX_IN_FLIGHT", "WRITE_BUFFER_LIMIT",
           "Connection", "ConnectionClosed", "Handler", "Reply", "RpcTimeout", "connect",
           "serve"]

log = logging.getLogger(__name__)

Handler = Callable[[Frame, "Connection"], Any]
"""Called with an incoming protocol or rpc request and its connection; may be async. For a
request, what it returns (or awaits to) is the result bean's value, or a :class:`Reply`."""

EXCEPTION = -1
"""Java's ``Procedure.Exception``: the result code of a request whose handler raised."""
NOT_IMPLEMENT = -3
"""Java's ``Procedure.NotImplement``: the result code of a request that has no handler."""

MAX_IN_FLIGHT = 128
"""The default number of handlers a connection runs at once before it stops reading."""
WRITE_BUFFER_LIMIT = 64 * 1024
"""The default high-water mark of a connection's write buffer (asyncio's own default): above
it, writers wait until it has drained to a quarter of it."""
FRAME_TIMEOUT = 30.0
"""The default number of seconds a connection waits for the rest of a frame it has begun."""
MAX_CONNECTIONS = 1024
"""The default number of connections a server keeps open at once."""

_READ_SIZE = 64 * 1024
_FEED_SIZE = 4096  # bytes decoded at a time: the frames waiting for a handler slot stay few


class ConnectionClosed(GameserdeError, ConnectionError):
    """The connection closed before the rpc's response came (``__cause__`` says why), or was
    already closed."""


class RpcTimeout(GameserdeError, TimeoutError):
    """No response to an rpc came in time (Java's ``RpcTimeoutException``)."""


@dataclass(frozen=True)
class Reply:
    """A request handler's response with a result code (Java's ``SendResultCode``)."""

    value: Any
    result_code: int = 0


class Connection:
    """Frames over one ``asyncio`` stream pair; created inside a running event loop, it
    starts reading at once. ``handlers`` maps protocol names (full or short) or type ids to
    :data:`Handler` functions. Frames larger than ``max_frame_size`` are refused.

    Limits: at most ``max_in_flight`` handlers run at once (reading waits for one to end; a
    handler ends when its response has been written); writes wait while the transport holds
    more than ``write_buffer_limit`` unsent bytes (it resumes them at a quarter of that); the
    connection closes when the rest of a begun frame takes longer than ``frame_timeout``
    seconds of waiting to come, or when no byte comes for ``idle_timeout`` seconds while no
    handler runs and no call waits. A timeout of None never closes it. ``max_expansion``
    bounds the default values each frame's bean builds (see :func:`gameserde.zeze.decode`).
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 schema: ZezeSchema, handlers: Mapping[str | int, Handler] | None = None, *,
                 max_frame_size: int = MAX_FRAME_SIZE, max_in_flight: int = MAX_IN_FLIGHT,
                 write_buffer_limit: int = WRITE_BUFFER_LIMIT,
                 frame_timeout: float | None = FRAME_TIMEOUT,
                 idle_timeout: float | None = None,
                 max_expansion: float | None = MAX_EXPANSION) -> None:
        _check_limits(max_frame_size, max_in_flight, write_buffer_limit, frame_timeout,
                      idle_timeout)
        self.schema = schema
        self._max_expansion = check_factor(max_expansion)
        self.peer = str(writer.get_extra_info("peername"))
        """The peer's address, for messages."""
        self.error: BaseException | None = None
        """Why the connection closed: a :class:`DecodeError` for a frame it refused,
        :class:`ConnectionClosed` when the peer closed it, a ``TimeoutError`` when a frame or
        the next byte took too long (``frame_timeout``, ``idle_timeout``), an ``OSError``;
        None while it is open or when :meth:`close` closed it."""
        self._handlers = {_type_id(schema, key): h for key, h in (handlers or {}).items()}
        self._reader = reader
        self._writer = writer
        self._decoder = FrameDecoder(max_frame_size)
        self._calls: dict[int, asyncio.Future[Frame]] = {}
        self._last_session_id = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(max_in_flight)
        self._frame_timeout = frame_timeout
        self._idle_timeout = idle_timeout
        self._frame_waited = 0.0  # seconds spent waiting for the rest of the pending frame
        self._closed = False
        writer.transport.set_write_buffer_limits(high=write_buffer_limit)
        self._reading = asyncio.get_running_loop().create_task(self._read())

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        """Whether the connection has closed (for any reason)."""
        return self._closed

    async def send(self, protocol: str, value: Any, *, result_code: int = 0) -> None:
        """Send ``value`` as the argument of ``protocol`` (full or short name)."""
        await self._write(encode_frame(self.schema, protocol, value, result_code=result_code))

    async def call(self, rpc: str, value: Any, *, timeout: float = 5.0) -> Frame:
        """Send ``value`` as the argument of ``rpc`` and return its response frame (its
        ``value`` is the result, ``result_code`` the code the peer set). Raises
        :class:`RpcTimeout` after ``timeout`` seconds (Java's default is 5; a response that
        comes later is logged and dropped) and :class:`ConnectionClosed`."""
        session_id = self._last_session_id + 1
        data = encode_frame(self.schema, rpc, value, session_id=session_id)
        self._last_session_id = session_id
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._calls[session_id] = future
        try:
            async with asyncio.timeout(timeout):
                await self._write(data)
                return await future
        except TimeoutError:
            raise RpcTimeout(f"rpc {self.schema.protocol(rpc).name} (session {session_id}) got "
                             f"no response from {self.peer} within {timeout} s") from None
        finally:
            self._calls.pop(session_id, None)

    async def close(self) -> None:
        """Close the connection: waiting calls raise :class:`ConnectionClosed`, running
        handlers are cancelled."""
        self._shutdown(None)
        current = asyncio.current_task()
        tasks = [t for t in (self._reading, *self._tasks) if t is not current]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        with suppress(OSError):
            await self._writer.wait_closed()

    async def wait_closed(self) -> None:
        """Wait until the connection has closed, for any reason (see :attr:`error`)."""
        await asyncio.wait([self._reading])

    async def _write(self, data: bytes) -> None:
        if self._closed:
            raise self._closed_error()
        self._writer.write(data)
        try:
            await self._writer.drain()
        except OSError as e:
            self._shutdown(e)
            raise self._closed_error() from e

    def _closed_error(self) -> ConnectionClosed:
        why = "it was closed" if self.error is None else str(self.error)
        err = ConnectionClosed(f"the connection to {self.peer} is closed: {why}")
        err.__cause__ = self.error
        return err

    async def _read(self) -> None:
        try:
            while True:
                chunk = await self._receive()
                if not chunk:
                    pending = self._decoder.pending
                    raise ConnectionClosed(
                        f"the peer closed the connection in the middle of a frame ({pending} "
                        f"bytes of it had come)" if pending else
                        "the peer closed the connection")
                view = memoryview(chunk)
                for start in range(0, len(view), _FEED_SIZE):
                    if not await self._take(view[start:start + _FEED_SIZE]):
                        return
        except DecodeError as e:
            log.error("zeze: closing the connection to %s: %s", self.peer, e)
            self._shutdown(e)
        except TimeoutError as e:
            log.log(logging.WARNING if self._decoder.pending else logging.INFO,
                    "zeze: closing the connection to %s: %s", self.peer, e)
            self._shutdown(e)
        except ConnectionClosed as e:
            log.log(logging.WARNING if self._decoder.pending else logging.DEBUG,
                    "zeze: %s: %s", self.peer, e)
            self._shutdown(e)
        except OSError as e:
            log.warning("zeze: the connection to %s failed: %s", self.peer, e)
            self._shutdown(e)
        finally:
            self._shutdown(None)

    async def _take(self, data: memoryview) -> bool:
        """Dispatch the frames ``data`` completes, waiting for a free handler slot before each
        protocol or request; False if the connection closed meanwhile."""
        frames = self._decoder.feed(data)
        if frames:
            self._frame_waited = 0.0
        for raw in frames:
            frame = raw.decode(self.schema, max_expansion=self._max_expansion)
            if frame.family != "response":
                await self._slots.acquire()  # released when its handler ends
                if self._closed:  # a write failed meanwhile
                    return False
            self._dispatch(frame)
        return True

    async def _receive(self) -> bytes:
        """The next chunk from the peer (empty at the end), within the frame or idle timeout."""
        loop = asyncio.get_running_loop()
        while True:
            pending = self._decoder.pending
            if not pending:
                limit = self._idle_timeout
            elif self._frame_timeout is None:
                limit = None
            else:
                limit = self._frame_timeout - self._frame_waited
            start = loop.time()
            try:
                async with asyncio.timeout(limit):
                    return await self._reader.read(_READ_SIZE)
            except TimeoutError:
                if pending:
                    raise TimeoutError(
                        f"the rest of a frame ({pending} bytes of it had come) did not come "
                        f"within frame_timeout={self._frame_timeout} s") from None
                if not (self._tasks or self._calls):
                    raise TimeoutError(f"nothing came within idle_timeout={limit} s while "
                                       f"nothing was in progress") from None
            finally:
                if pending:
                    self._frame_waited += loop.time() - start

    def _shutdown(self, error: BaseException | None) -> None:
        if self._closed:
            return
        self._closed = True
        self.error = error
        for future in self._calls.values():
            if not future.done():
                future.set_exception(self._closed_error())
        self._writer.close()

    def _dispatch(self, frame: Frame) -> None:
        if frame.family == "response":
            assert frame.session_id is not None
            future = self._calls.get(frame.session_id)
            if future is None or future.done():
                log.warning("zeze: a response of %s from %s has session id %s, which no call "
                            "waits for (timed out?)", frame.name, self.peer, frame.session_id)
            else:
                future.set_result(frame)
            return
        task = asyncio.get_running_loop().create_task(self._handle(frame))
        self._tasks.add(task)
        task.add_done_callback(self._handled)

    def _handled(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._slots.release()

    async def _handle(self, frame: Frame) -> None:
        is_request = frame.family == "request"
        handler = self._handlers.get(frame.type_id)
        try:
            if handler is None:
                log.warning("zeze: no handler for %s %s from %s", frame.family, frame.name,
                            self.peer)
                reply = Reply({}, NOT_IMPLEMENT)
            else:
                result = handler(frame, self)
                if inspect.isawaitable(result):
                    result = await result
                reply = result if isinstance(result, Reply) else Reply(result)
            if not is_request:
                return
            data = self._response(frame, reply)
        except Exception:
            log.exception("zeze: the handler of %s %s from %s failed", frame.family, frame.name,
                          self.peer)
            if not is_request:
                return
            data = self._response(frame, Reply({}, EXCEPTION))
        try:
            await self._write(data)
        except ConnectionClosed as e:
            log.warning("zeze: the response of %s could not be sent: %s", frame.name, e)

    def _response(self, request: Frame, reply: Reply) -> bytes:
        return encode_frame(self.schema, request.name, reply.value, family="response",
                            result_code=reply.result_code, session_id=request.session_id)


def _check_limits(max_frame_size: int, max_in_flight: int, write_buffer_limit: int,
                  frame_timeout: float | None, idle_timeout: float | None) -> None:
    _check_count("max_frame_size", max_frame_size, 0)
    _check_count("max_in_flight", max_in_flight, 1)
    _check_count("write_buffer_limit", write_buffer_limit, 0)
    for name, seconds in (("frame_timeout", frame_timeout), ("idle_timeout", idle_timeout)):
        if seconds is None:
            continue
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"{name} must be a number of seconds or None, not {seconds!r}")
        if not 0 < seconds < math.inf:
            raise ValueError(f"{name} must be a positive, finite number of seconds or None, "
                             f"not {seconds!r}")


def _check_count(name: str, value: int, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}, not {value}")


def _type_id(schema: ZezeSchema, key: str | int) -> int:
    if isinstance(key, str):
        return schema.protocol(key).type_id
    if schema.protocol_by_type_id(key) is None:
        raise KeyError(f"no protocol of the schema has the type id {key}")
    return key


async def connect(host: str, port: int, schema: ZezeSchema,
                  handlers: Mapping[str | int, Handler] | None = None, *,
                  max_frame_size: int = MAX_FRAME_SIZE, max_in_flight: int = MAX_IN_FLIGHT,
                  write_buffer_limit: int = WRITE_BUFFER_LIMIT,
                  frame_timeout: float | None = FRAME_TIMEOUT,
                  idle_timeout: float | None = None,
                  max_expansion: float | None = MAX_EXPANSION) -> Connection:
    """A :class:`Connection` to a Zeze server at ``host:port``, with the limits
    :class:`Connection` describes."""
    _check_limits(max_frame_size, max_in_flight, write_buffer_limit, frame_timeout, idle_timeout)
    check_factor(max_expansion)
    reader, writer = await asyncio.open_connection(host, port)
    return Connection(reader, writer, schema, handlers, max_frame_size=max_frame_size,
                      max_in_flight=max_in_flight, write_buffer_limit=write_buffer_limit,
                      frame_timeout=frame_timeout, idle_timeout=idle_timeout,
                      max_expansion=max_expansion)


async def serve(host: str, port: int, schema: ZezeSchema,
                handlers: Mapping[str | int, Handler] | None = None, *,
                max_frame_size: int = MAX_FRAME_SIZE, max_in_flight: int = MAX_IN_FLIGHT,
                write_buffer_limit: int = WRITE_BUFFER_LIMIT,
                frame_timeout: float | None = FRAME_TIMEOUT, idle_timeout: float | None = None,
                max_connections: int | None = MAX_CONNECTIONS,
                max_expansion: float | None = MAX_EXPANSION) -> asyncio.Server:
    """Start a server on ``host:port`` (port 0: any free port) whose connections dispatch to
    ``handlers``, each with the limits :class:`Connection` describes; each connection lives
    until the peer, a handler or a limit closes it. A connection that comes while
    ``max_connections`` are open (None: no limit) is closed at once, before reading from it,
    and a warning logged."""
    for key in handlers or {}:
        _type_id(schema, key)
    _check_limits(max_frame_size, max_in_flight, write_buffer_limit, frame_timeout, idle_timeout)
    check_factor(max_expansion)
    if max_connections is not None:
        _check_count("max_connections", max_connections, 1)
    open_connections = 0

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal open_connections
        if max_connections is not None and open_connections >= max_connections:
            log.warning("zeze: closing the connection from %s at once: the server has "
                        "max_connections=%d open", writer.get_extra_info("peername"),
                        max_connections)
            writer.close()
            with suppress(OSError):
                await writer.wait_closed()
            return
        open_connections += 1
        try:
            conn = Connection(reader, writer, schema, handlers, max_frame_size=max_frame_size,
                              max_in_flight=max_in_flight,
                              write_buffer_limit=write_buffer_limit,
                              frame_timeout=frame_timeout, idle_timeout=idle_timeout,
                              max_expansion=max_expansion)
            # asyncio 3.11 logs a cancelled connection callback as an error; when the loop
            # cancels this task as it ends, the connection's own tasks are cancelled and close it
            with suppress(asyncio.CancelledError):
                await conn.wait_closed()
                await conn.close()
        finally:
            open_connections -= 1

    return await asyncio.start_server(accept, host, port)
