# tools/python/pytest_discover.cmake: included by ctest when it starts (tools/python/CMakeLists.txt); collects
# the pytest cases of TERRAZO_PYTEST_DIR and adds each as its own ctest entry `python.<file>::<case>`,
# label `python`; a case pytest skips shows as skipped. If collection fails (the extension is not
# built, a test file does not import), one failing entry, python.collect, shows pytest's output.
execute_process(COMMAND ${TERRAZO_PYTEST_CMAKE} -E env ${TERRAZO_PYTEST_ENV}
                        ${TERRAZO_PYTEST_PYTHON} -m pytest --collect-only -q -p no:cacheprovider --rootdir=. .
                WORKING_DIRECTORY ${TERRAZO_PYTEST_DIR}
                OUTPUT_VARIABLE collected ERROR_VARIABLE collect_errors RESULT_VARIABLE collect_rc)
if(NOT collect_rc EQUAL 0)
  # Shows pytest's collection output and fails, whatever the collection does now.
  add_test(python.collect sh -c "\"$0\" -m pytest --collect-only -q -p no:cacheprovider --rootdir=. . ; exit 1"
           ${TERRAZO_PYTEST_PYTHON})
  set_tests_properties(python.collect PROPERTIES LABELS python WORKING_DIRECTORY ${TERRAZO_PYTEST_DIR}
                       ENVIRONMENT "${TERRAZO_PYTEST_ENV}")
  return()
endif()
string(REPLACE "\n" ";" lines "${collected}")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "::")
    continue()
  endif()
  set(name "python.${line}")
  set(labels python)
  if(line MATCHES "^test_gpu\\.py::")
    set(labels "python;gpu")  # needs a CUDA device, skipped (and shown so) without one
  endif()
  add_test("${name}" ${TERRAZO_PYTEST_PYTHON} -m pytest -q -rs -p no:cacheprovider --rootdir=. "${line}")
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}" WORKING_DIRECTORY ${TERRAZO_PYTEST_DIR}
                       ENVIRONMENT "${TERRAZO_PYTEST_ENV}" SKIP_REGULAR_EXPRESSION "[0-9]+ skipped")
endforeach()
