package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.presplit.hbase.admin.AccessDenial.Operation;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The one line of each denial, from the texts HBase 2.6.4's AccessChecker sends back. */
class AccessDenialTest {

  private static final String CLASS = AccessDeniedException.class.getName() + ": ";
  private static final String TRACE = "\n\tat org.apache.hadoop.hbase.security.access."
      + "AccessChecker.requirePermission(AccessChecker.java:110)\n\tat x.y(Z.java:1)\n";

  private static String principal;
  private static String user;

  @BeforeAll
  static void whoAmI() throws IOException {
    principal = User.getCurrent().getName();
    user = User.getCurrent().getShortName();
  }

  /** As the client sees it: the class name, HBase's reason, the server's stack trace. */
  private static AccessDeniedException remote(String reason) {
    return new AccessDeniedException(CLASS + reason + TRACE);
  }

  private static String map(Operation op, String table, String reason) {
    IOException mapped = AccessDenial.map(op, table, remote(reason));
    assertTrue(mapped instanceof AccessDeniedException, mapped.toString());
    String message = mapped.getMessage();
    assertFalse(message.contains("\n"), message);
    assertFalse(message.contains(CLASS), message);
    return message;
  }

  @Test
  void createTableNamesNamespaceCreate() {
    assertEquals("HBase denied creating table ns:t: Insufficient permissions (user=tester@R, "
        + "scope=ns, params=[namespace=ns,table=ns:t],action=CREATE); presplitd's principal "
        + principal + " needs CREATE on namespace ns (hbase shell: grant '" + user
        + "', 'C', '@ns')",
        map(Operation.CREATE_TABLE, "ns:t", "Insufficient permissions (user=tester@R, "
            + "scope=ns, params=[namespace=ns,table=ns:t],action=CREATE)"));
  }

  @Test
  void aSplitNamesTheTableFromHBasesScope() {
    // The split request names only a region; HBase's scope names its table.
    assertEquals("HBase denied splitting a region of table ns:t: Insufficient permissions "
        + "(user=presplit/h@R, scope=ns:t, params=[table=ns:t],action=ADMIN); presplitd's "
        + "principal " + principal + " needs ADMIN on table ns:t (hbase shell: grant '" + user
        + "', 'A', 'ns:t')",
        map(Operation.SPLIT, null, "Insufficient permissions (user=presplit/h@R, scope=ns:t, "
            + "params=[table=ns:t],action=ADMIN)"));
  }

  @Test
  void aMoveNamesTheTableFromHBasesScope() {
    // As a split: the move request names only a region (and a server).
    assertEquals("HBase denied moving a region of table ns:t: Insufficient permissions "
        + "(user=presplit/h@R, scope=ns:t, params=[table=ns:t],action=ADMIN); presplitd's "
        + "principal " + principal + " needs ADMIN on table ns:t (hbase shell: grant '" + user
        + "', 'A', 'ns:t')",
        map(Operation.MOVE, null, "Insufficient permissions (user=presplit/h@R, scope=ns:t, "
            + "params=[table=ns:t],action=ADMIN)"));
  }

  @Test
  void aRegionServersScanRefusalNamesTheTable() {
    assertEquals("HBase denied sampling the row keys of table ns:t: Insufficient permissions for "
        + "user 'presplit' (table=ns:t, action=READ); presplitd's principal " + principal
        + " needs READ on table ns:t (hbase shell: grant '" + user + "', 'R', 'ns:t')",
        map(Operation.SAMPLE_KEYS, "ns:t",
            "Insufficient permissions for user 'presplit' (table=ns:t, action=READ)"));
  }

  @Test
  void describingATableNeedsCreateOnIt() {
    String m = map(Operation.DESCRIBE_TABLE, "ns:t", "Insufficient permissions (user=tester@R, "
        + "scope=ns:t, params=[table=ns:t],action=CREATE)");
    assertTrue(m.startsWith("HBase denied describing table ns:t: "), m);
    assertTrue(m.endsWith("needs CREATE on table ns:t (hbase shell: grant '" + user
        + "', 'C', 'ns:t')"), m);
  }

