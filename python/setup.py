"""Builds the Python package grain: CMake configures the whole grain project (the directory above
this one) with GRAIN_PYTHON=ON and builds the one target grain_python, the module grain._grain,
with every back end the machine has (OpenMP; CUDA when nvcc is found). The build directory is
build/py-pip in the project (GRAIN_PY_BUILD_DIR overrides), so a second install rebuilds only what
changed; CMAKE_ARGS adds configure options (e.g. -DGRAIN_ENABLE_CUDA=OFF)."""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(grain VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(os.environ.get("GRAIN_PY_BUILD_DIR", ROOT / "build" / "py-pip"))
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DGRAIN_PYTHON=ON", "-DGRAIN_ENABLE_TESTS=OFF", f"-DPython_EXECUTABLE={sys.executable}"]
        try:  # pybind11 installed by pip: CMake finds it through the Python package
            import pybind11
            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        if shutil.which("ninja") and not (build / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "grain_python"])
        built = sorted((build / "python" / "grain").glob("_grain*"))
        if not built:
            raise RuntimeError(f"grain: the build left no module in {build / 'python' / 'grain'}")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


setup(
    name="grain",
    version=version(),
    description="grain's tensor kernels from Python: finite-element contractions and sparse CP-ALS",
    license="BSD-3-Clause",
    python_requires=">=3.8",
    install_requires=["numpy"],
    packages=["grain"],
    ext_modules=[Extension("grain._grain", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
