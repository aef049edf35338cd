"""`make model-from-config`: a model file made from a real config.json of a catalogue model
has the catalogue file's shape, every field with the config line it came from, and the
citation left for the editor, which `make check` names until it is filled.

The configs are real Hugging Face config.json files of the catalogue's models, as NVIDIA's
aiconfigurator vendors them: tests/pipeline/fixtures/configs/SOURCES.md names each file and
commit. Every catalogue model but Llama 3.2 1B (which aiconfigurator does not vendor) has
one, multimodal configs (their text_config) and the attention kinds of 2026's models
(linear, chunked, sparse, compressed) among them.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
import yaml

from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.content.load import load_site
from ridgepoint.content.schemafiles import schemas
from ridgepoint.editing.from_config import key_lines, render, write
from ridgepoint.editing.scaffold import Refused, scaffold
from sims.physics.shapes import Model
from tests.repo import REPO

CONFIGS = REPO / "tests" / "pipeline" / "fixtures" / "configs"
MODELS = REPO / "content" / "catalogue" / "models"
VOCABULARY = REPO / "tests" / "pipeline" / "fixtures" / "bad" / "catalogue-gpu-formats" / "feed"
FIXTURES = sorted(path.stem for path in CONFIGS.glob("*.json"))
# The fixtures of catalogue models; the others are read by tests/sims/test_model_kinds.py.
SLUGS = [slug for slug in FIXTURES if (MODELS / f"{slug}.yaml").is_file()]
# In the catalogue's files but not in these configs, and not a shape: gpt-oss's config.json
# as vendored gives no torch_dtype; the catalogue took it from the model card's checkpoint.
NOT_SHAPES = {"torch_dtype"}


def made(slug: str) -> dict:
    return yaml.safe_load(render((CONFIGS / f"{slug}.json").read_text(), f"{slug}.json"))


def catalogued(slug: str) -> dict:
    return yaml.safe_load((MODELS / f"{slug}.yaml").read_text())


def test_every_fixture_has_its_source_named() -> None:
    sources = (CONFIGS / "SOURCES.md").read_text()
    assert SLUGS and all(f"| {slug}.json |" in sources for slug in FIXTURES)


def test_every_catalogue_model_has_its_config_but_the_one_aiconfigurator_lacks() -> None:
    catalogue = {path.stem for path in MODELS.glob("*.yaml")}
    assert catalogue - set(SLUGS) == {"llama-3.2-1b"}


@pytest.mark.parametrize("slug", SLUGS)
def test_the_made_file_agrees_with_the_catalogue_on_every_shape_field(slug: str) -> None:
    ours, theirs = made(slug)["config"], catalogued(slug)["config"]
    for field, value in theirs.items():
        if field not in NOT_SHAPES:
            assert ours.get(field) == value, f"{slug}: {field}"
    # Fields only the config gives (a MoE model's unused dense width, say) change nothing
    # the physics derives: the same model either way.
    assert _shape(Model.from_config(slug, "made", ours)) == _shape(
        Model.from_config(slug, "made", theirs))


def _shape(model: Model) -> dict:
    return {field.name: getattr(model, field.name) for field in dataclasses.fields(model)
            if field.name not in ("key", "name", "native")}


@pytest.mark.parametrize("slug", SLUGS)
def test_each_field_names_the_config_line_it_came_from(slug: str) -> None:
    text = (CONFIGS / f"{slug}.json").read_text()
    lines = text.split("\n")
    written = render(text, f"{slug}.json").split("\n")
    config = written[written.index("config:") + 1:]
    for line in config:
        if "# source: config, line " not in line or line.startswith("#"):
            continue
        field = line.split(":")[0].strip().removeprefix("# ")
        where = line.split("# source: config, line ")[1].split()
        number = int(where[0])
        if len(where) > 1:  # read under the config's own name: "(dtype)" for torch_dtype
            field = where[1].strip("()")
        assert lines[number - 1].strip().startswith(f'"{field}"'), (slug, field, number)


def test_key_lines_follow_nesting_and_skip_list_items() -> None:
    text = '{\n  "a": 1,\n  "b": {\n    "a": [1, {"c": 2}],\n    "d": "x"\n  },\n  "e": null\n}'
    assert key_lines(text) == {("a",): 2, ("b",): 3, ("b", "a"): 4, ("b", "a", "c"): 4,
                               ("b", "d"): 5, ("e",): 7}


def test_what_the_catalogue_cannot_hold_is_left_out_with_the_reason() -> None:
    text = ('{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,\n'
            ' "vocab_size": 100, "intermediate_size": 128, "sliding_window": 4096,\n'
            ' "use_sliding_window": false, "dtype": "bfloat16",\n'
            ' "quantization_config": {"quant_method": "awq", "bits": 4}}')
    written = render(text, "small.json")
    config = yaml.safe_load(written)["config"]
    assert "sliding_window" not in config and "quantization_config" not in config
    assert config["torch_dtype"] == "bfloat16" and "(dtype)" in written
    assert "sliding_window (line 2): use_sliding_window is false" in written
    assert "quantization_config (line 4): quant_method 'awq' is not one" in written


def test_a_multimodal_config_gives_its_language_models_fields() -> None:
    text = ('{"architectures": ["X"], "vision_config": {"hidden_size": 1280},\n'
            ' "text_config": {"hidden_size": 64, "num_hidden_layers": 2,\n'
            '   "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128}}')
    written = render(text, "mm.json")
    assert yaml.safe_load(written)["config"]["hidden_size"] == 64
    assert "hidden_size: 64  # source: config, line 2" in written and "text_config" in written


def test_make_check_names_the_citation_until_it_is_filled(tmp_path: Path) -> None:
    root = _site(tmp_path)
    path = write(Layout.of(root, REPO), "deepseek-v3-copy", CONFIGS / "deepseek-v3.json")
    assert path == "content/catalogue/models/deepseek-v3-copy.yaml"
    with pytest.raises(ContentErrors) as caught:
        load_site(root)
    named = {(Path(error.path).name, error.field) for error in caught.value.errors}
    assert named == {("deepseek-v3-copy.yaml", "name"),
                     ("deepseek-v3-copy.yaml", "config_json.title"),
                     ("deepseek-v3-copy.yaml", "config_json.url")}
    file = root / path
    text = file.read_text().replace("\nname:  #", "\nname: DeepSeek-V3  #", 1)
    text = text.replace("\n  title:  #", "\n  title: deepseek-ai/DeepSeek-V3, config.json  #", 1)
    text = text.replace("\n  url:  #", "\n  url: https://huggingface.co/deepseek-ai/DeepSeek-V3"
                        "/blob/main/config.json  #", 1)
    file.write_text(text)
    site = load_site(root)
    assert site.models["deepseek-v3-copy"].config.kv_lora_rank == 512


def _site(tmp_path: Path) -> Path:
    """A content tree with the vocabulary alone, for a model file to be loaded in."""
    root = tmp_path / "site"
    shutil.copytree(VOCABULARY, root / "feed")
    return root


@pytest.mark.parametrize(("args", "message"), [
    (("deepseek-v3", "deepseek-v3.json"), "content/catalogue/models/deepseek-v3.yaml already "
     "exists"),
    (("Bad_Slug", "deepseek-v3.json"), "SLUG='Bad_Slug' is not a catalogue key"),
    (("new-model", "no-such.json"), "CONFIG="),
    (("new-model", "SOURCES.md"), "SOURCES.md is not JSON"),
])
def test_it_refuses_in_one_line_and_writes_nothing(args: tuple[str, str], message: str) -> None:
    slug, config = args
    result = subprocess.run(
        [sys.executable, "scripts/new.py", "model", slug, "--from-config", str(CONFIGS / config)],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"make model-from-config: {message}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not (MODELS / "new-model.yaml").exists()


def test_a_refusal_is_an_exception_in_process(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="is not a JSON object"):
        render("[1, 2]", "list.json")


def test_make_new_explains_every_config_field_the_schema_holds(tmp_path: Path) -> None:
    """`make new KIND=model` writes each config field commented out with the schema's own
    description of it, so a field added to the schema is explained there the day it is."""
    root = _site(tmp_path)
    scaffold(Layout.of(root, REPO), "model", "x-model", date(2026, 12, 7), [])
    text = (root / "content" / "catalogue" / "models" / "x-model.yaml").read_text()
    flat = " ".join(line.strip().lstrip("#").strip() for line in text.splitlines())
    config = schemas()["model.schema.json"]["properties"]["config"]["properties"]
    for name, prop in config.items():
        assert f"{name}:" in text, name
        words = " ".join(prop.get("description", "").split()[:6])
        assert words in flat, (name, words)


def test_compressed_tensors_groups_keep_the_formats_and_leave_the_rest_out() -> None:
    """Kimi K2.5's INT4 experts: the group's weights keep their format (bits, type, group
    size); the observer, its arguments and the nulls beside them are not shapes."""
    quantization = made("kimi-k2.5")["config"]["quantization_config"]
    weights = quantization["config_groups"]["group_0"]["weights"]
    assert weights == {"dynamic": False, "group_size": 32, "num_bits": 4, "strategy": "group",
                       "symmetric": True, "type": "int"}
    assert quantization["quant_method"] == "compressed-tensors"
    assert "input_activations" not in quantization["config_groups"]["group_0"]
    assert "lm_head" in quantization["ignore"] and "kv_cache_scheme" not in quantization
