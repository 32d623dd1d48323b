# ladder_dependency_option(VAR doc): a tri-state AUTO|ON|OFF cache option.
function(ladder_dependency_option var doc)
  set(${var} AUTO CACHE STRING "${doc}: AUTO|ON|OFF")
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
  if(NOT ${var} MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${var} must be AUTO, ON or OFF (got '${${var}}')")
  endif()
endfunction()

# ladder_dependency_check(OPTION FOUND_VAR debian-package): ON and not found is an error.
function(ladder_dependency_check option found package)
  if(${option} STREQUAL "ON" AND NOT ${found})
    message(FATAL_ERROR "${option}=ON but it was not found: install the Debian package '${package}' "
                        "(apt-get install ${package}) or configure with -D${option}=AUTO")
  endif()
  if(${option} STREQUAL "AUTO" AND NOT ${found})
    message(STATUS "${option}=AUTO: not found, building without it (Debian package: ${package})")
  endif()
endfunction()
