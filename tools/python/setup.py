# tools/python/setup.py, copied into build/python beside the generated pyproject.toml: the wheel holds the
# extension CMake built (terrazo/_native*.so), so it is tagged for this interpreter and platform
# (cp3X-cp3X-linux_x86_64), not as pure Python. All metadata is in pyproject.toml.
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(distclass=BinaryDistribution)
