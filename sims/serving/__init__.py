"""The serving engine and what it serves: replicas that batch requests step by step under a
token budget and a KV-memory limit, the workloads and arrivals they replay, the KV cache's
room and allocators, a prefix cache, and step times tabulated from the physics.

Shared by the load sims (goodput, kv_memory, disaggregation) and the cache sims
(prefix_cache, routing). Imports the physics and the kit, never an explainer's module.
"""
