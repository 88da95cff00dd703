"""Zeze connections on loopback: rpcs matched by session id, protocols dispatched by type id,
timeouts, failing handlers, split writes, peers that close mid-frame or send frames that are
too large or undecodable. Each test runs its own event loop with a bound on its time."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import pytest

from gameserde.errors import DecodeError, EncodeError
from gameserde.zeze import ZezeSchema, load_schema, protocol_type_id
from gameserde.zeze.frames import Frame, FrameDecoder, encode_frame, encode_raw_frame
from gameserde.zeze.net import (
    EXCEPTION,
    NOT_IMPLEMENT,
    Connection,
    ConnectionClosed,
    Reply,
    RpcTimeout,
    connect,
    serve,
)

SCHEMA: ZezeSchema = load_schema("""<solution name="app"><module name="m" id="7">
  <bean name="BInner"><variable id="1" name="a" type="int"/>
    <variable id="2" name="s" type="string"/></bean>
  <bean name="BOther"><variable id="1" name="x" type="long"/></bean>
  <protocol name="PInner" id="9" argument="BInner"/>
  <protocol name="PPing" id="11"/>
  <rpc name="RInner" id="10" argument="BInner" result="BOther"/>
</module></solution>""")
HOST = "127.0.0.1"
RawCallback = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``test()`` in a fresh event loop, failing it after two seconds."""
    asyncio.run(asyncio.wait_for(test(), 2))


def port_of(server: asyncio.Server) -> int:
    port: int = server.sockets[0].getsockname()[1]
    return port


@asynccontextmanager
async def zeze_server(handlers: dict[str | int, Any], **options: Any) -> AsyncIterator[int]:
    server = await serve(HOST, 0, SCHEMA, handlers, **options)
    try:
        yield port_of(server)
    finally:
        server.close()
        await server.wait_closed()


@asynccontextmanager
async def raw_server(callback: RawCallback) -> AsyncIterator[int]:
    server = await asyncio.start_server(callback, HOST, 0)
    try:
        yield port_of(server)
    finally:
        server.close()
        await server.wait_closed()


async def read_frames(reader: asyncio.StreamReader, count: int) -> list[Frame]:
    decoder = FrameDecoder()
    frames: list[Frame] = []
    while len(frames) < count:
        chunk = await reader.read(4096)
        assert chunk, "the peer closed the connection"
        frames += [raw.decode(SCHEMA) for raw in decoder.feed(chunk)]
    return frames


async def double(frame: Frame, conn: Connection) -> dict[str, int]:
    for _ in range(random.randrange(4)):  # answer out of order
        await asyncio.sleep(0)
    return {"x": 2 * frame.value["a"]}


def request(session_id: int, a: int = 1) -> bytes:
    return encode_frame(SCHEMA, "RInner", {"a": a}, session_id=session_id)


# -- rpcs and protocols -------------------------------------------------------------------------


def test_calls_and_protocols_both_ways() -> None:
    async def test() -> None:
        got: asyncio.Queue[Frame] = asyncio.Queue()

        async def echo(frame: Frame, conn: Connection) -> None:
            await conn.send("PInner", {"a": frame.value["a"] + 1, "s": "back"})

        async with zeze_server({"RInner": double, "m.PInner": echo}) as port:
            handlers: dict[str | int, Any] = {
                protocol_type_id(7, 9): lambda f, c: got.put_nowait(f)}
            async with await connect(HOST, port, SCHEMA, handlers) as conn:
                response = await conn.call("RInner", {"a": 21})
                assert response == Frame("app.m.RInner", 7, 10, "response", {"x": 42}, 0, 1)
                await conn.send("PInner", {"a": 1, "s": "there"})
                assert await got.get() == Frame("app.m.PInner", 7, 9, "protocol",
                                                 {"a": 2, "s": "back"})
    run(test)


def test_many_concurrent_calls_are_matched() -> None:
    async def test() -> None:
        async with zeze_server({"RInner": double}) as port:
            clients = [await connect(HOST, port, SCHEMA) for _ in range(3)]
            calls = [(c, a) for a in range(150) for c in clients]
            responses = await asyncio.gather(*(c.call("RInner", {"a": a}) for c, a in calls))
            assert [r.value["x"] for r in responses] == [2 * a for _, a in calls]
            assert sorted(r.session_id or 0 for r in responses) == sorted(list(range(1, 151)) * 3)
            for c in clients:
                await c.close()
    run(test)


