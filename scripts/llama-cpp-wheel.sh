#!/usr/bin/env bash
# Build the llama-cpp-python wheel pinned in pyproject.toml's `localmodel` extra, once per machine.
#   scripts/llama-cpp-wheel.sh VENV WHEEL_DIR
# llama-cpp-python ships only source; pip would compile llama.cpp (C++, ~10-20 minutes on two
# cores) into every fresh virtualenv. The wheel is kept in WHEEL_DIR under the CPU's flags
# (llama.cpp compiles for the CPU it is built on), so `pip install --find-links WHEEL_DIR`
# takes seconds afterwards and a home directory shared with another CPU never gets a wheel
# that would crash it. Needs cmake and a C++ compiler (.ci/run installs them).
# Built for the CPU's AVX, AVX2, FMA, F16C and BMI2, not for everything it has (`-march=native`):
# that build segfaulted on its first completion on a CPU with AVX-512 and AMX (2026-12-05), where
# this one answers. pip's own wheel cache is keyed by the source, not by these flags: not used.
set -euo pipefail
venv="$1"
wheels="$2"
spec="$("$venv/bin/python" - <<'PY'
import re
import tomllib

extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["localmodel"]
print(re.sub(r"\[.*?\]", "", next(d for d in extra if d.startswith("llama-cpp-python"))))
PY
)"
version="${spec##*==}"
if compgen -G "$wheels/llama_cpp_python-$version-*.whl" >/dev/null; then
    exit 0
fi
mkdir -p "$wheels"
echo "building $spec once for this machine (C++, about 10-20 minutes on 2 cores) into $wheels" >&2
started=$SECONDS
flags="-DGGML_NATIVE=OFF"
for isa in avx avx2 fma f16c bmi2; do
    if grep -qw "$isa" /proc/cpuinfo; then
        flags="$flags -DGGML_${isa^^}=ON"
    fi
done
CMAKE_ARGS="$flags" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$venv/bin/pip" wheel -q --no-cache-dir --no-deps "$spec" -w "$wheels"
echo "built $spec in $((SECONDS - started)) s" >&2
