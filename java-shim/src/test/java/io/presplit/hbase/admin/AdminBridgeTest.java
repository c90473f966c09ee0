package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.junit.jupiter.api.Test;

/** What can be checked without a cluster; the rest is exercised by the end-to-end tests. */
class AdminBridgeTest {

  private static final String LZO_SPEC = "{\"table\":\"tinawang:lzo\",\"families\":["
      + "{\"name\":\"f\",\"compression\":\"LZO\"},{\"name\":\"g\"}]}";

  // Shapes of what HBase 2.6.4's master sends back (first line + remote stack trace).
  private static final String FIRST_TIME = "org.apache.hadoop.hbase.DoNotRetryIOException: "
      + "java.lang.RuntimeException: java.lang.ClassNotFoundException: "
      + "com.hadoop.compression.lzo.LzoCodec Set hbase.table.sanity.checks to false at conf or "
      + "table descriptor if you want to bypass sanity checks\n"
      + "\tat org.apache.hadoop.hbase.util.TableDescriptorChecker.warnOrThrowExceptionForFailure"
      + "(TableDescriptorChecker.java:364)\n";
  private static final String LATER = "org.apache.hadoop.hbase.DoNotRetryIOException: "
      + "Compression algorithm 'lzo' previously failed test. Set hbase.table.sanity.checks to "
      + "false at conf or table descriptor if you want to bypass sanity checks\n\tat x.y(Z.java:1)";

  @Test
  void aSplitRefusedForARegionNotOpenNamesItsState() {
    // As HBase 2.6.4's client hands a master's refusal of a split of a region being moved.
    Throwable refusal = new org.apache.hadoop.hbase.client.DoNotRetryRegionException(
        "org.apache.hadoop.hbase.client.DoNotRetryRegionException: "
            + "cb8b8f812bcda0e8bf85ed74a1cd1e03 is not OPEN; state=OPENING\n\tat x.y(Z.java:1)");
    assertEquals("OPENING", AdminBridge.notOpenState(refusal));
    assertEquals("OPENING",
        AdminBridge.notOpenState(new java.io.IOException("wrapped", refusal)));
    assertEquals("not open", AdminBridge.notOpenState(
        new org.apache.hadoop.hbase.client.DoNotRetryRegionException("abc is not OPEN")));
    // The policy's refusal (no split point) and other failures are not a region in transition.
    assertEquals(null, AdminBridge.notOpenState(
        new DoNotRetryIOException("Region abc is not splittable")));
    assertEquals(null, AdminBridge.notOpenState(new java.io.IOException("abc is not OPEN")));
  }

  @Test
  void codecRejectionIsOneLineNamingTableFamilyAndCodec() {
    TableSpec spec = TableSpec.parse(LZO_SPEC);
    DoNotRetryIOException orig = new DoNotRetryIOException(FIRST_TIME);
    DoNotRetryIOException e = AdminBridge.rejected(spec, orig);
    assertEquals("master rejected table tinawang:lzo: java.lang.RuntimeException: "
        + "java.lang.ClassNotFoundException: com.hadoop.compression.lzo.LzoCodec Set "
        + "hbase.table.sanity.checks to false at conf or table descriptor if you want to bypass "
        + "sanity checks [compression the cluster cannot load? family 'f' LZO]", e.getMessage());
    assertSame(orig, e.getCause());

    e = AdminBridge.rejected(spec, new DoNotRetryIOException(LATER));
    assertTrue(e.getMessage().startsWith("master rejected table tinawang:lzo: Compression "
        + "algorithm 'lzo' previously failed test."), e.getMessage());
    assertTrue(e.getMessage().endsWith("[compression the cluster cannot load? family 'f' LZO]"),
        e.getMessage());
  }

  @Test
  void otherRejectionsPassTheReasonThrough() {
    TableSpec spec = TableSpec.parse(LZO_SPEC);
    DoNotRetryIOException e = AdminBridge.rejected(spec,
        new DoNotRetryIOException("Unable to load configured region split policy 'x.Y'"));
    assertEquals("master rejected table tinawang:lzo: Unable to load configured region split "
        + "policy 'x.Y'", e.getMessage());
    e = AdminBridge.rejected(spec, new DoNotRetryIOException((String) null));
    assertEquals("master rejected table tinawang:lzo: (no message)", e.getMessage());
  }

  @Test
  void aNamespaceRefusalIsOneLineNamingThePermissionThePrincipalAndTheTable() throws Exception {
    // What HBase 2.6.4's master sends back for createNamespace without global ADMIN.
    AccessDeniedException orig = new AccessDeniedException(AccessDeniedException.class.getName()
        + ": Insufficient permissions for user 'presplit' (global, action=ADMIN)\n\tat org.apache.hadoop.hbase.security.access.AccessChecker"
        + ".requireGlobalPermission(AccessChecker.java:152)\n");
    AccessDeniedException e = AdminBridge.namespaceDenied(TableName.valueOf("fresh:events"), orig);
    String user = User.getCurrent().getShortName();
    assertEquals("HBase denied creating namespace fresh for table fresh:events: Insufficient "
        + "permissions for user 'presplit' (global, action=ADMIN); "
        + "creating a namespace needs global ADMIN, which presplitd's principal "
        + User.getCurrent().getName() + " lacks: create the namespace as an HBase admin and "
        + "grant CREATE on it (hbase shell: create_namespace 'fresh'; grant '" + user
        + "', 'C', '@fresh'), or grant global ADMIN (grant '" + user + "', 'A')", e.getMessage());
    assertSame(orig, e.getCause());
  }

  @Test
  void confPairsMustPair() {
    assertThrows(IllegalArgumentException.class,
        () -> AdminBridge.connect(new String[] {"hbase.zookeeper.quorum"}));
    assertThrows(IllegalArgumentException.class,
        () -> AdminBridge.connect(new String[] {"", "x"}));
    assertThrows(IllegalArgumentException.class,
        () -> AdminBridge.connect(new String[] {"k", null}));
  }
}
