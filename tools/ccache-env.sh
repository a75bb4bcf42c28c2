# Sourced by tools/quickstart.sh and tools/run-tests.sh: compile through
# ccache where it is installed, with paths made relative to the repository,
# so that the three builds of the same C++ — the package's (build/cp311-…,
# README command 1), the tests' (build/dev) and the newest JAX's
# (build/cp312-abi3-…) — compile each file once: every build folder is two
# levels below the repository, so the relative command lines are equal.
# ccache hashes the compiler's name: scikit-build-core passes Python's
# (g++), CMake alone would pick c++ (the same g++, but no cache hit), so
# both are told g++ unless CXX says otherwise.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CXX=${CXX:-g++} CC=${CC:-gcc}
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
fi
