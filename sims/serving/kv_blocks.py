"""A block-addressed KV prefix cache, shared by the prefix-cache and routing sims.

How engines do it (vLLM's automatic prefix caching): the KV cache is cut into blocks of
`block_size` tokens, and a full block is named by a hash of its own tokens and its parent
block's hash. A block's name therefore stands for every token from the start of the
sequence to the block's end, and a new request reuses its longest run of leading blocks
whose names are already in the cache. Only full blocks are named, so a shared prefix is
reused in whole blocks; the partial block at its end is computed again.

What this module does: the same thing without hashing every block. A sequence is a list
of segments (a system prompt, one user message, one reply), each a run of tokens that is
either shared whole or not at all, named by a key. The segments form a trie, so a trie
node plus a position stands for "every token up to here", which is exactly what a chained
block hash names. Each node counts how many of the blocks that end inside it are cached.
The cost of a lookup is the number of segments, not of blocks, so block size 1 is as
cheap as block size 256.

Eviction follows the rule in vLLM's design (RFC vllm-project/vllm#2614 and its v1 free
queue): least recently used first, and among blocks last used together the one holding
the longest prefix first (a finished request frees its blocks tail first). Parents are
always used at least as recently as their children, so the cache stays prefix-closed:
no block is kept whose parent is gone. Blocks last used together were used by one store,
which walks one path of the trie; so the eviction order is simply the stores, oldest
first, each walked back from its deepest node (see `PrefixCache._evict`).

Two details that match vLLM: a prompt that is cached in full still recomputes its last
token (its logits are needed to sample), so a hit stops one token short of the prompt; and
a finished request's last sampled token never went through the model, so it has no KV.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from typing import NamedTuple


class Segment(NamedTuple):
    """A run of `tokens` tokens whose content `key` names: equal keys, equal tokens.
    (A tuple: sims make one per message, and a frozen dataclass is slow to build.)"""

    key: Hashable
    tokens: int


class _Node:
    """One segment at one place in the trie, covering positions [start, end).

    The blocks that end inside it are numbered first+1 .. first+full (block j ends at
    position j x block_size); they belong to this node because their last token does.
    A plain slotted class: a busy cache makes hundreds per run, and this is the cheapest
    object to build.
    """

    __slots__ = ("end", "first", "full", "children", "cached", "used", "runs")

    def __init__(self, end: int, first: int, full: int) -> None:
        self.end = end
        self.first = first
        self.full = full
        self.children: dict[Hashable, _Node] = {}
        self.cached = 0  # cached blocks among those ending inside this node, from its first
        # Recency, kept only when the cache can evict (otherwise it does not matter). In
        # the usual case every cached block here was last used at once, at `used`, and
        # `runs` is None. When a later use took fewer blocks than were cached, the blocks
        # are [count, last_used] runs instead, last_used never increasing toward the tail.
        self.used = 0
        self.runs: list[list[int]] | None = None


def _after(runs: list[list[int]], count: int) -> list[list[int]]:
    """The [count, last_used] runs that lie beyond a node's first `count` blocks."""
    rest, skip = [], count
    for run in runs:
        if skip >= run[0]:
            skip -= run[0]
            continue
        rest.append([run[0] - skip, run[1]])
        skip = 0
    return rest


class PrefixCache:
    """One engine's KV prefix cache. `capacity_blocks=None` means it never evicts."""

    def __init__(self, block_size: int, capacity_blocks: int | None = None) -> None:
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if capacity_blocks is not None and capacity_blocks < 0:
            raise ValueError(f"capacity_blocks cannot be negative, got {capacity_blocks}")
        self.block_size = block_size
        self.capacity_blocks = capacity_blocks
        self.blocks = 0  # cached blocks in all
        self.evicted_blocks = 0
        self._root = _Node(0, 0, 0)
        self._clock = 0
        # Kept only when the cache can evict: for each store still holding blocks it was
        # the last to use, its clock and the nodes it touched, root first.
        self._stores: deque[tuple[int, list[_Node]]] = deque()

    @property
    def tokens(self) -> int:
        """Tokens whose KV the cache holds."""
        return self.blocks * self.block_size

    def match(self, segments: Sequence[Segment], total: int | None = None) -> int:
        """Prompt tokens whose KV this cache can supply: its longest cached run of leading
        full blocks, stopping short of the prompt's last token. Changes nothing.

        `total` is the prompt's length, if the caller already knows it."""
        if total is None:
            total = sum(segment.tokens for segment in segments)
        size = self.block_size
        node, reused = self._root, 0
        for key, _ in segments:
            child = node.children.get(key)
            if child is None:
                break
            cached = child.cached
            reused = (child.first + cached) * size
            if cached < child.full:
                break
            node = child
        last_full = (total - 1) // size * size if total else 0
        return reused if reused < last_full else last_full

    def store(self, segments: Sequence[Segment], tokens: int) -> None:
        """Record that a request has just used KV for the first `tokens` tokens of
        `segments`: every full block in that range becomes most recently used, the missing
        ones are added, and the least recently used blocks go if capacity is exceeded.

        Every request's turn runs this over its whole path, so the common case (a node's
        blocks all used again) is handled inline, without a call per node."""
        self._clock = clock = self._clock + 1
        size = self.block_size
        capacity = self.capacity_blocks
        evicts = capacity is not None
        touched: list[_Node] = []
        node, start = self._root, 0  # start: where the next segment begins (node.end)
        for key, length in segments:
            if start >= tokens:
                break
            child = node.children.get(key)
            end = start + length
            if child is None:
                first = start // size
                child = node.children[key] = _Node(end, first, end // size - first)
            elif child.end != end:
                raise ValueError(f"segment {key!r} changed length")
            count = child.full if tokens >= end else max(0, tokens // size - child.first)
            if count:
                cached = child.cached
                if count > cached:
                    self.blocks += count - cached
                    child.cached = count
                if evicts:
                    # Recency: the first `count` blocks are used now, as one run.
                    if count < cached:
                        runs = child.runs or [[cached, child.used]]
                        child.runs = [[count, clock], *_after(runs, count)]
                    else:  # the usual case: all of them, now
                        child.used = clock
                        child.runs = None
                    touched.append(child)
            node, start = child, end
        if evicts:
            if touched:
                self._stores.append((clock, touched))
            if self.blocks > capacity:
                self._evict(capacity)

    def _evict(self, capacity: int) -> None:
        """Drop least recently used tail blocks until the cache fits its capacity.

        The blocks a store was the last to use lie on the one path it walked, and deeper
        on it means a longer prefix; so taking the stores oldest first, each from its
        deepest node back to the root, is the order the rule asks for. A node whose
        oldest blocks were used again by a later store is passed over here: the later
        store's own entry reaches it in turn.
        """
        stores = self._stores
        excess = self.blocks - capacity
        while excess > 0:
            clock, nodes = stores[0]
            while nodes and excess > 0:
                node = nodes[-1]
                runs = node.runs
                if runs is None:
                    oldest, last_used = node.cached, node.used
                elif runs:
                    oldest, last_used = runs[-1]
                else:
                    oldest = last_used = 0
                if not oldest or last_used != clock:
                    nodes.pop()  # emptied, or its oldest blocks are newer than this store
                    continue
                drop = oldest if oldest < excess else excess
                if runs is not None:
                    runs[-1][0] -= drop
                    if drop == oldest:
                        runs.pop()
                if drop == oldest:
                    nodes.pop()
                node.cached -= drop
                excess -= drop
                self.blocks -= drop
                self.evicted_blocks += drop
            if not nodes:
                stores.popleft()
