# sf_add_layer(NAME DIR [DEPENDS layer...] [PRIVATE_LIBS lib...]): one library per folder of src/, with the
# shared warnings, the internal headers (src/common, src/kernels) private to the library, the public
# headers in include/, and, when shared, only the sf_ API exported (sf_exports.map).
set(SF_SOURCE_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
if(SF_BUILD_SHARED)
  set(SF_LIBRARY_KIND SHARED)
else()
  set(SF_LIBRARY_KIND STATIC)
endif()

function(sf_add_layer name dir)
  cmake_parse_arguments(ARG "" "" "DEPENDS;PRIVATE_LIBS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${SF_SOURCE_ROOT}/src/${dir}/*.c)
  add_library(${name} ${SF_LIBRARY_KIND} ${sources})
  target_include_directories(${name}
    PUBLIC $<BUILD_INTERFACE:${SF_SOURCE_ROOT}/include> $<INSTALL_INTERFACE:include>
    PRIVATE ${SF_SOURCE_ROOT}/src/common ${SF_SOURCE_ROOT}/src/kernels ${SF_SOURCE_ROOT}/src/${dir})
  target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:C>:${SF_WARNINGS}>")
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_LIBS})
  set_target_properties(${name} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                           POSITION_INDEPENDENT_CODE ON)
  if(SF_BUILD_SHARED)
    target_link_options(${name} PRIVATE -Wl,--version-script=${SF_SOURCE_ROOT}/cmake/sf_exports.map)
  endif()
  string(REPLACE "skinframe_" "" short ${name})
  if(name STREQUAL "skinframe")
    set(short skinframe)
  endif()
  add_library(skinframe::${short} ALIAS ${name})
  set_property(GLOBAL APPEND PROPERTY SF_LAYERS ${name})
endfunction()
