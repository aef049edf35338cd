"""What every stage uses: where things are, content errors, site URLs, escaping, the
site's start-tag rules, file hashes, the small writers and cache helpers, and the editor
modeline of content files (checked by the loader, written by the scaffolds).

Stage: the foundation. Imports no other package of the pipeline.
"""
