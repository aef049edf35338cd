"""Fitting the kernel profiles to the calibration's training set, and the error table.

`python scripts/calibration.py` (make calibration) prints, per category, the errors of the
physics on the training and the held-out points; `--fit` (make fit) fits each profile's
constants to the training points alone and writes content/catalogue/kernels/; `--check`
fails if the committed constants are not what the fit gives. The physics is the sims' own
(sims.physics.alone prices one kernel as a step would), the points and their prices the
pipeline's (ridgepoint.catalogue.calibration).
"""
