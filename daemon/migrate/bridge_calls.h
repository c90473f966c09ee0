// The calls presplitd makes into presplit-hbase.jar (bridge_calls.def, one row each), and the
// JNI signatures their shapes stand for. Pure: JniMigrationBridge does the calling.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit::daemon::migrate {

enum class BridgeCall {
#define PRESPLIT_BRIDGE_CALL(id, java_class, method, shape) id,
#include "daemon/migrate/bridge_calls.def"
#undef PRESPLIT_BRIDGE_CALL
};

struct BridgeCallInfo {
  const char* java_class;  // "io.presplit.migrate.CopyBridge"
  const char* method;      // "copyChunk"
  const char* shape;       // "SSSSBBIJS>S"
};

const BridgeCallInfo& InfoOf(BridgeCall call);
// How many rows bridge_calls.def has (BridgeCall values are 0 to this - 1).
size_t BridgeCallCount();

// The JNI method signature of a shape: "SB>S" -> "(Ljava/lang/String;[B)Ljava/lang/String;".
// InvalidArgument for a letter the shape language lacks, no '>', or a void argument.
Result<std::string> JniSignature(std::string_view shape);
// "io.presplit.migrate.CopyBridge" -> "io/presplit/migrate/CopyBridge".
std::string JniClassName(std::string_view java_class);
// The number of arguments of a shape (the letters before '>').
size_t ArgumentCount(std::string_view shape);

}  // namespace presplit::daemon::migrate
