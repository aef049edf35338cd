"""Two ways to hand out KV memory, played over a backlog of requests: where the memory goes.

A replica has `slots` token slots of KV room (sims.serving.kv_space). Every request of a backlog is
waiting at the start, so the replica is always as full as its allocator lets it be: what
the memory holds then is what the allocator costs. Time runs in decode steps: a request is
admitted (first come, first served) with its prompt in the cache, gains one token a step,
and leaves after its answer's last token.

- Contiguous (before PagedAttention): a request gets one contiguous range, reserved at
  admission for its maximum length, its prompt plus the answer limit `max_output_tokens`,
  placed first-fit in the room. The range's unused part is reservation (tokens still to
  come) and internal fragmentation (room the request will never use, its answer being
  shorter than the limit); the gaps between ranges too small for the next request are
  external fragmentation. Nothing is ever preempted: the room was reserved.
- Paged (vLLM's PagedAttention): the room is cut into blocks of `block_size` tokens,
  allocated as a sequence grows. Its last block is partly empty (internal fragmentation,
  under one block a sequence); there is no external fragmentation, since any free block
  serves. A request is admitted when the blocks for its prompt are free; when a step needs
  a block and none is free, the most recently admitted request is preempted (its blocks
  freed; it waits at the head of the queue and is readmitted with all it held).

A sequence's sliding-window layers (sims.serving.kv_space.KvSpace.window_slots) are held as a fixed
share for its whole life (in whole blocks, when paged).

Shares of memory are averaged over the steps during which requests were waiting (over the
whole run if none ever did): then every slot not holding a token's KV is memory the
allocator kept from a request. A run ends when the backlog is served or after MAX_STEPS.
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from collections.abc import Sequence

from sims.serving.kv_meter import (
    EXTERNAL,
    FREE,
    FUTURE,
    NEVER,
    SLACK,
    USED,
    Meter,
    Outcome,
    sample_stride,
)
from sims.serving.workload import Request

# A run follows the backlog for at most this many decode steps: long enough for the cache's
# mix to settle (the starting backlog lasts about 2,000 steps), and a bound on the time a
# run takes when few long requests fit at once (a backlog of thousands would last hundreds
# of thousands of steps, and every figure here is an average that has settled by then).
MAX_STEPS = 4096


def contiguous(requests: Sequence[Request], slots: int, window_slots: int,
               max_output_tokens: int) -> Outcome:
    """The backlog served with one reserved range per request, placed first-fit."""
    meter = Meter(slots, sample_stride(requests, slots))
    starts: list[int] = [0]  # free ranges, by start
    sizes: list[int] = [slots]

    def need(request: Request) -> int:
        return request.prompt_tokens + max_output_tokens + window_slots

    waiting = deque(i for i, r in enumerate(requests) if need(r) <= slots)
    refused = len(requests) - len(waiting)
    ends: list[tuple[int, int, int]] = []  # heap of (finish step, request, range start)
    admitted = [0] * len(requests)
    step = running = max_running = 0
    held_base = 0  # over running requests: prompt + window - admission step
    reserved = never = 0

    def release(start: int, size: int) -> None:
        index = bisect.bisect_left(starts, start)
        if index < len(starts) and start + size == starts[index]:  # joins the next range
            size += sizes[index]
            del starts[index], sizes[index]
        if index and starts[index - 1] + sizes[index - 1] == start:  # ...and the previous
            sizes[index - 1] += size
        else:
            starts.insert(index, start)
            sizes.insert(index, size)

    while (waiting or ends) and step < MAX_STEPS:
        while waiting:  # first come, first served, while the head finds a range
            request = requests[waiting[0]]
            size = need(request)
            index = 0  # first fit, in one pass over the ranges
            for free in sizes:
                if free >= size:
                    break
                index += 1
            else:
                break  # no range holds it (or none is free): it waits
            number = waiting.popleft()
            start = starts[index]
            if sizes[index] == size:
                del starts[index], sizes[index]
            else:
                starts[index] += size
                sizes[index] -= size
            heapq.heappush(ends, (step + request.output_tokens, number, start))
            admitted[number] = step
            running += 1
            held_base += request.prompt_tokens + window_slots - step
            reserved += size
            never += max_output_tokens - request.output_tokens
        if running > max_running:
            max_running = running
        if not ends:  # cannot happen: an empty room holds any request that was not refused
            raise RuntimeError("a request waits with nothing running")
        span = min(ends[0][0], MAX_STEPS) - step
        if span > 0:
            used = held_base + running * (step + (span - 1) / 2)
            free = slots - reserved
            gaps = bool(waiting) and free >= need(requests[waiting[0]])
            meter.add(step, span, running, {
                USED: used, FUTURE: reserved - never - used, NEVER: never, SLACK: 0.0,
                EXTERNAL: free if gaps else 0.0, FREE: 0.0 if gaps else free,
            }, bool(waiting))
            step += span
        while ends and ends[0][0] == step:
            _, number, start = heapq.heappop(ends)
            request = requests[number]
            running -= 1
            reserved -= need(request)
            never -= max_output_tokens - request.output_tokens
            held_base -= request.prompt_tokens + window_slots - admitted[number]
            release(start, need(request))
    return meter.outcome(max_running, [], refused, step)


def paged(requests: Sequence[Request], slots: int, window_slots: int, block_size: int
          ) -> Outcome:
    """The backlog served from a pool of blocks, preempting the newest request when a step
    needs a block and none is free.

    Step by step, but each step is a few operations whatever the batch: a sequence needs a
    new block in the step its length passes a multiple of the block size, so running
    sequences are counted by (length - step) modulo the block size (`phases`), and a step's
    new blocks are the count of one phase."""
    size = block_size
    blocks = slots // size
    window_blocks = -(-window_slots // size)
    stride = sample_stride(requests, slots)
    meter = Meter(blocks * size, stride)
    count = len(requests)
    length0 = [r.prompt_tokens for r in requests]  # the length it is (re)admitted with
    remaining = [r.output_tokens for r in requests]  # tokens still to generate then
    admitted = [0] * count
    order: list[int] = []  # admission order; entries no longer running skipped lazily
    active = [False] * count
    phases = [0] * size  # running sequences by (length - step) mod block size
    finishing: dict[int, list[int]] = {}

    def blocks_for(tokens: int) -> int:
        return -(-tokens // size) + window_blocks

    waiting = deque(i for i in range(count) if blocks_for(length0[i] + remaining[i]) <= blocks)
    refused = count - len(waiting)
    preempted: list[int] = []
    step = running = max_running = 0
    held = 0  # blocks held
    tokens_base = 0  # over running sequences: length at admission - admission step
    final_blocks = 0  # blocks the running sequences will hold at their last token
    # Over the steps while requests wait, and over all steps: tokens, blocks held, running.
    # (in locals: the loop runs thousands of steps, each adding to all eight)
    queued_tokens = queued_held = queued_running = queued_steps = 0
    all_tokens = all_held = all_running = all_steps = 0

    def leave(number: int) -> None:
        nonlocal running, held, tokens_base, final_blocks
        active[number] = False
        running -= 1
        held -= blocks_for(length0[number] + step - admitted[number])
        tokens_base -= length0[number] - admitted[number]
        final_blocks -= blocks_for(length0[number] + remaining[number])
        phases[(length0[number] - admitted[number]) % size] -= 1

    # The head of the queue and the blocks its prompt needs: asked every step while it waits
    # (most steps, in a backlog), so worked out once for each head.
    head, head_need = -1, 0
    while (waiting or running) and step < MAX_STEPS:
        while waiting:  # first come, first served, while the head's blocks are free
            number = waiting[0]
            if number != head:
                head, head_need = number, blocks_for(length0[number])
            need = head_need
            if held + need > blocks:
                break
            waiting.popleft()
            head = -1  # if it comes back to the head, preempted, it needs more
            active[number] = True
            admitted[number] = step
            running += 1
            held += need
            tokens_base += length0[number] - step
            final_blocks += blocks_for(length0[number] + remaining[number])
            phases[(length0[number] - step) % size] += 1
            order.append(number)
            finishing.setdefault(step + remaining[number], []).append(number)
        if running > max_running:
            max_running = running
        if not waiting and final_blocks <= blocks and queued_steps:
            break  # every running sequence can finish with the blocks there are
        # Sequences whose length passes a multiple of the block size in the next step.
        phase = -step % size
        while held + phases[phase] > blocks:
            while not active[order[-1]]:
                order.pop()
            victim = order.pop()
            length = length0[victim] + step - admitted[victim]
            leave(victim)
            preempted.append(length)
            remaining[victim] -= length - length0[victim]
            length0[victim] = length
            waiting.appendleft(victim)
        step += 1
        held += phases[phase]
        tokens = tokens_base + running * step
        all_tokens += tokens
        all_held += held
        all_running += running
        all_steps += 1
        if waiting:
            queued_tokens += tokens
            queued_held += held
            queued_running += running
            queued_steps += 1
        if step % stride == 0:
            _paged_sample(meter, step, running, tokens_base + running * step, held, blocks,
                          size, window_blocks)
        if step in finishing:  # a lookup rather than pop()'s call: most steps end nobody
            for number in finishing.pop(step):
                if active[number] and admitted[number] + remaining[number] == step:
                    leave(number)
    queued = (queued_tokens, queued_held, queued_running, queued_steps)
    every = (all_tokens, all_held, all_running, all_steps)
    for kept, (tokens, held_steps, running_steps, steps) in ((meter.waiting, queued),
                                                             (meter.all, every)):
        windows = running_steps * window_blocks * size
        kept.steps, kept.running = steps, running_steps
        kept.parts.update({USED: tokens + windows, SLACK: held_steps * size - tokens - windows,
                           FREE: (blocks * steps - held_steps) * size})
    return meter.outcome(max_running, preempted, refused, max(finishing, default=step))


def _paged_sample(meter: Meter, step: int, running: int, tokens: int, held: int,
                  blocks: int, size: int, window_blocks: int) -> None:
    used = tokens + running * window_blocks * size
    meter.samples.append((step, running, {
        USED: used, FUTURE: 0.0, NEVER: 0.0, SLACK: held * size - used, EXTERNAL: 0.0,
        FREE: (blocks - held) * size}))
