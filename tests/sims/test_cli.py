"""`python -m sims`: list the sims, run one with inputs, exit 2 on a bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import sims
from sims.__main__ import main


def test_list_names_every_sim_with_its_title(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sims.sim_names()
    assert any("A batch is only as fast as its slowest member" in line for line in lines)


def test_a_run_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batching", "--batch_size", "8"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert json.loads(printed) == sims.load("batching").simulate(batch_size=8)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["batching", "--batch_size", "0"], "batch_size: expected an integer from 1 to 32 slots"),
        (["batching", "--batch_size", "eight"], "batch_size: expected an integer"),
        (["nosuchsim"], "no sim named 'nosuchsim'"),
        (["contract"], "no sim named 'contract'"),
    ],
)
def test_a_bad_input_exits_2_with_the_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_an_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["batching", "--batchsize", "8"])
    assert caught.value.code == 2
    assert "--batchsize" in capsys.readouterr().err


def test_no_arguments_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_the_module_entry_point_works_as_a_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sims", "batching", "--batch_size", "0"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2
    assert "batch_size: expected an integer from 1 to 32 slots, got 0" in done.stderr
