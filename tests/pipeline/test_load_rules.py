"""Every validation rule has a failing fixture: an audit of tests/pipeline/fixtures/bad/.

`test_load.py` proves each fixture gives exactly its `expected.txt`. This file proves the
fixtures leave no rule untried. Schema rules are found by walking the schemas themselves
(every constraint keyword, where it is written), so a constraint added to a schema without
a fixture fails here; the loader's own checks (parsing, file names, what spans files) are
listed below by the message they print, one entry per check in checks.py, load.py,
yamldoc.py and yamlload.py; so are the rules staging applies to each page (the Content
Security Policy's, one per kind in sourcepolicy.py, found from the module itself; figures;
sim blocks), which `make check` runs too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import ValidationError

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.content import validate
from ridgepoint.content.load import load_site
from ridgepoint.content.schemafiles import schemas
from ridgepoint.prose import sourcepolicy
from tests.pipeline.test_load import BAD, CASES, FIXTURE_SIMS, check_fixture, write_tree

# The keywords that can fail. `additionalProperties` fails only where it is false (a schema
# there is checked through its own keywords); `propertyNames` fails as a whole.
KEYWORDS = ("type", "required", "enum", "minLength", "pattern", "format", "minItems",
            "minProperties", "uniqueItems", "propertyNames", "additionalProperties")

# The loader's own checks, by the message each prints (matched against expected.txt lines).
LOADER_RULES = {
    "front matter is not closed": r": front matter: is not closed ",
    "front matter is missing": r": front matter: is missing ",
    "file name is not a slug": r": slug: '[^']*' is malformed[ ;]",
    "modeline missing": r":1: modeline: is missing ",
    "modeline names another schema": r": modeline: names '",
    "modeline turns the editor's checks off": r": modeline: is '\$schema=none'",
    "modeline after the first field": r": modeline: comes after the first field",
    "modeline without a schema": r": modeline: names no schema ",
    "tab in the indentation": r": yaml: a tab at column \d+: YAML indents with spaces only",
    "two files, one slug": r": slug: '[^']*' is already used by ",
    "vocabulary is missing": r"_vocabulary\.yaml:1: file: is missing ",
    "not UTF-8": r": encoding: byte 0x[0-9a-f]{2} is not UTF-8 ",
    "YAML syntax": r": yaml: syntax error",
    "YAML tag that is not plain data": r": yaml: cannot load: ",
    "character YAML refuses": r": yaml: character U\+[0-9A-F]{4} is not allowed",
    "nested too deep": r": yaml: nests deeper than \d+ levels ",
    "too many values (alias bomb)": r": yaml: holds more than \d+ values ",
    "alias inside its own anchor": r": yaml: alias \*\S+ is inside the value it names ",
    "duplicate key": r": appears twice in one mapping",
    "tag not in vocabulary": r": tags\[\d+\]: '[^']*' is not in the vocabulary",
    "related term names itself": r": related\[\d+\]: names the term itself ",
    "related term unknown": r": related\[\d+\]: '[^']*' is not a term",
    "term name or abbreviation reused": r": (term|abbreviation): '.*' is already used by ",
    "hub for a tag not in vocabulary": r": tag: hub file for '[^']*', which is not in the vocab",
    "hub reading unknown": r": path\[\d+\]\.readings\[\d+\]: '[^']*' is not a reading",
    "hub reading twice": r": path\[\d+\]\.readings\[\d+\]: '[^']*' is already on this path",
    "explainer sim unknown": r": sim: '[^']*' is not a sim module[^(]* \(expected",
    "article updated before published": r": updated: \S+ is before published ",
    "catalogue file name is not a key": r"catalogue/\S+:1: slug: '[^']*' is malformed[^(]* "
                                        r"\(expected a file name that is a catalogue key",
    "figure names an unknown source": r"\.source: '[^']*' is not one of this file's sources",
    "GPU names an unknown kernel profile":
        r": kernels: '[^']*' is not a kernel profile of the catalogue",
    "kernel profile with like or assumption alone":
        r": (like|assumption): missing \(expected like and assumption together",
    "kernel profile with constants and like": r": \w+: given with like \(expected its own",
    "kernel profile like one without constants":
        r": like: '[^']*' is not a profile with its own constants",
    "kernel profile missing a section":
        r": \w+: missing \(expected every section, or like and assumption",
    "experts counted twice": r": config\.\w+: counts the experts again, after ",
    "expert fields without experts": r": config\.\w+: is given but the model has no experts",
    "dense model without its MLP width": r": config\.intermediate_size: missing: a dense model",
    "experts without routing": r": config\.num_experts_per_tok: missing: ",
    "more experts per token than experts":
        r": config\.num_experts_per_tok: \d+ is more than the \d+",
    "experts without their width": r": config\.moe_intermediate_size: missing: ",
    "dense layers leave no expert layer":
        r": config\.first_k_dense_replace: \d+ dense layers leave",
    "dense layers without their width": r": config\.intermediate_size: missing: the dense layers",
    "dense layer index out of range": r": config\.mlp_only_layers\[\d+\]: layer \d+ is not among",
    "latent attention half described":
        r": config\.\w+: missing: latent attention is half described",
    "KV heads do not divide the heads": r": config\.num_key_value_heads: \d+ does not divide the",
    "layer_types of another length": r": config\.layer_types: lists \d+ layers, not the model's",
    "sliding layers without a window":
        r": config\.sliding_window: missing: layer_types has sliding",
    "calibration key reused": r": points\[\d+\]\.key: '[^']*' is already used by",
    "calibration names what is not known":
        r": points\[\d+\]\.(gpu|case\.model): '[^']*' is not known",
    "calibration figure missing or doubled": r": points\[\d+\]\.measured_ms: (missing|given with)",
    "calibration band missing or doubled": r": points\[\d+\]\.band: (missing|given with)",
    "calibration sets without the split": r": split: missing: the points with a set need it ",
    "calibration case input missing": r": points\[\d+\]\.case\.\w+: missing for a \w+ point",
    "throughput figure missing or doubled":
        r": points\[\d+\]\.measured_tokens_per_s_per_gpu: (missing|given with)",
    "a time or a rate on a throughput point":
        r"\.measured_tokens_per_s_per_gpu: given with measured_(ms|tflops)",
    "an output rate on a kernel or step point":
        r"\.measured_tokens_per_s_per_gpu: not a figure of a point of kind",
    "a rate on a kernel other than attention":
        r"\.measured_tflops: not a figure of a point of kind",
    "implementation of another kind of point":
        r"\.case\.implementation: '[^']*' is not an implementation of a point of kind",
    # Each page, as staging (and `make check`) checks it.
    **{f"page markup refused: {kind}": rf": html: .*: {re.escape(why)} \("
       for kind, why in sourcepolicy.WHY.items()},
    "page markup refused in an attribute list": r": html: \{: \S+=\.\.\. \}: ",
    "page markup refused in a Markdown link": r": html: \[\.\.\.\]\(javascript:",
    "page markup refused in a link definition": r": html: \[\.\.\.\]: javascript:",
    "figure from a result file that does not exist": r": figure: \{\{ data:.*: no result file ",
    "figure that is not module.metric": r": figure: \{\{ sim:.*' is not <module>\.<metric> ",
    "sim block with an unknown key": r": sim\.\S+: unknown key ",
    "sim block that is not YAML": r": sim: not valid YAML: ",
    "sim block not at the start of a line": r": sim: a sim block must start at the beginning ",
    "sim block never closed": r": sim: the block is never closed",
    "page in the place of a generated one": r": file: would replace a page the pipeline gen",
    "link to no page or file": r": link: \S+: no such page or file in the site ",
    "link to a folder": r": link: \S+: links a folder ",
    "link out of the site": r": link: \S+: points outside the site ",
}


def _walk(schema: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """(JSON pointer, subschema) for every subschema in a schema document."""
    if isinstance(schema, dict):
        yield pointer, schema
        for key, value in schema.items():
            yield from _walk(value, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _walk(value, f"{pointer}/{index}")


def schema_rules() -> set[tuple[str, str, str]]:
    """(schema file, pointer of the subschema, keyword) for every constraint written down."""
    rules = set()
    for name, document in schemas().items():
        for pointer, subschema in _walk(document):
            if pointer.rsplit("/", 1)[-1] in ("properties", "$defs"):
                continue  # a mapping of names to schemas, not a schema
            for keyword in KEYWORDS:
                if keyword in subschema and subschema.get(keyword) is not True:
                    if keyword == "additionalProperties" and subschema[keyword] is not False:
                        continue
                    rules.add((name, pointer, keyword))
    return rules


def _where(subschema: dict[str, Any]) -> tuple[str, str]:
    """The schema file and pointer of a subschema object (schemas() hands out the same ones)."""
    for name, document in schemas().items():
        for pointer, candidate in _walk(document):
            if candidate is subschema:
                return name, pointer
    raise LookupError("a subschema that is in no schema file")


def _rule(error: ValidationError, name: str) -> tuple[str, str, str]:
    path = list(error.absolute_schema_path)
    if "propertyNames" in path:  # the failing keyword is inside propertyNames: the rule is it
        pointer = "".join(f"/{step}" for step in path[: path.index("propertyNames")])
        return name, pointer, "propertyNames"
    return (*_where(error.schema), str(error.validator))


@pytest.fixture(scope="module")
def fired() -> tuple[set[tuple[str, str, str]], list[str]]:
    """The schema rules behind the errors the fixtures report, and every reported line."""
    described: list[tuple[tuple[str, str, str], ContentError]] = []
    original = validate._describe

    def recording(error: ValidationError, document: Any, name: str, *rest: Any
                  ) -> list[ContentError]:
        problems = original(error, document, name, *rest)
        described.extend((_rule(error, name), problem) for problem in problems)
        return problems

    lines: list[str] = []
    rules: set[tuple[str, str, str]] = set()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validate, "_describe", recording)
        for case in CASES:
            described.clear()
            errors = check_fixture(case)
            reported = set(errors)
            rules |= {rule for rule, problem in described if problem in reported}
            lines += [str(error) for error in errors]
    return rules, lines


def test_every_schema_rule_has_a_fixture(fired: tuple[set, list[str]]) -> None:
    missing = sorted(schema_rules() - fired[0])
    assert not missing, "schema rules no fixture in fixtures/bad/ breaks:\n" + "\n".join(
        f"  {name}#{pointer} {keyword}" for name, pointer, keyword in missing
    )


def test_the_rule_walk_finds_what_the_schemas_say() -> None:
    """A guard on the audit itself: a sample of rules it must see."""
    rules = schema_rules()
    assert ("common.schema.json", "/$defs/date", "format") in rules
    assert ("vocabulary.schema.json", "/properties/tags", "propertyNames") in rules
    assert ("hub.schema.json", "/$defs/section/properties/readings", "minItems") in rules
    assert ("term.schema.json", "", "additionalProperties") in rules


@pytest.mark.parametrize("rule", sorted(LOADER_RULES))
def test_every_loader_check_has_a_fixture(rule: str, fired: tuple[set, list[str]]) -> None:
    pattern = re.compile(LOADER_RULES[rule])
    assert any(pattern.search(line) for line in fired[1]), f"no fixture in {BAD} shows: {rule}"


def test_fixtures_are_self_contained() -> None:
    """Each case is a repository-shaped tree with its expected output beside it."""
    for case in CASES:
        root = BAD / case
        assert (root / "expected.txt").read_text().strip(), case
        assert {path.name for path in root.iterdir()} <= {
            "expected.txt", "glossary", "feed", "content"
        }, case



def test_an_unreadable_file_is_a_content_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one loader check no fixture can hold: a file the loader may not read."""
    write_tree(tmp_path, {"glossary/t.yaml": "term: T\ndefinition: D.\ntags: [latency]\n"})
    real = Path.read_bytes

    def refuse(path: Path) -> bytes:
        if path.name == "t.yaml":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(ContentErrors) as caught:
        load_site(tmp_path, FIXTURE_SIMS)
    assert [str(error) for error in caught.value.errors] == [
        "glossary/t.yaml:1: file: cannot be read: Permission denied (expected a readable file)"
    ]
