# All dependencies come from Debian 12 packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(Boost 1.74 REQUIRED)            # Asio + Beast (header-only)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)
find_package(simdjson REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(gRPC CONFIG REQUIRED)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(LIBISAL REQUIRED IMPORTED_TARGET libisal)  # ISA-L igzip: gzip level 1
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)  # Go/RE2 syntax: the Collector's regex_parser
if(TERN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TERN_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Boost.Asio without the deprecated pieces; one definition for the whole tree.
add_library(tern_asio INTERFACE)
target_link_libraries(tern_asio INTERFACE Boost::headers Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
target_compile_definitions(tern_asio INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
