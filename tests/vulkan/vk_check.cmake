# The GLSL shaders against the library through Vulkan: exports every scene and preset (and a morphed sheet) and one
# staged character with `skinframe export-gpu`, then runs vk_check on them. Says "skipped" without a device.
#   cmake -DSF_CLI=... -DVK_CHECK=... -DSPV_DIR=... -DSF_ASSETS=... -DOUT_DIR=... -P tests/vulkan/vk_check.cmake
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
set(dir ${OUT_DIR}/cesium)
file(REMOVE_RECURSE ${dir})
execute_process(COMMAND ${SF_CLI} export-gpu ${SF_ASSETS}/gltf/CesiumMan/glTF-Binary/CesiumMan.glb --time 1 -o ${dir}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "export-gpu CesiumMan failed")
endif()
list(APPEND dirs ${dir})
execute_process(COMMAND ${VK_CHECK} ${SPV_DIR} ${dirs} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message("vk_check: no Vulkan device that runs compute: skipped")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "vk_check failed")
endif()
