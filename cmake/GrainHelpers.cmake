# Helpers shared by every grain target.

# OpenMP for C++ and, in CUDA translation units, for nvcc's host compiler.
function(grain_link_openmp target)
  target_compile_options(${target} PUBLIC
    $<$<COMPILE_LANGUAGE:CXX>:${OpenMP_CXX_FLAGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${OpenMP_CXX_FLAGS}>)
  if(GRAIN_STATIC_RUNTIME)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.a
                    OUTPUT_VARIABLE _gomp OUTPUT_STRIP_TRAILING_WHITESPACE)
    find_package(Threads REQUIRED)
    target_link_libraries(${target} PUBLIC ${_gomp} Threads::Threads)
  else()
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
  endif()
endfunction()

function(grain_apply_build_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas>)
  if(GRAIN_SANITIZE)
    target_compile_options(${target} PUBLIC
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
  if(GRAIN_STATIC_RUNTIME)
    target_link_options(${target} PUBLIC -static-libstdc++ -static-libgcc)
  endif()
  if(GRAIN_NATIVE_ARCH)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-march=native> $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-march=native>)
  endif()
endfunction()

# Sources written once for every back end: compiled as CUDA in CUDA builds so that the same
# kernels also instantiate for grain::Cuda.
function(grain_portable_sources)
  if(GRAIN_HAVE_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
