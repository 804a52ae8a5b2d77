"""The command every lab deliverable answers to: `python -m <lab>.deliverable [OUT_DIR]`."""

from pathlib import Path

import pytest

from snippets.experiment import cli, out_dir

DEFAULT = Path("experiments/25-compile")


def test_the_folder_comes_from_the_command_line_or_the_labs_default(tmp_path):
    assert out_dir(DEFAULT, [str(tmp_path / "mine")]) == tmp_path / "mine"
    assert out_dir(DEFAULT, []) == DEFAULT


def test_an_option_is_refused_rather_than_taken_for_a_folder():
    with pytest.raises(SystemExit):
        out_dir(DEFAULT, ["-f"])


def test_the_command_writes_the_folder_it_was_given_and_says_where(tmp_path, monkeypatch, capsys):
    written = []
    monkeypatch.setattr("sys.argv", ["deliverable", str(tmp_path / "out")])
    cli(lambda out: written.append(out) or out, DEFAULT)
    assert written == [tmp_path / "out"] and capsys.readouterr().out == f"wrote {tmp_path / 'out'}\n"
