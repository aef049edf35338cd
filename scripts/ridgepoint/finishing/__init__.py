"""The finishing pass over the HTML a builder wrote: the Content Security Policy, what HTML
does not allow, the theme bundle's compile hint, and the service worker's release.

Stage: after building, whichever builder built. May import base and the stages below
staging (it reads the browser runtime's file names); not staging or the adapters.
"""
