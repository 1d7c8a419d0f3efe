"""`cmake --install` puts a working package under the prefix (docs/python.md "Install")."""

import os
import subprocess
import sys

import pytest


def test_cmake_install_into_a_prefix(tmp_path):
    build, cmake = os.environ.get("TERRAZO_BUILD_DIR"), os.environ.get("TERRAZO_CMAKE")
    if not build or not cmake:
        pytest.skip("TERRAZO_BUILD_DIR and TERRAZO_CMAKE are set by ctest (tools/python/CMakeLists.txt)")
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


def test_pip_install_of_the_build_tree(tmp_path):
    """build/python is a pip project: installed with no index and no build isolation (no network) into
    a target folder, the package imports from there and runs (docs/python.md "Install")."""
    build = os.environ.get("TERRAZO_BUILD_DIR")
    if not build:
        pytest.skip("TERRAZO_BUILD_DIR is set by ctest (tools/python/CMakeLists.txt)")
    import importlib.util
    for module in ("pip", "setuptools", "wheel"):  # looked up, not imported (setuptools' distutils shim)
        if importlib.util.find_spec(module) is None:
            pytest.skip("%s is not installed for %s (apt install python3-pip python3-setuptools python3-wheel)" % (module, sys.executable))
    project = os.path.join(build, "python")
    target = tmp_path / "site"
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--no-deps",
                           "--target", str(target), project], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    dist_info = [p.name for p in target.iterdir() if p.name.endswith(".dist-info")]
    assert dist_info and dist_info[0].startswith("terrazo-")
    env["PYTHONPATH"] = str(target)
    done = subprocess.run([sys.executable, "-c", "import terrazo, numpy; print(terrazo.__file__, terrazo.__version__);"
                           "print(terrazo.cost_distance_array(numpy.ones((3, 3)), [(0, 0)])[0][2, 2])"],
                          env=env, cwd=str(tmp_path), capture_output=True, text=True, check=True)
    where, version_text = done.stdout.split()[:2]
    assert where.startswith(str(target)) and version_text == dist_info[0][len("terrazo-"):-len(".dist-info")]
    assert float(done.stdout.split()[-1]) == pytest.approx(2 * 2 ** 0.5, abs=1e-6)
