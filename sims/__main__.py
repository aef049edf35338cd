"""Command line: the sims, and the physics calculator.

    python -m sims --list
    python -m sims <module> [--<input> <value> ...] [--model-config FILE]
    python -m sims --catalogue
    python -m sims step --gpu G --model M --tp N --batch B --context C --phase decode|prefill
                        [--prompt_tokens P] [--weights PREC] [--activations PREC] [--kv PREC]
                        [--layout tp|ep]
    python -m sims allreduce --gpu G --tp N --bytes X
    python -m sims serve --model M --gpu G --gpus N --parallel tp|ep --weights F --kv F
                         --engine vllm|sglang|trtllm --isl I --osl O
                         (--concurrency C | --rate R) [--requests K] [--length_spread S]
                         [--seed X] [--activations F] [--max_batch B] [--token_budget T]
                         [--warmup W]
    python -m sims plan --model M --isl I --osl O (--rate R | --concurrency C)
                        --ttft_s X --tpot_s Y [--percentile P] [--gpu G,G,...] [--engine E]
                        [--workload chat|reasoning|summarization|long-context-retrieval]
                        [--length_spread S] [--price G=USD,G=USD,...]
                        [--measured FILE [--measured_gpu G] [--measured_gpus N] ...]

Each prints one JSON object (`plan --measured` reads a results file; a sim's text input
takes its value as the page's field shows it). `--model-config FILE`, for every command with
a model, runs it on the model a Hugging Face config.json describes (model "custom", as
"Paste a config.json" on the page). A bad input exits with status 2 and a message that
names the input and its allowed range (the same message the page shows).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from sims import load, sim_names
from sims.kit.contract import Input, InputError, Text, validate
from sims.physics.model_choice import CUSTOM, INPUT

USAGE = __doc__.split("\n\n")[1]


def _list() -> int:
    for name in sim_names():
        print(f"{name:18} {load(name).TITLE}")
    return 0


def _parser(prog: str, description: str, inputs: tuple[Input, ...]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for spec in inputs:
        text = isinstance(spec, Text)
        parser.add_argument(
            f"--{spec.name}",
            metavar="TEXT" if text else "VALUE",
            help=f"{spec.label}: {spec.allowed()} (default "
                 f"{repr(spec.default) if text else spec.default})",
        )
        if spec.name == INPUT:
            _model_file_option(parser)
    return parser


def _model_file_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model-config", dest="model_config_file", metavar="FILE",
                        help="a Hugging Face config.json: run on the model it describes "
                             f"(--model {CUSTOM}, with the file's text as --{INPUT})")


def _given(parsed: argparse.Namespace) -> dict[str, Any]:
    """The options given, with a --model-config file's text as the model_config input
    (InputError naming model_config when the file cannot be read or the model is not
    custom)."""
    given = {k: v for k, v in vars(parsed).items() if v is not None}
    path = given.pop("model_config_file", None)
    if path is None:
        return given
    if given.setdefault("model", CUSTOM) != CUSTOM:
        raise InputError("model", f"--model-config FILE is model {CUSTOM}: leave --model out "
                                  f"or give {CUSTOM}, not {given['model']!r}")
    try:
        with open(path, encoding="utf-8") as file:
            given[INPUT] = file.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise InputError(INPUT, f"cannot be read ({reason})") from None
    return given


def _named(error: ValueError, path: str | None) -> str:
    """The message, with the config file's name when the config is at fault."""
    if path and getattr(error, "input", None) == INPUT:
        return f"{INPUT}: {path}: {str(error).partition(': ')[2]}"
    return str(error)


def _run(inputs: tuple[Input, ...], prog: str, description: str, rest: list[str],
         compute: Callable[[dict[str, Any]], Any]) -> int:
    """Parse `rest` against `inputs`, print `compute(given)` as JSON; 2 on a bad input."""
    parsed = _parser(prog, description, inputs).parse_args(rest)
    path = getattr(parsed, "model_config_file", None)
    try:
        given = _given(parsed)
        validate(inputs, given)
        result = compute(given)
    except ValueError as error:
        print(f"error: {_named(error, path)}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, sort_keys=False)
    print()
    return 0


def _plan(command: Any, rest: list[str]) -> int:
    """`python -m sims plan`: its own options (lists and prices are not sim inputs)."""
    parser = argparse.ArgumentParser(prog="python -m sims plan",
                                     description="The set-ups that meet a latency target")
    for name, text in command.options():
        parser.add_argument(f"--{name}", metavar="VALUE", help=text)
    _model_file_option(parser)
    parsed = parser.parse_args(rest)
    path = parsed.model_config_file
    try:
        result = command.plan_json(_given(parsed))
    except ValueError as error:
        print(f"error: {_named(error, path)}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    print()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(f"usage:\n{USAGE}")
        return 0 if args else 2
    if args[0] == "--list":
        return _list()
    name, rest = args[0], args[1:]
    if name == "serve":
        from sims.kit.contract import normalise
        from sims.serving import deploy  # a deployment under load (sims/serving/deploy.py)

        return _run(deploy.SERVE_INPUTS, "python -m sims serve",
                    "A deployment under load, as a benchmark measures it", rest,
                    lambda given: normalise(deploy.serve_json(given)))
    if name == "plan":
        from sims.planning import command  # the planner (sims/planning/command.py)

        return _plan(command, rest)
    if name in ("--catalogue", "step", "allreduce"):
        from sims import calculator  # the physics calculator (sims/calculator.py)
        from sims.kit.contract import normalise

        if name == "--catalogue":
            json.dump(normalise(calculator.catalogue_json()), sys.stdout)
            print()
            return 0
        inputs, compute = ((calculator.INPUTS, calculator.step_json) if name == "step" else
                           (calculator.ALLREDUCE_INPUTS, calculator.allreduce_json))
        return _run(inputs, f"python -m sims {name}", f"The physics calculator: {name}", rest,
                    lambda given: normalise(compute(given)))
    try:
        module = load(name)
    except LookupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return _run(module.INPUTS, f"python -m sims {name}", module.TITLE, rest,
                lambda given: module.simulate(**given))


if __name__ == "__main__":
    sys.exit(main())
