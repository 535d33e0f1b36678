#!/usr/bin/env bash
# The layer rules of docs/design.md §5, checked on the built libraries and on the sources (CTest label layers):
#   tests/check_layers.sh SOURCE_DIR core=LIB [files=LIB scenes=LIB gltf=LIB render=LIB eval=LIB]
#   - the core's library needs nothing but libc and libm (an allowlist: memory, strings, formatting, qsort, math);
#   - no layer uses an sfi_ (internal) symbol it does not define itself, and the sf_ symbols it uses come from
#     itself or the layers below it (files, scenes -> core; gltf, render -> files, core; eval -> gltf, files, core);
#   - src/core, src/common and src/kernels include only C standard headers and each other (and skinframe.h);
#     a layer's sources include only their own folder, src/common, src/kernels and the public headers;
#     cJSON only in src/gltf, stb and zlib only in src/render; cli/ includes public headers, never src/.
# Every failure names the symbol or the file and line; the exit status is 1 when any rule is broken.
set -uo pipefail
src=$1; shift
declare -A lib
for arg in "$@"; do lib[${arg%%=*}]=${arg#*=}; done
fail=0
bad() { echo "layer rule broken: $*"; fail=1; }

# Symbols of a library: static archives per member, shared libraries through the dynamic table.
symbols() {  # KIND(defined|undefined) LIB
  local flags=(--defined-only)
  [ "$1" = undefined ] && flags=(--undefined-only)
  case $2 in
    *.so | *.so.*) nm -D "${flags[@]}" "$2" ;;
    *) nm "${flags[@]}" "$2" ;;
  esac 2>/dev/null | awk 'NF >= 2 && $0 !~ /:$/ {print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u
}
# Undefined in LIB and not defined anywhere in LIB (archives list what one member takes from another).
external() { LC_ALL=C comm -23 <(symbols undefined "$1") <(symbols defined "$1"); }

# Compiler, sanitizer and C library plumbing that any C object may reference.
runtime='^(_GLOBAL_OFFSET_TABLE_|__stack_chk_(fail|guard)|__assert_fail|__errno_location|__isoc(99|23)_[a-z]+|__[a-z]+_chk|__[a-z0-9]+_finite|__(asan|ubsan|lsan|sanitizer|sancov)_.*|__(start|stop)___sancov_[a-z]+|__(mul|div)[sdx]c3|__(ashl|ashr|lshr|div|mod|udiv|umod|mul|fix|fixuns|float|floatun)[a-z]*[0-9]*|_(init|fini)|__cxa_finalize|__gmon_start__|_ITM_.*|_DYNAMIC|__dso_handle|__tls_get_addr)$'
# What the core may take from libc and libm: no files, streams, threads, clocks, environment or exit (bcmp:
# clang's form of a memcmp compared with zero).
libm='(a?(sin|cos|tan)h?|atan2|sincos|exp|exp2|expm1|log|log2|log10|log1p|logb|ilogb|pow|sqrt|cbrt|hypot|fabs|floor|ceil|round|lround|llround|trunc|rint|lrint|llrint|nearbyint|fmod|remainder|remquo|fmin|fmax|fdim|fma|copysign|nextafter|nexttoward|ldexp|frexp|modf|scalbl?n|nan|erfc?|tgamma|lgamma)[fl]?'
libc='malloc|calloc|realloc|free|aligned_alloc|mem(cpy|move|set|cmp|chr)|bcmp|str(len|nlen|cmp|ncmp|chr|rchr|str|cpy|ncpy|cat|ncat|spn|cspn|pbrk|dup|ndup|to[dfl]|tol[dl]?|toull?|toimax|toumax)|v?sn?printf|qsort|bsearch|l?l?abs|l?l?div'
core_allowed="^($libc|$libm)\$"

