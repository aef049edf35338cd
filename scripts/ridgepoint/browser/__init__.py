"""The browser runtime staged beside the pages: Pyodide and its memory snapshot, the
trimmed standard library, the gzipped wasm, the chart library, the widget's module graph.

Stage: beside pages, prose and editing. May import base, content and sims.
"""
