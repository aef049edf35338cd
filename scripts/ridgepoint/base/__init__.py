"""What every stage uses: where things are, content errors, site URLs, escaping, the
site's start-tag rules, file hashes, and the small writers and cache helpers.

Stage: the foundation. Imports no other package of the pipeline.
"""