# A core built with the CUDA backend (SF_WITH_CUDA) holds cuda/*.cu objects, which use the CUDA and C++
# runtimes: the rule applies to its C objects, which may call the backend's sfi_cuda_ entry points.
core_c=${lib[core]:-}
cuda_members=0
if [ -n "$core_c" ] && [ -f "$core_c" ] && ar t "$core_c" 2>/dev/null | grep -q '\.cu\.o$'; then
  cuda_members=1
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  abs=$(realpath "$core_c")
  (cd "$tmp" && ar x "$abs" && rm -f ./*.cu.o && ar rc c_objects.a ./*.o)
  core_c=$tmp/c_objects.a
fi
if [ -n "${lib[core]:-}" ]; then
  [ -f "${lib[core]}" ] || bad "core library ${lib[core]} missing"
  while read -r s; do
    [ -z "$s" ] && continue
    [[ $s =~ $runtime ]] && continue
    [[ $s =~ $core_allowed ]] && continue
    [[ $cuda_members = 1 && ( $s == sfi_cuda_* || $s == sfi_backend_cuda ) ]] && continue
    case $s in
      sfi_* | sf_*) bad "core library $(basename "${lib[core]}") needs $s, which the core does not define" ;;
      cJSON_* | stbi* | deflate* | compress* | inflate* | crc32 | adler32) bad "core library needs $s (a host library of an upper layer)" ;;
      *) bad "core library $(basename "${lib[core]}") needs $s, which is not on the libc/libm allowlist" ;;
    esac
  done < <(external "$core_c")
fi

# sf_ symbols each layer may take from the layers below it.
declare -A below=([core]="" [files]="core" [scenes]="core" [gltf]="files core" [render]="files core"
                  [eval]="gltf files core")
for layer in files scenes gltf render eval; do
  file=${lib[$layer]:-}
  [ -n "$file" ] || continue
  [ -f "$file" ] || { bad "$layer library $file missing"; continue; }
  provided=$(for l in ${below[$layer]}; do [ -n "${lib[$l]:-}" ] && symbols defined "${lib[$l]}"; done | grep '^sf_' | LC_ALL=C sort -u)
  while read -r s; do
    case $s in
      sfi_*) bad "$layer library $(basename "$file") needs internal $s from another layer (use the core's public sf_ API)" ;;
      sf_*) grep -qx -- "$s" <<<"$provided" ||
              bad "$layer library $(basename "$file") needs $s, which no layer below it (${below[$layer]}) defines" ;;
    esac
  done < <(external "$file")
done

# Includes. check_includes FOLDER ALLOWED_QUOTED_DIRS ALLOWED_ANGLE_REGEX
std_headers='^(assert|complex|ctype|errno|fenv|float|inttypes|iso646|limits|locale|math|setjmp|signal|stdalign|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|tgmath|time|uchar|wchar|wctype)\.h$'
check_includes() {
  local dir=$1 dirs=$2 angle=$3 f line name found d
  for f in "$src/$dir"/*.[ch]; do
    [ -f "$f" ] || continue
    while IFS=: read -r line name; do
      if [[ $name == \"* ]]; then
        name=${name#\"}; name=${name%%\"*}
        found=0
        for d in $dirs; do [[ $name != *..* && -f $src/$d/$name ]] && found=1; done
        [ $found = 1 ] || bad "${f#"$src"/}:$line includes \"$name\", which is not in ${dirs// /, }"
      else
        name=${name#<}; name=${name%%>*}
        [[ $name =~ $angle ]] || bad "${f#"$src"/}:$line includes <$name>, not allowed in $dir"
        [[ $name == *src/* ]] && bad "${f#"$src"/}:$line includes <$name> from src/"
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f" |
             sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*/\1:/')
  done
}
core_dirs="src/core src/common src/kernels"
# The compiler's own intrinsics and cpuid headers (inline functions, no symbols) for the SIMD fast paths (x86, WebAssembly).
intrinsics='^(cpuid|emmintrin|immintrin|wasm_simd128)\.h$'
for d in $core_dirs; do
  check_includes "$d" "$core_dirs include" "$std_headers|^skinframe\.h$|$intrinsics"
done
# The core's quoted includes may name only skinframe.h among the public headers.
if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"skinframe_[a-z]+\.h"' "$src"/src/core/*.[ch] "$src"/src/common/*.h \
     "$src"/src/kernels/*.h 2>/dev/null; then
  bad "the core includes an upper layer's public header (above)"
fi
posix='^(dirent|errno|fcntl|unistd|sys/stat|sys/types|time|strings)\.h$'
check_includes src/files "src/files src/common src/kernels include" "$std_headers|$posix"
check_includes src/scenes "src/scenes src/common src/kernels include" "$std_headers"
# The decoders of compressed geometry: meshoptimizer's C header (Draco only in gltf_draco.cpp).
check_includes src/gltf "src/gltf src/common src/kernels include" "$std_headers|$posix|^cjson/cJSON\.h$|^meshoptimizer\.h$"
check_includes src/render "src/render src/common src/kernels include" "$std_headers|$posix|^stb/[a-z_]+\.h$|^zlib\.h$"
# The asset evaluation: the public headers below it, POSIX for the folder walk and the clock; no JSON.
check_includes src/eval "src/eval src/common src/kernels include" "$std_headers|$posix"
# The command: public headers and its own; any system header except the library's internals.
internal=$(cd "$src/src" && find . -name '*.h' -printf '%f\n' | LC_ALL=C sort -u | paste -sd'|')
check_includes cli "cli include" "^(.*)$"
while IFS=: read -r f line name; do
  bad "${f#"$src"/}:$line includes <$name>, a header of src/"
done < <(grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$src"/cli/*.[ch] |
         sed -E 's/:[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]*)>.*/:\1/' | grep -E ":($internal)\$")

if [ $fail = 0 ]; then echo "layer rules hold"; fi
exit $fail
