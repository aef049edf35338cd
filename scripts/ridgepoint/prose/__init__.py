"""Content pages' Markdown, as staging rewrites and checks it: figures and checked claims
filled in, glossary terms linked, links and the security policy checked at source lines.

Stage: beside pages, browser and editing. May import base, content and sims.
"""
