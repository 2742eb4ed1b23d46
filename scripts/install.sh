#!/usr/bin/env bash
# Create .venv with cobe and the extras asked for ("dev" by default). llama-cpp-python compiles
# from source (~8 min on 2 cores), so its wheel is kept in a cache outside the checkout that
# every later install, CI included, reuses; its [server] extra (in "test") comes from PyPI.
set -euo pipefail
extras="${1:-dev}"
venv="${COBE_VENV:-.venv}"
wheels="${COBE_WHEEL_CACHE:-$HOME/.cache/cobe/wheels}"
llama_version="0.3.36"

mkdir -p "$wheels"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip

case ",$extras," in
  *,dev,*|*,all,*|*,local,*|*,test,*)  # test: the slow tests serve the GGUF with llama-cpp-python's [server] extra
    if ! ls "$wheels"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
      echo "building llama-cpp-python $llama_version once (about 8 minutes on 2 cores); cached in $wheels"
      CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$venv/bin/python" -m pip wheel -q --no-deps -w "$wheels" "llama-cpp-python==$llama_version"
    fi
    ;;
esac

"$venv/bin/python" -m pip install -q --find-links "$wheels" "llama-cpp-python==$llama_version" -e ".[$extras]" 2>&1 \
  | sed '/is neither a file nor a directory/d'
# every-eval-ever declares Python >= 3.12, so the eee extra brings nothing on 3.11; its validator, which
# the Every Eval Ever export test runs, works there, so 3.11 dev installs get it without its dependencies
case ",$extras," in
  *,dev,*|*,eee,*)
    if "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
      "$venv/bin/python" -m pip install -q --no-deps --ignore-requires-python "every-eval-ever==0.3.0" 2>&1 \
        | sed '/is neither a file nor a directory/d'
    fi
    ;;
esac
"$venv/bin/python" -c "import cobe" || { echo "install failed" >&2; exit 1; }
