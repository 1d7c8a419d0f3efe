"""progress= callables, cancellation (an exception from progress, Ctrl-C) and the released GIL."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import terrazo
from conftest import dataset, outputs_left

DEM = dataset("real/pysheds_dem.tif")


def test_progress_is_called_per_phase_from_0_to_1(tmp_path):
    calls = []
    terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(180, 180)], backlink=tmp_path / "b.tif", tile=32,
                          progress=lambda phase, fraction: calls.append((phase, fraction)))
    assert calls
    phases = {}
    for phase, fraction in calls:
        assert isinstance(phase, str) and 0.0 <= fraction <= 1.0
        phases.setdefault(phase, []).append(fraction)
    assert any(fractions[-1] == 1.0 for fractions in phases.values())
    assert len(phases) >= 2


def test_progress_on_every_function(tmp_path):
    seen = []
    record = lambda phase, fraction: seen.append(phase)  # noqa: E731
    terrazo.mst(DEM, tmp_path / "e.tif", progress=record)
    terrazo.import_raster(DEM, tmp_path / "d.tzs", progress=record)
    terrazo.clump_array(np.arange(100, dtype=np.int32).reshape(10, 10) % 3, progress=record)
    assert any("mst" in p for p in seen) and any("import" in p for p in seen) and any("clump" in p for p in seen)


@pytest.mark.parametrize("exception", [KeyboardInterrupt, ValueError])
def test_exception_in_progress_cancels_cleanly(tmp_path, exception):
    calls = []

    def interrupt(phase, fraction):
        calls.append(phase)
        if len(calls) == 3:
            raise exception("stop here")

    with pytest.raises(exception, match="stop here"):
        terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(180, 180)], backlink=tmp_path / "b.tif",
                              allocation=tmp_path / "a.tif", tile=32, progress=interrupt)
    assert len(calls) == 3  # no call after the cancelling one
    assert outputs_left(tmp_path) == []  # no output, no partial file
    # The next run works.
    terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(180, 180)])
    assert outputs_left(tmp_path) == ["c.tif"]


def test_sigint_during_a_run_raises_keyboard_interrupt(tmp_path):
    """Ctrl-C: the signal arrives while C++ runs; the next progress event raises KeyboardInterrupt."""
    assert threading.current_thread() is threading.main_thread()
    fired = []

    def ctrl_c(phase, fraction):
        if not fired:
            fired.append(phase)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        terrazo.mst(DEM, tmp_path / "e.tif", tile=32, progress=ctrl_c)
    assert fired and outputs_left(tmp_path) == []


def test_sigint_without_progress_callable(tmp_path):
    """No progress= at all: signals are still checked at each progress event of the C++ run."""
    big = tmp_path / "big.tzs"
    terrazo.generate(big, width=2048, height=2048, seed=3)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            terrazo.mst(big, tmp_path / "e.tif", tile=64, threads=1)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30
    assert outputs_left(tmp_path) == ["big.tzs"]


def test_gil_is_released_while_cpp_runs(tmp_path):
    big = tmp_path / "big.tzs"
    terrazo.generate(big, width=1024, height=1024, seed=4)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        start = time.monotonic()
        terrazo.mst(big, tmp_path / "e.tif", threads=1)
        elapsed = time.monotonic() - start
    finally:
        stop.set()
        counter.join()
    # A thread that needs the GIL ran during the run (at least 2% of its 1 ms ticks; with the GIL
    # held by the run it would tick only before and after it).
    assert elapsed > 0.05 and len(ticks) > max(5, elapsed * 20)


def test_progress_must_be_callable(tmp_path):
    with pytest.raises(TypeError, match="progress"):
        terrazo.cost_distance(DEM, tmp_path / "c.tif", sources=[(1, 1)], progress=5)
    assert outputs_left(tmp_path) == []


def test_runs_from_threads_in_parallel(tmp_path):
    results, errors = {}, []

    def work(i):
        try:
            results[i] = terrazo.cost_distance(DEM, tmp_path / ("c%d.tif" % i), sources=[(10 * i, 10 * i)])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(1, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and sorted(results) == [1, 2, 3]


def test_cancelled_array_run_leaves_no_temporary_files(tmp_path):
    def stop(phase, fraction):
        raise KeyboardInterrupt

    friction = np.random.default_rng(6).uniform(1, 5, size=(200, 300))
    with pytest.raises(KeyboardInterrupt):
        terrazo.cost_distance_array(friction, [(10, 10)], tmpdir=str(tmp_path), progress=stop)
    assert outputs_left(tmp_path) == []
    cost, _ = terrazo.cost_distance_array(friction, [(10, 10)], tmpdir=str(tmp_path))
    assert cost[10, 10] == 0 and outputs_left(tmp_path) == []
