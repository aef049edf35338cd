"""`make bench`: what readers and editors feel, measured, each figure against its target.

scripts/bench.py runs every group (browser, interaction, bytes, build, sims) and prints one
table, writing the same figures with the machine's description to build/bench.json. The
targets come from issue 7; a figure that misses its target says by how much.
"""
