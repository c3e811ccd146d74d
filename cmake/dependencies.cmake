# Every dependency comes from Debian 12 packages (see scripts/setup.sh); nothing is downloaded.
# Debian's default Boost is 1.74; Beast's and Asio's C++20 support we rely on needs 1.81,
# which libboost1.81-dev installs next to it.
find_package(Boost 1.81.0...<1.82 REQUIRED CONFIG)
find_package(OpenSSL 3 REQUIRED)
find_package(CURL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)
