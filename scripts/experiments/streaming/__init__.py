"""Streaming tokens to a reader: one server, three ways of delivering, measured on loopback.

Article 4 ("Streaming Tokens to the User") argues that streaming does not make generation
faster, it moves the wait the reader feels from the whole answer to the first token. This
package is the evidence, written on the standard library only so that every byte on the
wire is ours to count:

- ``tokens``: a stand-in decoder that emits deterministic text at a set rate;
- ``server``: one threaded HTTP server delivering those tokens as a whole response, as
  server-sent events, or over a WebSocket (``websocket`` holds the hand-written RFC 6455
  parts), and recording what it generated and when it noticed the reader leave;
- ``proxy``: a reverse proxy that holds each response until it is complete, the way a proxy
  with response buffering on does, to show it takes streaming away;
- ``client`` and ``wire``: socket clients that time every token and count every byte;
- ``reading``: a model of a reader who reads at a given speed, fed with measured arrivals;
- ``measure``: the experiment, which writes ``content/data/experiments/streaming.json``.
"""
