"""What the build computes from the catalogue's records: figures in base units, the sims'
generated module (sims/catalogue_data.py), and the calibration table.

Stage: between the content model and the pages that show it. May import base, content and
sims.
"""
