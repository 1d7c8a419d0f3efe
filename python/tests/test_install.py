"""`cmake --install` puts a working package under the prefix (docs/python.md "Install")."""

import os
import subprocess
import sys

import pytest


def test_cmake_install_into_a_prefix(tmp_path):
    build, cmake = os.environ.get("TERRAZO_BUILD_DIR"), os.environ.get("TERRAZO_CMAKE")
    if not build or not cmake:
        pytest.skip("TERRAZO_BUILD_DIR and TERRAZO_CMAKE are set by ctest (python/CMakeLists.txt)")
    subprocess.run([cmake, "--install", build, "--prefix", str(tmp_path), "--component", "python"], check=True,
                   capture_output=True)
    version = "%d.%d" % sys.version_info[:2]
    candidates = [tmp_path / "lib" / ("python" + version) / d for d in ("dist-packages", "site-packages")]
    installed = [c for c in candidates if (c / "terrazo" / "__init__.py").exists()]
    assert len(installed) == 1
    env = dict(os.environ, PYTHONPATH=str(installed[0]))
    done = subprocess.run([sys.executable, "-c", "import terrazo, numpy; print(terrazo.__file__, terrazo.__version__);"
                           "print(terrazo.cost_distance_array(numpy.ones((3, 3)), [(0, 0)])[0][2, 2])"],
                          env=env, cwd=str(tmp_path), capture_output=True, text=True, check=True)
    where, version_text = done.stdout.split()[:2]
    assert where.startswith(str(installed[0]))
    assert float(done.stdout.split()[-1]) == pytest.approx(2 * 2 ** 0.5, abs=1e-6)
