// The C++ floor for the size figures (scripts/footprint.sh): a program that prints one line on
// iostream, compiled and linked with the same flags as the examples.
#include <iostream>

int main() {
  std::cout << "order: nothing to submit\n";
  return 0;
}
