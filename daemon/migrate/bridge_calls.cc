#include "daemon/migrate/bridge_calls.h"

#include <vector>

namespace presplit::daemon::migrate {
namespace {

const std::vector<BridgeCallInfo>& Table() {
  static const std::vector<BridgeCallInfo> table = {
#define PRESPLIT_BRIDGE_CALL(id, java_class, method, shape) {java_class, method, shape},
#include "daemon/migrate/bridge_calls.def"
#undef PRESPLIT_BRIDGE_CALL
  };
  return table;
}

// One letter of a shape as a JNI type; "" when the language lacks it.
std::string JniType(char letter) {
  switch (letter) {
    case 'S':
      return "Ljava/lang/String;";
    case 'A':
      return "[Ljava/lang/String;";
    case 'B':
      return "[B";
    case 'I':
      return "I";
    case 'J':
      return "J";
    case 'V':
      return "V";
    default:
      return "";
  }
}

}  // namespace

const BridgeCallInfo& InfoOf(BridgeCall call) { return Table().at(static_cast<size_t>(call)); }

size_t BridgeCallCount() { return Table().size(); }

Result<std::string> JniSignature(std::string_view shape) {
  const size_t arrow = shape.find('>');
  if (arrow == std::string_view::npos || arrow + 2 != shape.size()) {
    return Status::InvalidArgument("bridge call shape '" + std::string(shape) +
                                   "': expected the arguments, '>' and one result letter");
  }
  std::string signature = "(";
  for (size_t i = 0; i < arrow; ++i) {
    const std::string type = shape[i] == 'V' ? "" : JniType(shape[i]);
    if (type.empty()) {
      return Status::InvalidArgument("bridge call shape '" + std::string(shape) +
                                     "': no argument type '" + std::string(1, shape[i]) + "'");
    }
    signature += type;
  }
  const std::string result = JniType(shape[arrow + 1]);
  if (result.empty()) {
    return Status::InvalidArgument("bridge call shape '" + std::string(shape) +
                                   "': no result type '" + std::string(1, shape[arrow + 1]) + "'");
  }
  return signature + ")" + result;
}

std::string JniClassName(std::string_view java_class) {
  std::string name(java_class);
  for (char& c : name) {
    if (c == '.') c = '/';
  }
  return name;
}

size_t ArgumentCount(std::string_view shape) {
  const size_t arrow = shape.find('>');
  return arrow == std::string_view::npos ? shape.size() : arrow;
}

}  // namespace presplit::daemon::migrate
