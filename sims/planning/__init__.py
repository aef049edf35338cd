"""The planner: from a model, a workload and a latency target to the set-ups that meet it.

`python -m sims plan` and the sim `sims/plan.py` share this package. Its modules, one job
each, in the order a plan runs them:

- `workloads`: named workload presets (prompt and answer lengths and their spread);
- `prices`: what a GPU-hour costs (the catalogue's cited prices, or the reader's);
- `space`: the set-ups searched (GPU, GPUs per replica, parallelism, formats, batch limit,
  token budget, aggregated or disaggregated);
- `feasibility`: exact reasons to rule a set-up out (no price, the weights do not fit, the
  KV cache holds less than one request, a request alone already misses the target);
- `estimate`: a steady-state estimate of the highest load one replica serves within the
  target, from a handful of priced steps (optimistic where it prunes);
- `verify`: the cheapest candidates run through `serve` itself, replicas added until
  serve's own latencies meet the target;
- `search`: the plan put together (ranked set-ups, ruled-out ones, the frontier);
- `measured` and `fit`: reading a benchmark's results file, and scaling the model's
  latencies to fit it.
"""
