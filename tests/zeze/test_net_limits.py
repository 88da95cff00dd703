"""The limits of Zeze connections, on loopback: a peer that pipelines requests and never reads
is left unread with the server's memory bounded while other connections are answered at once;
the in-flight cap; begun frames and idle connections that time out; the connection cap; the
options' checks. Each test runs its own event loop, bounded in time (see ``run``)."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
import tracemalloc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import pytest

from gameserde.zeze import load_schema
from gameserde.zeze.frames import Frame, FrameDecoder, encode_frame
from gameserde.zeze.net import Connection, ConnectionClosed, connect, serve
from tests.zeze.test_net import HOST, port_of, run

SCHEMA = load_schema("""<solution name="app"><module name="m" id="7">
  <bean name="BSize"><variable id="1" name="n" type="int"/></bean>
  <bean name="BText"><variable id="1" name="s" type="string"/></bean>
  <protocol name="PText" id="2" argument="BText"/>
  <rpc name="RText" id="1" argument="BSize" result="BText"/>
  <rpc name="RUpper" id="3" argument="BText" result="BText"/>
</module></solution>""")


def request(session_id: int, n: int) -> bytes:
    return encode_frame(SCHEMA, "RText", {"n": n}, session_id=session_id)


@asynccontextmanager
async def server(handlers: dict[str | int, Any], **options: Any) -> AsyncIterator[int]:
    srv = await serve(HOST, 0, SCHEMA, handlers, **options)
    # connections inherit the listening socket's small send buffer: the kernel holds few of
    # the responses a peer does not read, so the server's own limits are what is tested
    srv.sockets[0].setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    try:
        yield port_of(srv)
    finally:
        srv.close()
        await srv.wait_closed()


async def open_raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A plain connection whose small receive buffer holds few of the server's bytes."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
    return await asyncio.open_connection(sock=sock)


async def settled(count: list[int]) -> int:
    """``count[0]`` once it has stayed the same for 0.1 s."""
    last = -1
    while last != count[0]:
        last = count[0]
        await asyncio.sleep(0.1)
    return last


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> float:
    """How long the peer took to close the connection (failing after ``seconds``)."""
    start = time.perf_counter()
    async with asyncio.timeout(seconds):
        with suppress(ConnectionResetError):
            while await reader.read(4096):
                pass
    return time.perf_counter() - start


# -- backpressure -------------------------------------------------------------------------------


def test_a_peer_that_never_reads_is_paused_and_memory_stays_bounded() -> None:
    """2,000 pipelined requests for 1 KiB responses, never read: the server handles about
    ``max_in_flight`` + ``write_buffer_limit`` / 1 KiB + what the kernel buffers (about 150),
    then stops reading; the traced memory (0.53 MB; 11.7 MB before the limits, which handled
    all 2,000) stays far below the 2 MB of responses; another connection is answered at
    once; once the peer reads, every response comes."""
    total, size = 2000, 1024
    handled = [0]

    async def text(frame: Frame, conn: Connection) -> dict[str, str]:
        handled[0] += 1
        return {"s": "x" * frame.value["n"]}

    async def test() -> None:
        async with server({"RText": text}, max_in_flight=8, write_buffer_limit=8192) as port:
            other = await connect(HOST, port, SCHEMA)
            await other.call("RText", {"n": 1})
            reader, writer = await open_raw(port)
            flood = b"".join(request(i + 1, size) for i in range(total))
            tracemalloc.start()
            try:
                writer.write(flood)
                paused_at = await settled(handled) - 1
                latencies = []
                for _ in range(20):
                    start = time.perf_counter()
                    assert (await other.call("RText", {"n": 3})).value == {"s": "xxx"}
                    latencies.append(time.perf_counter() - start)
                _, traced = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert 8 < paused_at < 400, paused_at
            assert handled[0] == paused_at + 21  # the other connection's calls only
            assert traced < 1_000_000, traced
            assert max(latencies) < 0.5, latencies
            decoder, got = FrameDecoder(), 0
            while got < total:
                chunk = await reader.read(1 << 16)
                assert chunk
                got += len(decoder.feed(chunk))
            writer.close()
            await other.close()
    run(test)


def test_the_in_flight_cap_stops_reading_until_a_handler_ends() -> None:
    async def test() -> None:
        started: list[int] = []
        release = asyncio.Event()

        async def text(frame: Frame, conn: Connection) -> dict[str, str]:
            started.append(frame.value["n"])
            await release.wait()
            return {"s": str(frame.value["n"])}

        async with server({"RText": text}, max_in_flight=5) as port:
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(b"".join(request(i + 1, i) for i in range(50)))
            while len(started) < 5:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            assert started == [0, 1, 2, 3, 4]
            release.set()
            frames: list[Frame] = []
            decoder = FrameDecoder()
            while len(frames) < 50:
                frames += [raw.decode(SCHEMA) for raw in decoder.feed(await reader.read(4096))]
            assert sorted(f.session_id or 0 for f in frames) == list(range(1, 51))
            writer.close()
    run(test)


def test_many_concurrent_calls_with_big_arguments_do_not_deadlock() -> None:
    """The client's own writes wait for the server to read, and the server's for the client:
    reading is never paused for a connection's own output, so both go on."""
    async def upper(frame: Frame, conn: Connection) -> dict[str, str]:
        return {"s": frame.value["s"].upper()}

    async def test() -> None:
        limits: dict[str, Any] = {"max_in_flight": 2, "write_buffer_limit": 1024}
        async with server({"RUpper": upper}, **limits) as port:
            conn = await connect(HOST, port, SCHEMA, **limits)
            texts = [chr(97 + i % 26) * 4096 for i in range(100)]
            replies = await asyncio.gather(*(conn.call("RUpper", {"s": t}) for t in texts))
            assert [r.value["s"] for r in replies] == [t.upper() for t in texts]
            await conn.close()
    run(test)


