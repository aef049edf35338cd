"""The safe build: validate, stage, build with the chosen builder, finish, and swap into
site/ only when every step succeeded; and the publication address, checked first.

Stage: the top, beside serve. May import every package but serve.
"""
