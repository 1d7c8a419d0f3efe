"""C++ errors become Python exceptions of the documented types with the CLI's one-line messages."""

import numpy as np
import pytest

import terrazo
from conftest import dataset, outputs_left

DEM = dataset("real/pysheds_dem.tif")


def cli_message(cli, *args):
    """The message of the CLI's one error line: 'terrazo CMD: error: MESSAGE[ (usage: ...)]'."""
    done = cli.run(*args, check=False)
    assert done.returncode in (1, 2)
    line = done.stderr.strip().splitlines()[-1]
    message = line.split(": error: ", 1)[1]
    return message.split(" (usage: terrazo")[0], done.returncode


def test_usage_error_is_value_error(cli, tmp_path):
    with pytest.raises(ValueError) as error:
        terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(1, 1)], connectivity=6)
    expected, code = cli_message(cli, "sssp", "--source", "1,1", "--connectivity", "6", DEM, tmp_path / "c.tif")
    assert code == 2 and str(error.value) == expected and "--connectivity" in expected


def test_unknown_keyword_is_the_unknown_flag(cli, tmp_path):
    with pytest.raises(ValueError, match="--no-such-flag"):
        terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(1, 1)], no_such_flag=3)


def test_missing_source_is_value_error(tmp_path):
    with pytest.raises(ValueError, match="no source"):
        terrazo.cost_distance(DEM, tmp_path / "c.tif")


def test_missing_input_is_os_error(cli, tmp_path):
    missing = tmp_path / "nothing.tif"
    with pytest.raises(OSError) as error:
        terrazo.cost_distance(missing, tmp_path / "c.tif", sources=[(1, 1)])
    expected, code = cli_message(cli, "sssp", "--source", "1,1", missing, tmp_path / "c.tif")
    assert code == 1 and str(error.value) == expected and "does not exist" in expected


def test_unwritable_output_is_os_error(tmp_path):
    with pytest.raises(OSError, match="cannot write output"):
        terrazo.mst(DEM, tmp_path / "no" / "such" / "dir" / "e.tif")


def test_budget_too_small_is_memory_error(cli, tmp_path):
    with pytest.raises(MemoryError) as error:
        terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(1, 1)], memory="64K")
    expected, code = cli_message(cli, "sssp", "--source", "1,1", "--memory", "64K", DEM, tmp_path / "c.tif")
    assert code == 1 and str(error.value) == expected and "memory budget too small" in expected
    assert outputs_left(tmp_path) == []


def test_other_failures_are_runtime_errors(tmp_path):
    empty = np.full((8, 8), np.nan)
    with pytest.raises(RuntimeError) as error:
        terrazo.cost_distance_array(empty, [(1, 1)])
    # The CLI's message, naming the array instead of its temporary file.
    assert str(error.value).startswith("INPUT '<friction array>' has no valid cell (nodata everywhere)")


def test_unknown_command():
    with pytest.raises(ValueError, match="no command 'nope'"):
        terrazo.run("nope", "a", "b")