# -- timeouts -----------------------------------------------------------------------------------


def test_a_begun_frame_must_come_within_frame_timeout(caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        async with server({}, frame_timeout=0.15) as port:
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(request(1, 1)[:15])  # stalls after 15 bytes
            assert 0.1 < await closed_within(reader, 1) < 0.5
            writer.close()
            reader, writer = await asyncio.open_connection(HOST, port)

            async def trickle() -> None:  # a byte every 20 ms does not stretch the time
                for byte in request(1, 1)[:-1]:
                    writer.write(bytes([byte]))
                    await asyncio.sleep(0.02)

            trickling = asyncio.create_task(trickle())
            assert 0.1 < await closed_within(reader, 1) < 0.4
            trickling.cancel()
            writer.close()
            async with await connect(HOST, port, SCHEMA) as conn:  # whole frames are fine
                await asyncio.sleep(0.2)
                assert (await conn.call("RText", {"n": 1})).result_code == -3
    with caplog.at_level(logging.WARNING, logger="gameserde.zeze.net"):
        run(test)
    assert ("the rest of a frame (15 bytes of it had come) did not come within "
            "frame_timeout=0.15 s") in caplog.text


def test_time_paused_for_a_handler_slot_is_not_the_peers() -> None:
    """Requests 1 and 2 and half of 3 come at once; with one slot, request 2 waits 0.3 s for
    request 1's handler, then the rest of request 3 comes: 0.35 s after its first half, but
    only 0.05 s after the server went back to reading, within frame_timeout=0.2."""
    async def slow(frame: Frame, conn: Connection) -> dict[str, str]:
        await asyncio.sleep(0.3 if frame.value["n"] == 1 else 0)
        return {"s": str(frame.value["n"])}

    async def test() -> None:
        async with server({"RText": slow}, max_in_flight=1, frame_timeout=0.2) as port:
            reader, writer = await asyncio.open_connection(HOST, port)
            third = request(3, 3)
            writer.write(request(1, 1) + request(2, 2) + third[:10])
            await asyncio.sleep(0.35)
            writer.write(third[10:])
            frames: list[Frame] = []
            decoder = FrameDecoder()
            while len(frames) < 3:
                chunk = await reader.read(4096)
                assert chunk, "the server closed the connection"
                frames += [raw.decode(SCHEMA) for raw in decoder.feed(chunk)]
            assert [f.value["s"] for f in frames] == ["1", "2", "3"]
            writer.close()
    run(test)


def test_an_idle_connection_is_closed_after_idle_timeout() -> None:
    async def test() -> None:
        async def slow(frame: Frame, conn: Connection) -> dict[str, str]:
            await asyncio.sleep(0.3)
            return {"s": "late"}

        async with server({"RText": slow}, idle_timeout=0.1) as port:
            reader, writer = await asyncio.open_connection(HOST, port)
            assert 0.05 < await closed_within(reader, 1) < 0.4
            writer.close()
            # a running handler is work in progress: not idle
            async with await connect(HOST, port, SCHEMA) as conn:
                assert (await conn.call("RText", {"n": 1})).value == {"s": "late"}
                await conn.wait_closed()
                assert isinstance(conn.error, ConnectionClosed)
        async with server({"RText": slow}) as port:  # the client waits for its call too
            conn = await connect(HOST, port, SCHEMA, idle_timeout=0.1)
            assert (await conn.call("RText", {"n": 1})).value == {"s": "late"}
            await conn.wait_closed()
            assert isinstance(conn.error, TimeoutError)
            assert "nothing came within idle_timeout=0.1 s" in str(conn.error)
    run(test)


# -- the connection cap -------------------------------------------------------------------------


def test_connections_past_max_connections_are_closed_at_once(
        caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        async with server({}, max_connections=2) as port:
            first = await connect(HOST, port, SCHEMA)
            second = await connect(HOST, port, SCHEMA)
            reader, writer = await asyncio.open_connection(HOST, port)
            assert await closed_within(reader, 1) < 0.2
            writer.close()
            for conn in (first, second):
                assert (await conn.call("RText", {"n": 1})).result_code == -3
            await first.close()
            for _ in range(100):  # the server sees the close soon after
                third = await connect(HOST, port, SCHEMA)
                try:
                    assert (await third.call("RText", {"n": 1})).result_code == -3
                    break
                except ConnectionClosed:
                    await asyncio.sleep(0.01)
            else:
                pytest.fail("the server kept refusing after a connection closed")
            await third.close()
            await second.close()
    with caplog.at_level(logging.WARNING, logger="gameserde.zeze.net"):
        run(test)
    assert "the server has max_connections=2 open" in caplog.text


# -- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"max_in_flight": 0}, ValueError, "max_in_flight must be at least 1, not 0"),
    ({"max_in_flight": True}, TypeError, "max_in_flight must be an int, not True"),
    ({"max_in_flight": None}, TypeError, "max_in_flight must be an int"),
    ({"write_buffer_limit": -1}, ValueError, "write_buffer_limit must be at least 0"),
    ({"write_buffer_limit": 1.5}, TypeError, "write_buffer_limit must be an int"),
    ({"max_frame_size": -1}, ValueError, "max_frame_size must be at least 0"),
    ({"frame_timeout": 0}, ValueError, "frame_timeout must be a positive, finite number"),
    ({"frame_timeout": float("nan")}, ValueError, "frame_timeout must be a positive"),
    ({"idle_timeout": float("inf")}, ValueError, "idle_timeout must be a positive"),
    ({"idle_timeout": -1.0}, ValueError, "idle_timeout must be a positive"),
    ({"idle_timeout": "5"}, TypeError, "idle_timeout must be a number of seconds or None"),
    ({"max_connections": 0}, ValueError, "max_connections must be at least 1, not 0"),
    ({"max_connections": 2.0}, TypeError, "max_connections must be an int"),
    ({"max_expansion": -1}, ValueError, "max_expansion must be a number >= 0 or None"),
])
def test_options_are_checked_before_listening_or_connecting(
        options: dict[str, Any], error: type[Exception], message: str) -> None:
    async def test() -> None:
        with pytest.raises(error, match=message):
            await serve(HOST, 0, SCHEMA, {}, **options)
        if "max_connections" not in options:
            with pytest.raises(error, match=message):
                await connect(HOST, 1, SCHEMA, **options)  # no connection is tried
    run(test)


