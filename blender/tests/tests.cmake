# The Blender add-on's headless tests (blender/tests/run.sh), after the python test has built the module.
if(NOT SF_SANITIZE AND TARGET skinframe_cli)
  add_test(NAME blender_addon COMMAND bash ${PROJECT_SOURCE_DIR}/blender/tests/run.sh ${PROJECT_SOURCE_DIR}
                                      ${CMAKE_BINARY_DIR} $<TARGET_FILE:skinframe_cli>)
  set_tests_properties(blender_addon PROPERTIES LABELS python SKIP_RETURN_CODE 77 TIMEOUT 300
                                                FIXTURES_REQUIRED sf_python_module)
endif()
