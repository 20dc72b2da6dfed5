"""The bundled model's server settings: one thread when the cores are already busy (see bench_local_model.py)."""

from eqbench_nb.runner.local_model import DEFAULT_SETTINGS, auto_threads


def test_threads_follow_the_load():
    assert auto_threads(cores=2, load=0.3) == 2
    assert auto_threads(cores=2, load=2.0) == 1  # other processes fill both cores
    assert auto_threads(cores=16, load=3.0) == 2  # the model gains little past two threads
    assert auto_threads(cores=1, load=0.0) == 1
    assert DEFAULT_SETTINGS.n_threads is None and DEFAULT_SETTINGS.poll == 0
