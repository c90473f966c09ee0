package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.access.Permission;
import org.junit.jupiter.api.Test;

class PermissionCheckTest {

  private static final TableName A = TableName.valueOf("ns:a");
  private static final TableName B = TableName.valueOf("ns:b");
  private static final TableName FRESH = TableName.valueOf("fresh:c");

  @Test
  void needsFollowWhatExists() {
    List<PermissionCheck.Need> needs =
        PermissionCheck.needs(List.of(A, B, FRESH), Set.of("ns", "default"), Set.of(A), true);
    assertEquals(List.of(
        new PermissionCheck.Need("CREATE", "@ns", "creating tables in namespace ns; "
            + "creating tables in namespace ns"),
        new PermissionCheck.Need("ADMIN", "ns:a", "load splits and migration snapshots of ns:a"),
        new PermissionCheck.Need("ADMIN", "", "creating namespace fresh; the replication peers "
            + "of migrations' change capture")), needs);
    assertEquals(Permission.newBuilder("ns").withActions(Permission.Action.CREATE).build(),
        needs.get(0).permission());
    assertEquals(Permission.newBuilder(A).withActions(Permission.Action.ADMIN).build(),
        needs.get(1).permission());
    assertEquals(Permission.newBuilder().withActions(Permission.Action.ADMIN).build(),
        needs.get(2).permission());
  }

  @Test
  void withoutMigrationsNoGlobalAdmin() {
    assertEquals(List.of(new PermissionCheck.Need("CREATE", "@ns",
            "creating tables in namespace ns")),
        PermissionCheck.needs(List.of(A), Set.of("ns"), Set.of(), false));
  }

  @Test
  void theJsonListsWhatIsMissingWithItsGrant() {
    List<PermissionCheck.Need> needs = List.of(
        new PermissionCheck.Need("CREATE", "@ns", "creating tables in namespace ns"),
        new PermissionCheck.Need("ADMIN", "ns:a", "load splits"),
        new PermissionCheck.Need("ADMIN", "", "replication \"peers\""));
    assertEquals("{\"authorization\":true,\"principal\":\"presplit/h@R\",\"checked\":3,"
        + "\"create_checked\":1,\"missing\":[{\"permission\":\"ADMIN\",\"scope\":\"ns:a\","
        + "\"for\":\"load splits\",\"grant\":\"grant 'presplit', 'A', 'ns:a'\"},"
        + "{\"permission\":\"ADMIN\","
        + "\"scope\":\"GLOBAL\",\"for\":\"replication \\\"peers\\\"\","
        + "\"grant\":\"grant 'presplit', 'A'\"}]}",
        PermissionCheck.toJson("presplit/h@R", "presplit", needs,
            Arrays.asList(true, false, false)));
  }

  @Test
  void authorizationOffChecksNothing() {
    assertEquals("{\"authorization\":false,\"principal\":\"p\",\"checked\":0,"
        + "\"create_checked\":0,\"missing\":[]}",
        PermissionCheck.toJson("p", "p", List.of(), null));
  }
}