def test_session_ids_count_from_one_on_each_connection() -> None:
    seen: list[int | None] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        while chunk := await reader.read(4096):
            for raw in decoder.feed(chunk):
                frame = raw.decode(SCHEMA)
                seen.append(frame.session_id)
                writer.write(encode_frame(SCHEMA, "RInner", {"x": 0}, family="response",
                                          session_id=frame.session_id))
        writer.close()

    async def test() -> None:
        async with raw_server(answer) as port:
            for _ in range(2):
                async with await connect(HOST, port, SCHEMA) as conn:
                    for _ in range(3):
                        with pytest.raises(EncodeError):  # uses up no session id
                            await conn.call("RInner", {"a": "one"})
                        await conn.call("RInner", {"a": 1})
    run(test)
    assert seen == [1, 2, 3, 1, 2, 3]


def test_slow_and_split_writes() -> None:
    async def test() -> None:
        async with zeze_server({"RInner": double}) as port:
            reader, writer = await asyncio.open_connection(HOST, port)
            data = request(5, 10) + request(6, 11) + request(7, 12)
            for i in range(0, 30):  # byte by byte, then the rest in one write
                writer.write(data[i:i + 1])
                await writer.drain()
                await asyncio.sleep(0.001)
            writer.write(data[30:])
            frames = await read_frames(reader, 3)
            assert sorted((f.session_id, f.value["x"]) for f in frames) == [
                (5, 20), (6, 22), (7, 24)]
            writer.close()
            await writer.wait_closed()
    run(test)


# -- timeouts and failing handlers --------------------------------------------------------------


def test_timeout_then_late_response_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        release = asyncio.Event()

        async def slow(frame: Frame, conn: Connection) -> dict[str, int]:
            if frame.value["a"] == 0:
                await release.wait()
            return {"x": frame.value["a"]}

        async with zeze_server({"RInner": slow}) as port, await connect(HOST, port, SCHEMA) as conn:
            with pytest.raises(RpcTimeout, match=r"RInner \(session 1\) got no response"):
                await conn.call("RInner", {"a": 0}, timeout=0.05)
            release.set()
            assert (await conn.call("RInner", {"a": 3})).value == {"x": 3}
            for _ in range(50):
                if "no call waits" in caplog.text:
                    break
                await asyncio.sleep(0.005)
            assert (await conn.call("RInner", {"a": 4})).session_id == 3
    with caplog.at_level(logging.WARNING, logger="gameserde.zeze.net"):
        run(test)
    assert "session id 1, which no call waits for" in caplog.text


def test_failing_handlers_are_reported_and_the_connection_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        pinged = asyncio.Event()

        def answer(frame: Frame, conn: Connection) -> Any:
            a = frame.value["a"]
            if a == 1:
                raise RuntimeError("boom")
            if a == 2:
                return {"x": "not a long"}
            if a == 3:
                return Reply({"x": 9}, 1234)
            return {"x": a}

        def ping(frame: Frame, conn: Connection) -> None:
            pinged.set()
            raise ValueError("protocol handler failed")

        handlers: dict[str | int, Any] = {"RInner": answer, "PPing": ping}
        async with zeze_server(handlers) as port, await connect(HOST, port, SCHEMA) as conn:
            failed = await conn.call("RInner", {"a": 1})
            assert (failed.result_code, failed.value) == (EXCEPTION, {"x": 0})
            assert (await conn.call("RInner", {"a": 2})).result_code == EXCEPTION
            coded = await conn.call("RInner", {"a": 3})
            assert (coded.result_code, coded.value) == (1234, {"x": 9})
            await conn.send("PPing", {})
            await pinged.wait()
            assert (await conn.call("RInner", {"a": 4})).value == {"x": 4}
    with caplog.at_level(logging.ERROR, logger="gameserde.zeze.net"):
        run(test)
    assert "boom" in caplog.text and "protocol handler failed" in caplog.text
    assert 'encode error in $.value.x' in caplog.text  # the bad result was reported


def test_requests_without_a_handler_get_not_implement() -> None:
    async def test() -> None:
        async with zeze_server({}) as port, await connect(HOST, port, SCHEMA) as conn:
            assert (await conn.call("RInner", {"a": 1})).result_code == NOT_IMPLEMENT
            await conn.send("PPing", {})
            assert (await conn.call("RInner", {"a": 1})).session_id == 2
    run(test)


def test_handler_keys_must_name_protocols() -> None:
    async def test() -> None:
        with pytest.raises(KeyError):
            await serve(HOST, 0, SCHEMA, {"RNone": double})
        with pytest.raises(KeyError):
            await serve(HOST, 0, SCHEMA, {12345: double})
    run(test)


# -- peers that misbehave -----------------------------------------------------------------------


