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
no block is kept whose parent is gone.

Two details that match vLLM: a prompt that is cached in full still recomputes its last
token (its logits are needed to sample), so a hit stops one token short of the prompt; and
a finished request's last sampled token never went through the model, so it has no KV.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of `tokens` tokens whose content `key` names: equal keys, equal tokens."""

    key: Hashable
    tokens: int


@dataclass(slots=True)
class _Node:
    """One segment at one place in the trie, covering positions [start, end).

    The blocks that end inside it are numbered first+1 .. first+full (block j ends at
    position j x block_size); they belong to this node because their last token does.
    """

    ident: int
    end: int
    first: int
    full: int
    children: dict[Hashable, _Node] = field(default_factory=dict)
    cached: int = 0  # cached blocks among those ending inside this node, from its first
    # The same blocks as [count, last_used] runs, last_used never increasing toward the
    # tail. Kept only when the cache can evict; otherwise recency does not matter.
    runs: list[list[int]] = field(default_factory=list)


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
        self._root = _Node(0, 0, 0, 0)
        self._nodes: list[_Node] = [self._root]
        self._clock = 0
        self._tails: list[tuple[int, int, int]] = []  # (last_used, -tail end, node ident)

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
        node, reused = self._root, 0
        for segment in segments:
            child = node.children.get(segment.key)
            if child is None:
                break
            reused = (child.first + child.cached) * self.block_size
            if child.cached < child.full:
                break
            node = child
        last_full = (total - 1) // self.block_size * self.block_size if total else 0
        return min(reused, last_full)

    def store(self, segments: Sequence[Segment], tokens: int) -> None:
        """Record that a request has just used KV for the first `tokens` tokens of
        `segments`: every full block in that range becomes most recently used, the missing
        ones are added, and the least recently used blocks go if capacity is exceeded."""
        self._clock += 1
        size = self.block_size
        node = self._root
        for segment in segments:
            start = node.end
            if start >= tokens:
                break
            child = node.children.get(segment.key)
            end = start + segment.tokens
            if child is None:
                first = start // size
                child = _Node(len(self._nodes), end, first, end // size - first)
                node.children[segment.key] = child
                self._nodes.append(child)
            elif child.end != end:
                raise ValueError(f"segment {segment.key!r} changed length")
            count = child.full if tokens >= end else max(0, tokens // size - child.first)
            if count:
                self._touch(child, count)
            node = child
        if self.capacity_blocks is not None:
            self._evict(self.capacity_blocks)

    def _touch(self, node: _Node, count: int) -> None:
        """Mark the node's first `count` (> 0) blocks as used now, adding any not cached."""
        cached = node.cached
        if count > cached:
            self.blocks += count - cached
            node.cached = count
        if self.capacity_blocks is None:
            return
        if count >= cached:  # every cached block of the node is used again: one run
            node.runs = [[count, self._clock]]
            if cached == 0:
                heapq.heappush(self._tails, self._tail_key(node))
            return
        rest, skip = [], count
        for run in node.runs:
            if skip >= run[0]:
                skip -= run[0]
                continue
            rest.append([run[0] - skip, run[1]])
            skip = 0
        node.runs = [[count, self._clock], *rest]

    def _tail_key(self, node: _Node) -> tuple[int, int, int]:
        """Eviction order of the node's last cached block: older first, then longer prefix."""
        return node.runs[-1][1], -(node.first + node.cached) * self.block_size, node.ident

    def _evict(self, capacity: int) -> None:
        """Drop least recently used tail blocks until the cache fits its capacity.

        Heap entries are lazy: a node's true key only grows (touching makes it newer,
        evicting shortens its tail), so an entry is a lower bound. A popped entry that is
        out of date is pushed back with the node's current key instead of acted on.
        """
        tails, nodes = self._tails, self._nodes
        while self.blocks > capacity:
            entry = heapq.heappop(tails)
            node = nodes[entry[2]]
            if not node.runs:
                continue  # emptied since; a new entry is pushed if it fills again
            key = self._tail_key(node)
            if key != entry:
                heapq.heappush(tails, key)
                continue
            tail = node.runs[-1]
            drop = min(tail[0], self.blocks - capacity)
            tail[0] -= drop
            if tail[0] == 0:
                node.runs.pop()
            node.cached -= drop
            self.blocks -= drop
            self.evicted_blocks += drop
            if node.runs:
                heapq.heappush(tails, self._tail_key(node))
