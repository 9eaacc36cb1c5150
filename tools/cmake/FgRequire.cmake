# SPDX-License-Identifier: Apache-2.0
# fg_require_package(<find_package name> "<debian packages>")
# A missing dependency stops configuration with the Debian package to install.
macro(fg_require_package name debs)
  find_package(${name} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "${name} not found: install Debian package(s) '${debs}' (or run tools/bootstrap.sh as root)")
  endif()
endmacro()
