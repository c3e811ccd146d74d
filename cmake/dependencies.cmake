# Every dependency comes from Debian 12 packages (see scripts/setup.sh); nothing is downloaded.
# Debian's default Boost is 1.74; Beast's and Asio's C++20 support we rely on needs 1.81, which
# libboost1.81-dev installs next to it. Any later Boost is accepted too (Boost's own package
# version file takes every newer version); 1.81 is the one tested. See docs/INSTALL.md.
find_package(Boost 1.81 REQUIRED CONFIG)
find_package(OpenSSL 3 REQUIRED)
find_package(CURL 7.85 REQUIRED)  # CURLOPT_PROTOCOLS_STR
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED CONFIG)  # idem-cli's command line (header-only)
find_package(Threads REQUIRED)
