"""The sim kit: what makes a module a sim, not what it models.

The contract (inputs declared once, validated alike), the chart helpers every sim draws
with, the timeline chart, the runs a sim keeps between a reader's changes (memo), and the
runner the browser's worker calls. Imports nothing of the physics or the serving engine.
"""
