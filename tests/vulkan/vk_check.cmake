# The GLSL shaders against the library through Vulkan: exports every scene and preset (and a morphed sheet) and the
# staged characters with `skinframe export-gpu`, then runs vk_check on them. Without a device (or, MISSING set,
# without the Vulkan headers or glslangValidator at configure time) it says "skipped"; under CI=true it fails
# instead, so CI cannot pass with the shaders unrun (CI installs Mesa's lavapipe: scripts/bootstrap.sh).
#   cmake -DSF_CLI=... -DVK_CHECK=... -DSPV_DIR=... -DSF_ASSETS=... -DOUT_DIR=... -P tests/vulkan/vk_check.cmake
function(vk_unavailable why)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "vk_check: ${why}; CI=true needs it (SF_BOOTSTRAP_SHADERS=1 scripts/bootstrap.sh)")
  endif()
  message("vk_check skipped: ${why}")
endfunction()
if(DEFINED MISSING)
  vk_unavailable("${MISSING}")
  return()
endif()
set(cases
    "--scene tip --preset move-neighbor" "--scene sheet --preset bone-twist" "--scene sheet --preset bone-bend"
    "--scene sheet --morph towel-twist=0.7,swirl=0.5,ripples=0.6" "--scene ramp --preset stretch"
    "--scene elbow --preset bend" "--scene strip --preset lift")
set(dirs)
set(k 0)
foreach(c ${cases})
  separate_arguments(args UNIX_COMMAND "${c}")
  set(dir ${OUT_DIR}/case${k})
  file(REMOVE_RECURSE ${dir})
  execute_process(COMMAND ${SF_CLI} export-gpu ${args} -o ${dir} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "export-gpu ${c} failed")
  endif()
  list(APPEND dirs ${dir})
  math(EXPR k "${k} + 1")
endforeach()
# the staged characters, each at 1 s of its first animation
foreach(asset CesiumMan/glTF-Binary/CesiumMan.glb Fox/glTF-Binary/Fox.glb SimpleSkin/glTF/SimpleSkin.gltf)
  get_filename_component(stem ${asset} NAME_WE)
  set(dir ${OUT_DIR}/${stem})
  file(REMOVE_RECURSE ${dir})
  execute_process(COMMAND ${SF_CLI} export-gpu ${SF_ASSETS}/gltf/${asset} --time 1 -o ${dir} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "export-gpu ${stem} failed")
  endif()
  list(APPEND dirs ${dir})
endforeach()
execute_process(COMMAND ${VK_CHECK} ${SPV_DIR} ${dirs} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  vk_unavailable("no Vulkan device that runs compute")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "vk_check failed")
endif()