def test_limits_may_be_lifted() -> None:
    async def test() -> None:
        lifted = {"frame_timeout": None, "idle_timeout": None, "max_connections": None,
                  "write_buffer_limit": 0, "max_in_flight": 1}
        async with (server({"RText": lambda f, c: {"s": "ok"}}, **lifted) as port,
                    await connect(HOST, port, SCHEMA, frame_timeout=None) as conn):
            replies = await asyncio.gather(*(conn.call("RText", {"n": 1}) for _ in range(9)))
            assert {r.value["s"] for r in replies} == {"ok"}
    run(test)


WIDE = load_schema("""<solution name="app"><module name="m" id="7">
  <bean name="BW">""" + "".join(f'<variable id="{i}" name="f{i}" type="int"/>'
                                 for i in range(1, 17)) + """</bean>
  <bean name="BL"><variable id="1" name="items" type="list[BW]"/></bean>
  <protocol name="PL" id="4" argument="BL"/>
</module></solution>""")


def test_frames_are_decoded_within_max_expansion() -> None:
    """300 empty 16-field beans build 4,800 default values: within the default budget of a
    305-byte body, past that of ``max_expansion=0`` (4,096), which closes the connection."""
    frame = encode_frame(WIDE, "PL", {"items": [{}] * 300})

    got: list[int] = []

    async def test(factor: float) -> None:
        got.clear()
        srv = await serve(HOST, 0, WIDE, {"PL": lambda f, c: got.append(len(f.value["items"]))},
                          max_expansion=factor)
        try:
            reader, writer = await asyncio.open_connection(HOST, port_of(srv))
            writer.write(frame)
            await writer.drain()
            if factor == 0:
                assert await asyncio.wait_for(reader.read(), 2) == b""
            else:
                while not got:
                    await asyncio.sleep(0.01)
            writer.close()
        finally:
            srv.close()
            await srv.wait_closed()

    run(lambda: test(64))
    assert got == [300]
    run(lambda: test(0))
    assert got == []
