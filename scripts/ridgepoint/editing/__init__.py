"""What editors use besides the build: the value sets their editor completes from
(`make check` writes them) and `make new`'s scaffolds (templates/).

Stage: beside pages, prose and browser. May import base, content and sims; no other stage
imports it but the entry points and the dev server.
"""
