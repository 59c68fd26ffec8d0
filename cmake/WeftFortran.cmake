# Fortran MPI programs (the interposer's Fortran tests and the Fortran mini-application), built
# as a user builds them: with the MPI's own Fortran wrapper (Debian: mpif90.openmpi,
# mpif90.mpich), beside the mpicc the build uses. weft itself has no Fortran source.
#   WEFT_MPIFORT: the wrapper, empty where there is none or it cannot compile (no gfortran).
#   weft_fortran_program(NAME SOURCE [flags...]): builds NAME in this binary folder (part of
#     `all`), preprocessed (-cpp), each with its own module folder.
set(WEFT_MPIFORT "" CACHE FILEPATH "The MPI's Fortran compiler wrapper (empty: found beside mpicc)")
if(NOT WEFT_MPIFORT)
  get_filename_component(_weft_mpicc_dir "${MPI_C_COMPILER}" DIRECTORY)
  get_filename_component(_weft_mpicc_name "${MPI_C_COMPILER}" NAME)
  string(REPLACE "mpicc" "mpif90" _weft_mpif90_name "${_weft_mpicc_name}")
  find_program(_weft_mpif90 NAMES ${_weft_mpif90_name} mpif90.${WEFT_MPI_VENDOR} mpif90 mpifort
               HINTS ${_weft_mpicc_dir} NO_CACHE)
  if(_weft_mpif90)
    # A wrapper without its Fortran compiler prints an error instead of a version.
    execute_process(COMMAND ${_weft_mpif90} --version RESULT_VARIABLE _weft_mpif90_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(_weft_mpif90_rc EQUAL 0)
      set(WEFT_MPIFORT ${_weft_mpif90})
    endif()
  endif()
endif()
if(WEFT_MPIFORT)
  message(STATUS "weft: Fortran programs built with ${WEFT_MPIFORT}")
else()
  message(STATUS "weft: no MPI Fortran wrapper that compiles (install gfortran): the Fortran tests and example are not built")
endif()

function(weft_fortran_program name source)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(mods ${CMAKE_CURRENT_BINARY_DIR}/${name}.mod.d)
  add_custom_command(OUTPUT ${out}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${mods}
                     COMMAND ${WEFT_MPIFORT} -O2 -cpp -ffree-line-length-none -J ${mods} ${ARGN}
                             -o ${out} ${source}
                     DEPENDS ${source} VERBATIM
                     COMMENT "Building Fortran program ${name}")
  add_custom_target(${name}_build ALL DEPENDS ${out})
endfunction()
