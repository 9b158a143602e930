# OTLP/JSON codec tests (included from tests/otlp/CMakeLists.txt).
tern_add_test(tern_otlp_json_tests SOURCES ${CMAKE_CURRENT_LIST_DIR}/json_codec_test.cpp LIBS tern_otlp)