def test_a_client_closing_mid_frame_leaves_the_server_working(
        caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        async with zeze_server({"RInner": double}) as port:
            _, writer = await asyncio.open_connection(HOST, port)
            writer.write(request(1)[:15])
            await writer.drain()
            writer.close()
            await writer.wait_closed()
            async with await connect(HOST, port, SCHEMA) as conn:
                for _ in range(50):
                    if "middle of a frame" in caplog.text:
                        break
                    await asyncio.sleep(0.005)
                assert (await conn.call("RInner", {"a": 2})).value == {"x": 4}
    with caplog.at_level(logging.WARNING, logger="gameserde.zeze.net"):
        run(test)
    assert "the peer closed the connection in the middle of a frame (15 bytes" in caplog.text


def test_a_server_closing_mid_frame_fails_the_waiting_calls() -> None:
    async def half(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        frames = await read_frames(reader, 2)
        writer.write(encode_frame(SCHEMA, "RInner", {"x": 1}, family="response",
                                  session_id=frames[0].session_id)[:-2])
        writer.close()

    async def test() -> None:
        async with raw_server(half) as port:
            conn = await connect(HOST, port, SCHEMA)
            calls = [asyncio.create_task(conn.call("RInner", {"a": a})) for a in range(2)]
            for call in calls:
                with pytest.raises(ConnectionClosed, match="middle of a frame") as info:
                    await call
                assert isinstance(info.value.__cause__, ConnectionClosed)
            assert conn.closed and isinstance(conn.error, ConnectionClosed)
            with pytest.raises(ConnectionClosed):
                await conn.call("RInner", {"a": 1})
            await conn.close()
    run(test)


@pytest.mark.parametrize(("data", "message"), [
    (encode_raw_frame(7, 10, b"")[:8] + (1001).to_bytes(4, "little"),
     "announces 1001 body bytes, more than the limit of 1000"),
    (encode_raw_frame(7, 99, b"\x02\x00"), f"type id {protocol_type_id(7, 99)}"),
    (encode_raw_frame(7, 10, b"\x01\x01\x23\x05ab"), "needs 5 bytes"),
], ids=["oversize", "unknown type id", "truncated bean"])
def test_a_bad_frame_closes_only_its_connection(data: bytes, message: str,
                                                caplog: pytest.LogCaptureFixture) -> None:
    async def test() -> None:
        release = asyncio.Event()

        async def slow(frame: Frame, conn: Connection) -> dict[str, int]:
            await release.wait()
            return {"x": 1}

        async with zeze_server({"RInner": slow}, max_frame_size=1000) as port:
            good = await connect(HOST, port, SCHEMA)
            waiting = asyncio.create_task(good.call("RInner", {"a": 1}))
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(data)
            assert await reader.read() == b""  # closed (an oversize frame at its header)
            writer.close()
            release.set()
            assert (await waiting).value == {"x": 1}
            assert (await good.call("RInner", {"a": 1})).session_id == 2
            await good.close()
    with caplog.at_level(logging.ERROR, logger="gameserde.zeze.net"):
        run(test)
    assert "closing the connection" in caplog.text and message in caplog.text


@pytest.mark.parametrize(("reply", "message"), [
    (encode_raw_frame(7, 10, b"")[:8] + (3 << 20).to_bytes(4, "little"), "limit of 2097152"),
    (encode_raw_frame(7, 99, b"\x02\x00"), f"type id {protocol_type_id(7, 99)}"),
    (encode_raw_frame(7, 10, b"\x02\x00"), "invalid header"),
], ids=["oversize", "unknown type id", "wrong family"])
def test_a_bad_frame_from_the_server_fails_the_calls(reply: bytes, message: str) -> None:
    async def bad(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_frames(reader, 1)
        writer.write(reply)
        await reader.read()
        writer.close()

    async def test() -> None:
        async with raw_server(bad) as port:
            conn = await connect(HOST, port, SCHEMA)
            with pytest.raises(ConnectionClosed, match=message) as info:
                await conn.call("RInner", {"a": 1})
            assert isinstance(info.value.__cause__, DecodeError)
            assert conn.error is info.value.__cause__ and conn.closed
            await conn.close()
    run(test)


def test_close_fails_waiting_calls_and_later_sends() -> None:
    async def test() -> None:
        async def never(frame: Frame, conn: Connection) -> None:
            await asyncio.Event().wait()

        async with zeze_server({"RInner": never}) as port:
            conn = await connect(HOST, port, SCHEMA)
            waiting = asyncio.create_task(conn.call("RInner", {"a": 1}))
            await asyncio.sleep(0.01)
            await conn.close()
            with pytest.raises(ConnectionClosed, match="it was closed"):
                await waiting
            with pytest.raises(ConnectionClosed):
                await conn.send("PPing", {})
            assert conn.closed and conn.error is None
    run(test)
