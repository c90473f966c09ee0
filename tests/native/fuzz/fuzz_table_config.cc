// Fuzzes the table document parser: never crashes or throws, and whatever it accepts has a
// canonical form that parses to the same canonical form and plans valid split keys.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "presplit/split_algorithms.h"
#include "presplit/table_canonical.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto config = presplit::ParseTableConfig(input);
  if (!config.ok()) {
    if (config.status().message().empty()) std::abort();  // every refusal says why
    return 0;
  }
  const std::string canonical = presplit::TableConfigToJson(*config);
  auto again = presplit::ParseTableConfig(canonical);
  if (!again.ok()) std::abort();
  if (presplit::TableConfigToJson(*again) != canonical) std::abort();

  auto keys = presplit::ComputeSplitKeys(*config);
  if (!keys.ok()) std::abort();  // validation already planned them
  if (!presplit::ValidateSplitKeys(*keys).ok()) std::abort();
  return 0;
}
