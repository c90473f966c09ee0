// Fuzzes the bounds check of JSON from outside (presplit/json_bounds.h) against the parser: the
// first input byte is the depth limit (0-15), the rest the text. Nothing may crash, and:
//  - for text the parser accepts (and that has no NUL byte, where the parser stops reading),
//    CheckJsonBounds passes exactly when the parser's own depth (counted by a SAX handler, no
//    recursion) is within the limit;
//  - text that passes is parsed by ParseBoundedJson and survives what the daemon does with a
//    status (copy, compare, dump), which recurse once per level.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "presplit/json_bounds.h"

namespace {

using json = nlohmann::json;

// The deepest nesting the parser reports, by its events.
struct DepthCounter : nlohmann::json_sax<json> {
  int depth = 0;
  int deepest = 0;
  bool Open() {
    deepest = std::max(deepest, ++depth);
    return true;
  }
  bool Close() {
    --depth;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int limit = data[0] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const presplit::JsonBounds bounds{presplit::kMaxJsonBytes, limit};
  const presplit::Status checked = presplit::CheckJsonBounds(text, bounds);
  Check(checked.ok() || !checked.message().empty());

  DepthCounter counter;
  const bool accepted = json::sax_parse(text.begin(), text.end(), &counter);
  // nlohmann's parser ends the input at a NUL byte outside a string; the bound covers every byte,
  // so text with one may be refused for what follows it: compared only without.
  if (accepted && text.find('\0') == std::string_view::npos) {
    Check(checked.ok() == (counter.deepest <= limit));
  }

  const json parsed = presplit::ParseBoundedJson(text, bounds);
  Check(parsed.is_discarded() == (!checked.ok() || !accepted));
  if (!parsed.is_discarded()) {
    const json copy = parsed;
    Check(copy == parsed);
    const std::string dumped = copy.dump(-1, ' ', false, json::error_handler_t::replace);
    Check(presplit::CheckJsonBounds(dumped, presplit::JsonBounds{std::string::npos, limit}).ok());
  }
  return 0;
}
