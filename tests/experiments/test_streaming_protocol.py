"""The hand-written protocol parts of the streaming experiment, checked without a server.

WebSocket vectors come from RFC 6455 itself (section 1.3 for the handshake digest,
section 5.7 for frames), so the framing is checked against the standard, not against
our own reading of it.
"""

from __future__ import annotations

import io
import socket

import pytest

from experiments.streaming.reading import read_along, seconds_per_token
from experiments.streaming.tokens import TokenSource, split_tokens
from experiments.streaming.websocket import (
    OP_BINARY,
    OP_CLOSE,
    OP_TEXT,
    ProtocolError,
    accept_key,
    apply_mask,
    close_payload,
    encode_frame,
    parse_close,
    read_frame,
    validate_upgrade,
)
from experiments.streaming.wire import CountingReader, SSEParser, iter_body, read_head

RFC_MASK = bytes.fromhex("37fa213d")


def _reader(data: bytes):
    """A ``read_exact`` over bytes, failing loudly if the parser asks for too much."""
    stream = io.BytesIO(data)

    def read_exact(n: int) -> bytes:
        chunk = stream.read(n)
        assert len(chunk) == n, "parser read past the frame"
        return chunk

    return read_exact, stream


def test_accept_key_matches_rfc_example() -> None:
    # RFC 6455, section 1.3: the sample nonce and the accept value the RFC derives from it.
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def test_rfc_frame_examples() -> None:
    assert encode_frame(OP_TEXT, b"Hello") == bytes.fromhex("810548656c6c6f")
    assert encode_frame(OP_TEXT, b"Hello", mask_key=RFC_MASK) == bytes.fromhex(
        "818537fa213d7f9f4d5158"
    )
    assert encode_frame(OP_BINARY, bytes(256))[:4] == bytes.fromhex("827e0100")
    assert encode_frame(OP_BINARY, bytes(65536))[:10] == bytes.fromhex("827f0000000000010000")


@pytest.mark.parametrize(
    ("length", "extended"), [(0, 0), (1, 0), (125, 0), (126, 2), (65535, 2), (65536, 8)]
)
@pytest.mark.parametrize("masked", [False, True])
def test_length_encoding_boundaries_round_trip(length: int, extended: int, masked: bool) -> None:
    payload = bytes(i % 251 for i in range(length))
    frame = encode_frame(OP_BINARY, payload, mask_key=RFC_MASK if masked else None)
    header = 2 + extended + (4 if masked else 0)
    assert len(frame) == header + length
    assert frame[1] & 0x7F == {0: length, 2: 126, 8: 127}[extended]
    assert bool(frame[1] & 0x80) is masked
    assert frame[header:] == (apply_mask(payload, RFC_MASK) if masked else payload)
    read_exact, stream = _reader(frame)
    decoded = read_frame(read_exact, expect_masked=masked)
    assert (decoded.opcode, decoded.payload, decoded.fin) == (OP_BINARY, payload, True)
    assert decoded.wire_bytes == len(frame)
    assert stream.read() == b""


def test_masking_is_its_own_inverse() -> None:
    data = b"streaming tokens"
    assert apply_mask(apply_mask(data, RFC_MASK), RFC_MASK) == data
    assert apply_mask(data, bytes(4)) == data


def test_server_rejects_unmasked_client_frame_and_client_rejects_masked() -> None:
    with pytest.raises(ProtocolError, match="must be masked"):
        read_frame(_reader(encode_frame(OP_TEXT, b"hi"))[0], expect_masked=True)
    with pytest.raises(ProtocolError, match="must not be"):
        read_frame(_reader(encode_frame(OP_TEXT, b"hi", mask_key=RFC_MASK))[0], expect_masked=False)


def test_control_frames_are_short_and_unfragmented() -> None:
    with pytest.raises(ValueError):
        encode_frame(OP_CLOSE, bytes(126))
    too_long_close = bytes([0x88, 126]) + (126).to_bytes(2, "big") + bytes(126)
    with pytest.raises(ProtocolError, match="control frame"):
        read_frame(_reader(too_long_close)[0], expect_masked=False)
    with pytest.raises(ProtocolError, match="reserved"):
        read_frame(_reader(bytes([0xC1, 0]))[0], expect_masked=False)