  @Test
  void snapshotNeedsTableAdmin() {
    String m = map(Operation.SNAPSHOT, "ns:src", "Insufficient permissions (user=presplit/h@R, "
        + "scope=ns:src, params=[table=ns:src],action=ADMIN)");
    assertTrue(m.startsWith("HBase denied snapshotting table ns:src: "), m);
    assertTrue(m.endsWith("needs ADMIN on table ns:src (hbase shell: grant '" + user
        + "', 'A', 'ns:src')"), m);
  }

  @Test
  void adminOrCreateOperationsAskForCreate() {
    // modifyTable, bulk loads, disable and delete take ADMIN or CREATE: HBase names the last.
    for (Operation op : new Operation[] {Operation.MODIFY_TABLE, Operation.BULK_LOAD,
        Operation.DISABLE_TABLE, Operation.DELETE_TABLE, Operation.FLUSH}) {
      String m = map(op, "ns:t_g2", "Insufficient permissions (user=presplit/h@R, "
          + "scope=ns:t_g2, params=[table=ns:t_g2],action=CREATE)");
      assertTrue(m.startsWith("HBase denied " + op.doing + " ns:t_g2: Insufficient"), m);
      assertTrue(m.endsWith("needs CREATE on table ns:t_g2 (hbase shell: grant '" + user
          + "', 'C', 'ns:t_g2')"), m);
    }
  }

  @Test
  void replicationPeersNeedGlobalAdmin() {
    assertEquals("HBase denied adding the change capture's replication peer for table ns:t: "
        + "Insufficient permissions for user 'presplit' (global, action=ADMIN); presplitd's "
        + "principal " + principal + " needs global ADMIN (hbase shell: grant '" + user
        + "', 'A')",
        map(Operation.ADD_PEER, "ns:t",
            "Insufficient permissions for user 'presplit' (global, action=ADMIN)"));
    String m = map(Operation.REMOVE_PEER, "presplit_ns_t_g2",
        "Insufficient permissions (user=presplit/h@R, scope=GLOBAL, action=ADMIN)");
    assertTrue(m.startsWith("HBase denied removing the change capture's replication peer "
        + "presplit_ns_t_g2: "), m);
    assertTrue(m.endsWith("needs global ADMIN (hbase shell: grant '" + user + "', 'A')"), m);
    m = map(Operation.DESCRIBE_PEER, "presplit_ns_t_g2",
        "Insufficient permissions for user 'presplit' (global, action=ADMIN)");
    assertTrue(m.startsWith("HBase denied reading the change capture's replication peer "
        + "presplit_ns_t_g2: "), m);
    assertTrue(m.endsWith("needs global ADMIN (hbase shell: grant '" + user + "', 'A')"), m);
  }

  @Test
  void withoutHBasesWordsTheOperationDecides() {
    String m = map(Operation.SPLIT, "ns:t", "denied");
    assertTrue(m.endsWith("needs ADMIN on table ns:t (hbase shell: grant '" + user
        + "', 'A', 'ns:t')"), m);
    m = map(Operation.CREATE_TABLE, "t", "denied");
    assertTrue(m.endsWith("needs CREATE on namespace default (hbase shell: grant '" + user
        + "', 'C', '@default')"), m);
  }

  @Test
  void aDenialIsFoundWrappedAndKeptAsCause() {
    AccessDeniedException orig = remote("Insufficient permissions (user=presplit/h@R, "
        + "scope=ns:t, params=[table=ns:t],action=CREATE)");
    IOException wrapped = new IOException("bulk load into ns:t failed",
        new ExecutionException(orig));
    IOException mapped = AccessDenial.map(Operation.BULK_LOAD, TableName.valueOf("ns:t"), wrapped);
    assertTrue(mapped.getMessage().startsWith("HBase denied bulk loading HFiles into table ns:t"),
        mapped.getMessage());
    assertSame(orig, mapped.getCause());
  }

  @Test
  void otherFailuresPassUnchanged() {
    IOException other = new IOException("connection refused");
    assertSame(other, AccessDenial.map(Operation.SPLIT, (String) null, other));
  }
}
