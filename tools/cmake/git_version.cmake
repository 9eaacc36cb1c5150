# SPDX-License-Identifier: Apache-2.0
# Writes OUT with the source tree's git commit (FG_GIT_COMMIT), rewriting it
# only when the commit changed (so only what includes it rebuilds). Run at
# every build by the fg_git_version target.
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown commit")
endif()
set(content "#define FG_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
