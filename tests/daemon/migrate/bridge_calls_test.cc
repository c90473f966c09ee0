#include "daemon/migrate/bridge_calls.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace presplit::daemon::migrate {
namespace {

TEST(BridgeCalls, EveryRowHasAValidShapeAndAUniqueMethod) {
  std::set<std::string> seen;
  for (size_t i = 0; i < BridgeCallCount(); ++i) {
    const BridgeCallInfo& info = InfoOf(static_cast<BridgeCall>(i));
    const std::string key = std::string(info.java_class) + "." + info.method;
    EXPECT_TRUE(seen.insert(key + "/" + std::to_string(ArgumentCount(info.shape))).second) << key;
    auto signature = JniSignature(info.shape);
    EXPECT_TRUE(signature.ok()) << key << ": " << signature.status().message();
    // The bridge's classes, one per concern, and the bulk job's.
    EXPECT_TRUE(std::string(info.java_class).rfind("io.presplit.migrate.", 0) == 0 ||
                std::string(info.java_class) == "io.presplit.mapreduce.ResaltBulkJob")
        << key;
  }
  EXPECT_EQ(std::string(InfoOf(BridgeCall::kCopyChunk).method), "copyChunk");
  EXPECT_EQ(std::string(InfoOf(BridgeCall::kConfigure).java_class),
            "io.presplit.migrate.BridgeConnection")
      << "JniMigrationBridge configures the shared connection through this row first";
  EXPECT_EQ(std::string(InfoOf(BridgeCall::kJobKill).shape), "SS>V");
}

TEST(BridgeCalls, ShapesAreJniSignatures) {
  EXPECT_EQ(*JniSignature("SSSSBBIJS>S"),
            "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;[B[BIJ"
            "Ljava/lang/String;)Ljava/lang/String;");
  EXPECT_EQ(*JniSignature("A>V"), "([Ljava/lang/String;)V");
  EXPECT_EQ(*JniSignature(">S"), "()Ljava/lang/String;");
  EXPECT_FALSE(JniSignature("SS").ok()) << "no result";
  EXPECT_FALSE(JniSignature("SX>S").ok()) << "no such letter";
  EXPECT_FALSE(JniSignature("VS>S").ok()) << "a void argument";
  EXPECT_FALSE(JniSignature("S>SS").ok()) << "two results";
  EXPECT_EQ(ArgumentCount("SSB>V"), 3u);
  EXPECT_EQ(JniClassName("io.presplit.migrate.CopyBridge"), "io/presplit/migrate/CopyBridge");
}

}  // namespace
}  // namespace presplit::daemon::migrate
