// Fuzzes HBase's key text form: the lenient ToBytesBinary must accept anything, the strict
// ParseBinaryKey must either refuse or agree with it, and toStringBinary must round-trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "presplit/bytes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  // Any bytes, printed and read back, are the same bytes.
  if (presplit::ToBytesBinary(presplit::ToStringBinary(input)) != input) std::abort();

  // Any text decodes; the strict parser agrees with the lenient one whenever it accepts.
  const std::string lenient = presplit::ToBytesBinary(input);
  auto strict = presplit::ParseBinaryKey(input);
  if (strict.ok() && *strict != lenient) std::abort();

  // Ordering is antisymmetric and consistent with equality.
  auto sign = [](int v) { return (v > 0) - (v < 0); };
  const int c = sign(presplit::CompareBytes(input, lenient));
  if ((c == 0) != (input == lenient)) std::abort();
  if (sign(presplit::CompareBytes(lenient, input)) != -c) std::abort();
  return 0;
}
