"""The parts of the WebSocket protocol (RFC 6455) this experiment needs, written by hand.

Written out rather than imported so that the bytes a WebSocket costs per token are ours to
count and explain: the opening handshake (section 4, with the ``Sec-WebSocket-Accept``
digest of section 1.3), and base framing (section 5.2): FIN bit and opcode, a 7-bit
length or the 16-bit or 64-bit extended lengths, and the 4-byte mask that every frame from
a client carries and no frame from a server may carry (section 5.1). Text and close frames
are all the experiment sends; extensions, fragmentation and ping/pong are left out.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# The fixed GUID every server appends to the client's key (RFC 6455, section 1.3).
HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
VERSION = "13"

OP_CONTINUATION = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA
_KNOWN_OPCODES = {OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG}

CLOSE_NORMAL = 1000  # the stream ended as planned
CLOSE_GOING_AWAY = 1001  # the reader left (a browser sends this when the page goes away)

# Longest payload a reader here accepts: a bound on memory, not a protocol limit.
MAX_PAYLOAD_BYTES = 1 << 24
_MAX_7BIT = 125
_MAX_16BIT = 0xFFFF


class ProtocolError(Exception):
    """The peer broke RFC 6455; the connection must be failed, not repaired."""


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``: proves the server read it."""
    digest = hashlib.sha1((key + HANDSHAKE_GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def new_key() -> str:
    """A fresh client key: 16 random bytes, base64-encoded (section 4.1)."""
    return base64.b64encode(os.urandom(16)).decode("ascii")


def validate_upgrade(headers: Mapping[str, str]) -> str:
    """Check a client's opening handshake; return the ``Sec-WebSocket-Accept`` to send back.

    ``headers`` maps lower-case names to values. Raises ``ProtocolError`` naming the first
    header that is missing or wrong, so a server can refuse with a useful 400.
    """
    if headers.get("upgrade", "").strip().lower() != "websocket":
        raise ProtocolError("Upgrade header must be 'websocket'")
    connection_tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    if "upgrade" not in connection_tokens:
        raise ProtocolError("Connection header must include 'Upgrade'")
    if headers.get("sec-websocket-version", "").strip() != VERSION:
        raise ProtocolError(f"Sec-WebSocket-Version must be {VERSION}")
    key = headers.get("sec-websocket-key", "").strip()
    try:
        nonce = base64.b64decode(key, validate=True)
    except binascii.Error:
        nonce = b""
    if len(nonce) != 16:
        raise ProtocolError("Sec-WebSocket-Key must be 16 bytes, base64-encoded")
    return accept_key(key)


def apply_mask(data: bytes, mask_key: bytes) -> bytes:
    """XOR ``data`` with the repeating 4-byte ``mask_key``; masking and unmasking are the same."""
    if len(mask_key) != 4:
        raise ValueError("a mask key is 4 bytes")
    n = len(data)
    if n == 0:
        return b""
    # One big-integer XOR instead of a Python loop: 64 KiB frames stay cheap.
    stream = (mask_key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")


def encode_frame(
    opcode: int, payload: bytes, *, mask_key: bytes | None = None, fin: bool = True
) -> bytes:
    """One frame, with the shortest length encoding (required by section 5.2).

    Pass ``mask_key`` (4 bytes) when sending as a client; a server sends ``None``.
    """
    if opcode not in _KNOWN_OPCODES:
        raise ValueError(f"unknown opcode {opcode:#x}")
    n = len(payload)
    if opcode >= OP_CLOSE and (n > _MAX_7BIT or not fin):
        raise ValueError("control frames carry at most 125 bytes and are never fragmented")
    head = bytearray([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if mask_key is not None else 0
    if n <= _MAX_7BIT:
        head.append(mask_bit | n)
    elif n <= _MAX_16BIT:
        head.append(mask_bit | 126)
        head += struct.pack(">H", n)
    else:
        head.append(mask_bit | 127)
        head += struct.pack(">Q", n)
    if mask_key is None:
        return bytes(head) + payload
    return bytes(head) + mask_key + apply_mask(payload, mask_key)


@dataclass(frozen=True)
class Frame:
    """A received frame, payload already unmasked; ``wire_bytes`` counts header and mask too."""

    opcode: int
    payload: bytes
    fin: bool
    masked: bool
    wire_bytes: int


def read_frame(read_exact: Callable[[int], bytes], *, expect_masked: bool) -> Frame:
    """Read one frame with ``read_exact(n)`` (which returns exactly n bytes or raises).

    ``expect_masked`` is True on a server (client frames must be masked) and False on a
    client (server frames must not be); the wrong kind is a ``ProtocolError`` (section 5.1).
    """
    b0, b1 = read_exact(2)
    if b0 & 0x70:
        raise ProtocolError("reserved bits set without a negotiated extension")
    opcode = b0 & 0x0F
    if opcode not in _KNOWN_OPCODES:
        raise ProtocolError(f"unknown opcode {opcode:#x}")
    fin = bool(b0 & 0x80)
    masked = bool(b1 & 0x80)
    if masked != expect_masked:
        side = "client frames must be masked" if expect_masked else "server frames must not be"
        raise ProtocolError(side)
    length = b1 & 0x7F
    wire = 2
    if length == 126:
        (length,) = struct.unpack(">H", read_exact(2))
        wire += 2
    elif length == 127:
        (length,) = struct.unpack(">Q", read_exact(8))
        wire += 8
        if length >> 63:
            raise ProtocolError("64-bit length with the most significant bit set")
    if opcode >= OP_CLOSE and (length > _MAX_7BIT or not fin):
        raise ProtocolError("control frame too long or fragmented")
    if length > MAX_PAYLOAD_BYTES:
        raise ProtocolError(f"frame of {length} bytes exceeds this reader's limit")
    mask_key = read_exact(4) if masked else None
    wire += 4 if masked else 0
    payload = read_exact(length) if length else b""
    if mask_key is not None:
        payload = apply_mask(payload, mask_key)
    return Frame(opcode, payload, fin, masked, wire + length)


def close_payload(code: int, reason: str = "") -> bytes:
    """The body of a close frame: a 2-byte status code, then an optional UTF-8 reason."""
    return struct.pack(">H", code) + reason.encode("utf-8")


def parse_close(payload: bytes) -> int | None:
    """The status code of a close frame, or None when it carries none."""
    if len(payload) < 2:
        return None
    (code,) = struct.unpack(">H", payload[:2])
    return code
