# Builds weft_torch, weft's torch.distributed backend, against the torch of the Python that
# runs this (Debian's /usr/bin/python3 with python3-torch) and a built libweft:
#   WEFT_BUILD_DIR=build-openmpi /usr/bin/python3 python/setup.py build_ext --build-lib OUT
# scripts/build-torch.sh runs it; the tests and examples put OUT on PYTHONPATH.
import os
import shlex
import subprocess

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
build = os.path.abspath(os.environ.get("WEFT_BUILD_DIR", os.path.join(root, "build-openmpi")))
mpi_pc = os.environ.get("WEFT_MPI_PKG", "ompi-c")


def pkg(flag):
    return shlex.split(subprocess.check_output(["pkg-config", flag, mpi_pc], text=True))


cflags = pkg("--cflags")
libs = pkg("--libs")
lib_dir = os.path.join(build, "src")

setup(
    name="weft_torch",
    version="0.1",
    packages=["weft_torch"],
    package_dir={"weft_torch": os.path.join(here, "weft_torch")},
    ext_modules=[
        CppExtension(
            "weft_torch._C",
            [os.path.join(here, "weft_torch", "csrc", f)
             for f in ("process_group_113.cc", "tensor_args.cc", "comms.cc")],
            include_dirs=[os.path.join(root, "include")],
            library_dirs=[lib_dir],
            libraries=["weft"],
            # mpi.h in C++ would pull in the deprecated MPI C++ bindings, which need libmpi_cxx.
            extra_compile_args=["-O2", "-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1"] + cflags,
            extra_link_args=libs + ["-Wl,-rpath," + lib_dir],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
