"""A mistyped option is one line, exit 2, pointing to the help of the command it was given to (where its options
are), not the top-level help."""

import pytest

from eqbench_nb.cli import main


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["run", "--limt", "3"], "run"), (["score", "--formt", "json", "x"], "score"),
     (["run", "--benchmark", "eqbench3", "--scenaros", "1"], "run"), (["leaderboard", "--bogus", "x"], "leaderboard")],
)  # fmt: skip
def test_an_unknown_option_points_to_its_commands_help(argv, command, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith("error: unrecognized arguments:") and err.endswith(f"(see eqbench-nb {command} --help)\n")


def test_a_missing_command_still_points_to_the_top_level_help(capsys):
    with pytest.raises(SystemExit) as stopped:
        main([])
    assert stopped.value.code == 2 and capsys.readouterr().err.endswith("(see eqbench-nb --help)\n")
