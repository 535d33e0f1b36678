# The Python module's tests (python/tests/run.sh): the module built from this tree's shared layers, pytest against
# the command. Not in the sanitizer build (the module's layers are built apart, without the sanitizers).
if(NOT SF_SANITIZE AND TARGET skinframe_cli)
  add_test(NAME python COMMAND bash ${PROJECT_SOURCE_DIR}/python/tests/run.sh ${PROJECT_SOURCE_DIR}
                               ${CMAKE_BINARY_DIR} $<TARGET_FILE:skinframe_cli>)
  set_tests_properties(python PROPERTIES LABELS python SKIP_RETURN_CODE 77 TIMEOUT 600 FIXTURES_SETUP sf_python_module)
endif()
