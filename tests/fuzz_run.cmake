# Runs one libFuzzer target (CTest label fuzz): first every kept regression input, then a bounded fuzzing
# session over a seed corpus made at run time from the glTF assets in tests/assets and tests/fuzz_corpus/:
# the loader (fuzz_gltf) takes every folder's files, the pipeline and the writers (fuzz_cli) only fuzz_pipeline/,
# which holds inputs the loader accepts (a refused input never reaches them: those belong in fuzz_gltf/).
# -D FUZZER=... ASSETS=... CORPUS=... (tests/fuzz_corpus) REGRESSIONS=... WORK=... SECONDS=...
#    MAX_LEN=... (0 = the largest seed, so that every asset enters whole)
#
# Re-minimising a target's folder after a long run (RUN = that run's corpus folder), for T = fuzz_pipeline
# (or fuzz_gltf), from a build made as in the Makefile's test-sanitize:
#   B=build-sanitize/tests; M=$(mktemp -d); S=$(mktemp -d)
#   find tests/assets/gltf \( -name '*.glb' -o -name '*.gltf' \) -exec cp {} $M/ \;   # seeded anyway
#   cp tests/fuzz_corpus/*/embedded-* tests/fuzz_corpus/*/synthetic-* $M/; ls $M > $M.base   # kept by hand
#   find RUN tests/fuzz_corpus/$T -type f -size -8k -exec cp {} $S/ \;   # small files only
#   $B/$T -set_cover_merge=1 -max_len=2019856 $M $S
#   (cd $M && xargs rm < $M.base)
#   git ls-files tests/fuzz_corpus/$T | grep -E '/[0-9a-f]{40}$' | xargs git rm -q; cp $M/* tests/fuzz_corpus/$T/
#   (only the hashed names: a glob of [0-9a-f]* would take embedded-* as well)
# -set_cover_merge (or -merge=1, which keeps more files) takes the coverage of the files already in its
# first folder as the baseline and adds only inputs that cover more. Then drop files that another target's
# folder holds too, run $B/fuzz_pipeline over every file (an input that fails it fails the seeding of every
# ctest run: fix it and keep it in tests/regressions/ instead), and keep the whole corpus under
# about 2 MB (du -sb tests/fuzz_corpus).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/files)
# The files the .gltf seeds refer to (buffers, images) in one folder, the fuzzers' base folder (SF_FUZZ_FILES),
# so that those seeds load whole (the staged assets' file names are distinct).
file(GLOB_RECURSE gltf_seeds ${ASSETS}/gltf/*.gltf)
foreach(s ${gltf_seeds})
  get_filename_component(dir ${s} DIRECTORY)
  file(GLOB beside ${dir}/*)
  list(FILTER beside EXCLUDE REGEX "\\.(gltf|glb)$")
  foreach(f ${beside})
    if(NOT IS_DIRECTORY ${f})
      file(COPY ${f} DESTINATION ${WORK}/files)
    endif()
  endforeach()
endforeach()
get_filename_component(target ${FUZZER} NAME_WE)
if(target STREQUAL "fuzz_pipeline" OR target STREQUAL "fuzz_cli")
  file(GLOB_RECURSE seeds ${ASSETS}/gltf/*.glb ${ASSETS}/gltf/*.gltf ${CORPUS}/fuzz_pipeline/*)
else()
  file(GLOB_RECURSE seeds ${ASSETS}/gltf/*.glb ${ASSETS}/gltf/*.gltf ${CORPUS}/*)
endif()
list(FILTER seeds EXCLUDE REGEX "README")
set(i 0)
set(largest 4096)
foreach(s ${seeds})
  get_filename_component(name ${s} NAME)
  math(EXPR i "${i} + 1")
  configure_file(${s} ${WORK}/corpus/${i}-${name} COPYONLY)
  file(SIZE ${s} bytes)
  if(bytes GREATER largest)
    set(largest ${bytes})
  endif()
endforeach()
if(MAX_LEN EQUAL 0)
  set(MAX_LEN ${largest})
endif()
file(GLOB regressions ${REGRESSIONS}/*)
list(FILTER regressions EXCLUDE REGEX "README")
if(regressions)
  execute_process(COMMAND ${FUZZER} ${regressions} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "a kept regression input fails again (${rc})")
  endif()
endif()
message(STATUS "fuzzing ${FUZZER} for ${SECONDS} s over ${i} seeds, -max_len=${MAX_LEN}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env SF_FUZZ_FILES=${WORK}/files
                        ${FUZZER} -max_total_time=${SECONDS} -max_len=${MAX_LEN} -rss_limit_mb=2048 -timeout=20
                        -artifact_prefix=${WORK}/ ${WORK}/corpus RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a failure (${rc}); the input is in ${WORK}/ - keep it in tests/regressions/")
endif()
