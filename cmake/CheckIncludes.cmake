# Run by the build (cmake -P) for one library: every `#include "part/..."` of its sources and
# headers must name a folder of src/ that the library itself is in or links (directly or
# not). An include of a folder it does not link is an upward or circular include: the build
# fails and names it. Inputs: INPUT (a file written at configure time that sets LIB, FILES,
# ALLOWED, KNOWN), STAMP (touched on success).
cmake_minimum_required(VERSION 3.25)
include(${INPUT})
set(_failed FALSE)
foreach(_file IN LISTS FILES)
  if(NOT EXISTS "${_file}")
    continue()
  endif()
  file(STRINGS "${_file}" _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" _inc "${_line}")
    get_filename_component(_dir "${_inc}" DIRECTORY)
    # The deepest folder of src/ that holds the header (encoding/elasticsearch, not encoding).
    set(_owner "")
    while(NOT _dir STREQUAL "")
      if(_dir IN_LIST KNOWN)
        set(_owner "${_dir}")
        break()
      endif()
      get_filename_component(_dir "${_dir}" DIRECTORY)
    endwhile()
    if(_owner STREQUAL "")
      continue()  # a header beside the file, or a generated one: not a part of src/
    endif()
    if(NOT _owner IN_LIST ALLOWED)
      # NOTICE is printed as is (an error message would be re-wrapped): one line per include.
      message(NOTICE "layering: ${_file} includes \"${_inc}\", but ${LIB} does not link a library of "
                     "src/${_owner}: an include upward or across parts (link the library, or move the code down)")
      set(_failed TRUE)
    endif()
  endforeach()
endforeach()
if(_failed)
  message(FATAL_ERROR "layering: ${LIB} includes parts it does not link (above)")
endif()
file(TOUCH "${STAMP}")
