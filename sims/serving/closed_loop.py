"""A closed loop of users, as a benchmark's --max-concurrency runs one: each user sends a
request, waits for its last token, and sends the next.

A request reaches the scheduler an intake time after it is sent (HTTP, tokenization, the
server's own queue). The intake is drawn per request, exponential around the engine's mean
(`random.Random` with a seed, so runs repeat under CPython and Pyodide): identical requests
sent together would otherwise finish together forever and come back as one burst, a lockstep
that real servers' jitter breaks within a few rounds.

The replica (sims.serving.replica) takes requests in the order they reach it: `head` is when
the next one does, `take` hands it over (with its intake, so the caller can tell when it was
sent), `send` is a user's next request after a reply ends.
"""

from __future__ import annotations

import heapq
import math
import random


class ClosedLoop:
    """Requests sent and not yet taken in, by when they reach the scheduler."""

    def __init__(self, users: int, count: int, mean_intake_s: float, seed: int) -> None:
        self.count, self.mean_intake_s = count, mean_intake_s
        self._rng = random.Random(seed)
        self._pending: list[tuple[float, float]] = []  # heap of (reaches the scheduler, intake)
        self.sent = 0
        for _ in range(min(users, count)):
            self.send(0.0)

    def send(self, now: float) -> None:
        """A user sends its next request at `now`, if the run has one left."""
        if self.sent < self.count:
            intake = -self.mean_intake_s * math.log(1 - self._rng.random())
            heapq.heappush(self._pending, (now + intake, intake))
            self.sent += 1

    def head(self) -> float:
        """When the next request reaches the scheduler (infinite if none is under way)."""
        return self._pending[0][0] if self._pending else math.inf

    def take(self) -> float:
        """Hand over the next request; its intake time."""
        return heapq.heappop(self._pending)[1]
