# cJSON for the wasm32-wasi build of the glTF layer: Debian's source package of libcjson-dev (the version the
# native build links, with Debian's patches applied), downloaded once at configure time and checked against the
# .dsc's SHA-256 sums, then compiled with the wasm toolchain as the static library `cjson`.
#   -DSF_CJSON_SOURCE_ARCHIVES=dir   a folder that already holds the two files below (offline builds)
# Sets SF_CJSON_INCLUDE_DIR and SF_CJSON_LIBRARY, which the glTF layer (src/CMakeLists.txt) then uses.
set(sf_cjson_version 1.7.15)
set(sf_cjson_debian 1.7.15-1+deb12u4)
set(sf_cjson_files
    "cjson_${sf_cjson_version}.orig.tar.gz|5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2"
    "cjson_${sf_cjson_debian}.debian.tar.xz|afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb")
set(SF_CJSON_MIRROR "http://deb.debian.org/debian/pool/main/c/cjson" CACHE STRING "where Debian's cjson source package is")
set(SF_CJSON_SOURCE_ARCHIVES "" CACHE PATH "a folder holding Debian's cjson source archives (instead of downloading)")

set(sf_cjson_root ${CMAKE_BINARY_DIR}/cjson)
set(sf_cjson_src ${sf_cjson_root}/cJSON-${sf_cjson_version})
if(NOT EXISTS ${sf_cjson_src}/.patched)
  file(REMOVE_RECURSE ${sf_cjson_root})
  file(MAKE_DIRECTORY ${sf_cjson_root})
  foreach(entry ${sf_cjson_files})
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 name)
    list(GET entry 1 sum)
    if(SF_CJSON_SOURCE_ARCHIVES)
      file(COPY ${SF_CJSON_SOURCE_ARCHIVES}/${name} DESTINATION ${sf_cjson_root})
      file(SHA256 ${sf_cjson_root}/${name} got)
      if(NOT got STREQUAL sum)
        message(FATAL_ERROR "${SF_CJSON_SOURCE_ARCHIVES}/${name}: SHA-256 ${got}, Debian's .dsc says ${sum}")
      endif()
    else()
      file(DOWNLOAD ${SF_CJSON_MIRROR}/${name} ${sf_cjson_root}/${name} EXPECTED_HASH SHA256=${sum} STATUS status)
      list(GET status 0 code)
      if(NOT code EQUAL 0)
        message(FATAL_ERROR "cJSON for wasm: could not download ${SF_CJSON_MIRROR}/${name} (${status}); "
                            "put Debian's cjson ${sf_cjson_debian} source archives in a folder and pass "
                            "-DSF_CJSON_SOURCE_ARCHIVES=folder")
      endif()
    endif()
    file(ARCHIVE_EXTRACT INPUT ${sf_cjson_root}/${name} DESTINATION ${sf_cjson_root})
  endforeach()
  # Debian's patches (security fixes) in the order of its series file.
  file(STRINGS ${sf_cjson_root}/debian/patches/series sf_cjson_series REGEX "^[^#]")
  find_program(SF_PATCH patch REQUIRED)
  foreach(p ${sf_cjson_series})
    execute_process(COMMAND ${SF_PATCH} -p1 -s -i ${sf_cjson_root}/debian/patches/${p}
                    WORKING_DIRECTORY ${sf_cjson_src} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cJSON for wasm: Debian's patch ${p} does not apply")
    endif()
  endforeach()
  file(TOUCH ${sf_cjson_src}/.patched)
endif()

# The header where the layer includes it: <cjson/cJSON.h>.
file(COPY ${sf_cjson_src}/cJSON.h DESTINATION ${sf_cjson_root}/include/cjson)
add_library(cjson STATIC ${sf_cjson_src}/cJSON.c)
target_include_directories(cjson PUBLIC ${sf_cjson_root}/include)
set_target_properties(cjson PROPERTIES C_STANDARD 99)
set(SF_CJSON_INCLUDE_DIR ${sf_cjson_root}/include CACHE PATH "cJSON's headers (built for wasm)" FORCE)
set(SF_CJSON_LIBRARY cjson CACHE STRING "cJSON (built for wasm)" FORCE)
