# Runs one libFuzzer target (CTest label fuzz): first every kept regression input, then a bounded fuzzing
# session over a seed corpus made at run time from the glTF assets in tests/assets and the target's
# minimised corpus in tests/fuzz_corpus/<target>/.
# -D FUZZER=... ASSETS=... CORPUS=... REGRESSIONS=... WORK=... SECONDS=... MAX_LEN=... (0 = the largest seed)
#
# Re-minimising a target's corpus (after a long run, or when the code changed much), e.g. for fuzz_pipeline
# from a build made as in the Makefile's test-sanitize, with RUN = the corpus folder of a long run:
#   T=fuzz_pipeline; B=build-sanitize/tests; M=$(mktemp -d)
#   find tests/assets/gltf \( -name '*.glb' -o -name '*.gltf' \) -exec cp {} $M/ \;   # what is seeded anyway
#   ls $M > $M.assets
#   $B/$T -merge=1 -max_len=2100000 $M tests/fuzz_corpus/$T RUN
#   (cd $M && xargs rm < $M.assets)              # keep only what adds coverage beyond the assets
#   find $M -size +64k -delete                   # small files only
#   git rm -q tests/fuzz_corpus/$T/*; mkdir -p tests/fuzz_corpus/$T; cp $M/* tests/fuzz_corpus/$T/
# -merge=1 counts the coverage of the files already in its first folder first, so the assets copied there
# set the baseline and only inputs that add to it are kept. Keep the whole corpus under about 2 MB
# (du -sh tests/fuzz_corpus).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB_RECURSE seeds ${ASSETS}/gltf/*.glb ${ASSETS}/gltf/*.gltf ${CORPUS}/*)
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
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=${MAX_LEN} -rss_limit_mb=2048 -timeout=20
                        -artifact_prefix=${WORK}/ ${WORK}/corpus RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a failure (${rc}); the input is in ${WORK}/ - keep it in tests/regressions/")
endif()
