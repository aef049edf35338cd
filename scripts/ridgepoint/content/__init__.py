"""The content model: every YAML file and Markdown front matter, loaded once, validated
against the JSON Schemas in ../schemas/ (errors as file:line: field), into a frozen `Site`.

Stage: the first. May import base only.
"""