def test_close_payload_carries_the_status_code() -> None:
    assert close_payload(1000) == b"\x03\xe8"
    assert parse_close(close_payload(1001, "bye")) == 1001
    assert parse_close(b"") is None


def _upgrade_headers(**changes: str) -> dict[str, str]:
    headers = {
        "upgrade": "websocket",
        "connection": "keep-alive, Upgrade",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    headers.update(changes)
    return headers


def test_validate_upgrade_accepts_rfc_request_and_names_what_is_wrong() -> None:
    assert validate_upgrade(_upgrade_headers()) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    for field, value, message in [
        ("upgrade", "h2c", "Upgrade"),
        ("connection", "close", "Connection"),
        ("sec-websocket-version", "8", "Version"),
        ("sec-websocket-key", "c2hvcnQ=", "Key"),
        ("sec-websocket-key", "not base64!", "Key"),
    ]:
        with pytest.raises(ProtocolError, match=message):
            validate_upgrade(_upgrade_headers(**{field: value}))


def test_sse_parser_follows_the_event_stream_rules() -> None:
    parser = SSEParser()
    stream = (
        b"data:  two spaces\r\n\r\n: a comment\ndata: a\ndata: b\n\n"
        b"event: done\n\nevent: end\ndata: 3\n\n"
    )
    events = [e for i in range(len(stream)) for e in parser.feed(stream[i : i + 1])]
    assert [(e.event, e.data) for e in events] == [
        ("message", " two spaces"),  # only one leading space is dropped
        ("message", "a\nb"),
        ("end", "3"),  # an event with no data is not dispatched
    ]


def _body_of(response: bytes) -> tuple[bytes, int]:
    """Read a raw response through the counting reader over a real socket pair."""
    left, right = socket.socketpair()
    with left, right:
        right.sendall(response)
        right.shutdown(socket.SHUT_WR)
        reader = CountingReader(left, timeout_s=5)
        head = read_head(reader)
        body = b"".join(iter_body(reader, head))
        return body, reader.bytes_received


@pytest.mark.parametrize(
    "response",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello world",
    ],
    ids=["content-length", "chunked-with-trailer", "close-delimited"],
)
def test_body_reader_undoes_each_framing_and_counts_every_byte(response: bytes) -> None:
    body, counted = _body_of(response)
    assert body == b"hello world"
    assert counted == len(response)


def test_token_source_is_deterministic_and_splits_back() -> None:
    source = TokenSource(rate_tokens_per_s=10.0, count=80)
    tokens = source.tokens()
    assert tokens == TokenSource(10.0, 80).tokens()
    assert not tokens[0].startswith(" ") and all(t.startswith(" ") for t in tokens[1:])
    assert all("\n" not in t and "\r" not in t for t in tokens)
    assert split_tokens("".join(tokens)) == tokens
    assert source.due_s(0) == pytest.approx(0.1) and source.duration_s == pytest.approx(8.0)


@pytest.mark.parametrize(("rate", "count"), [(0.0, 5), (-1.0, 5), (10.0, 0), (1e9, 5)])
def test_token_source_refuses_out_of_range_inputs(rate: float, count: int) -> None:
    with pytest.raises(ValueError):
        TokenSource(rate, count)


def test_reader_model_waits_only_when_text_is_late() -> None:
    token_s = seconds_per_token(reading_words_per_s=4.0, words_per_token=1.0)
    fast = read_along([0.0, 0.01, 0.02, 0.03], token_s)
    assert (fast.started_s, fast.finished_s, fast.stalled_s) == (0.0, 1.0, 0.0)
    slow = read_along([0.0, 1.0, 2.0], token_s)
    assert slow.stalled_s == pytest.approx(1.5) and slow.finished_s == pytest.approx(2.25)
    whole = read_along([3.0, 3.0, 3.0], token_s)
    assert whole.started_s == 3.0 and whole.finished_s == pytest.approx(3.75)
