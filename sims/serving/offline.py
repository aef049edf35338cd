"""Offline throughput: a backlog of identical requests served by one replica as fast as it
can, what engines' throughput benchmarks measure (trtllm-bench, vLLM's offline benchmark).

Every request is waiting at the start; the replica (sims.serving.replica) admits as many as
its batch limit, its token budget and its KV room allow, chunks their prompts into the
decode steps, and takes new ones as others finish. The figure is output tokens over the run,
per GPU. Under data-parallel attention ("ep"), each GPU is an attention rank: the ranks' KV
rooms, batch limits and token budgets add up, each rank holding its own sequences.
"""

from __future__ import annotations

from sims.physics import Gpu, Model, Precision, check_group
from sims.serving.kv_space import kv_space
from sims.serving.replica import Policy, serve
from sims.serving.step_table import step_table
from sims.serving.workload import Request

# Requests per run where the benchmark's own count is not given: enough that the batch runs
# full for most of the run, whatever its size (the busiest setups hold a few hundred at
# once), few enough to run in well under a second.
BACKLOG_BATCHES = 4
MIN_REQUESTS = 256


def offline_tokens_per_s_per_gpu(gpu: Gpu, model: Model, gpus: int, precision: Precision,
                                 prompt_tokens: int, output_tokens: int, token_budget: int,
                                 max_batch: int, layout: str = "tp", requests: int = 0,
                                 exchange: str = "all_to_all") -> float:
    """Output tokens per second per GPU of a replica of `gpus` GPUs working through a backlog
    of requests of these lengths: `requests` of them when given, as a benchmark's run of
    that many (trtllm-bench's dataset), whose batch fills at the start and drains at the end;
    a batch that the backlog never fills (a few thousand requests over eight attention ranks
    that could each hold more) runs below the replica's steady rate for the whole run.
    `exchange` is how its engine moves tokens to experts spread over the GPUs
    (sims.physics.pricing.EXCHANGES)."""
    check_group(gpu, model, gpus, layout)
    space = kv_space(gpu, model, gpus, precision, layout)
    sequence = prompt_tokens + output_tokens + space.window_slots(prompt_tokens + output_tokens)
    if space.token_slots() < sequence:
        raise ValueError(f"one request of {prompt_tokens + output_tokens} tokens does not fit "
                         f"in the KV room of {'a' if layout == 'ep' else gpus} {gpu.name}")
    # Under data-parallel attention each GPU is an attention rank with its own scheduler:
    # whole sequences in its own room, its own batch limit and token budget (TensorRT-LLM's
    # max_batch_size and max_num_tokens apply per rank), pooled as deploy pools them.
    ranks = gpus if layout == "ep" else 1
    pooled = Policy.of_replica(space, ranks, token_budget, max_batch, chunked=True)
    batch = min(pooled.max_batch, ranks * (space.token_slots() // sequence))
    count = requests or max(MIN_REQUESTS, BACKLOG_BATCHES * batch)
    requests = [Request(0.0, prompt_tokens, output_tokens)] * count
    policy = pooled._replace(max_batch=batch)
    table = step_table(gpu, model, gpus, precision, layout, exchange=exchange)
    served = serve(requests, policy, table)
    return count * output_tokens / max(served.finished) / gpus
