"""The sims inside pages: the sims' files as one build reads them, executed from exactly
those bytes, run natively (cached), and ```sim blocks turned into widgets with their results
and charts prerendered.

Stage: sims in pages. May import base and content. (The sims themselves are the top-level
`sims` package; this package never imports it through sys.path.)
"""
