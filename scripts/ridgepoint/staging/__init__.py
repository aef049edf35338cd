"""The staging tree: content pages, generated pages, feeds and the browser runtime written
where the builder reads them, only where they changed; staged pages cached.

Stage: after every page-making package. May import base, content, sims, catalogue, pages,
prose and browser.
"""
